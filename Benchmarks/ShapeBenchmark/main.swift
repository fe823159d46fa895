import APIProbeShared
// ShapeBenchmark: JSONShape's speed and memory, measured side by side in one run.
//
//   swift run -c release ShapeBenchmark [--corpus-mb 100] [--lines-mb 1024] [--document-mb 50]
//
// 1. Peak memory while inferring over 1 GB of JSON Lines streamed from a temporary file (target < 64 MiB),
//    and over one 50 MB document streamed from a file (target ≤ 64 MiB).
// 2. Inference throughput over ~100 MB of generated API responses versus JSONSerialization parsing the
//    same bytes (target ratio ≥ 1.0).
//    2c. The command line: `apiprobe schema infer` (the release build, or APIPROBE_BINARY) over the same responses
//    as files, against C++ simdjson (Debian's libsimdjson-dev, built here with g++ -O3 from simdjson/): its parse
//    alone, the floor under anything that reads every byte, and a naive inferrer on it (each path's types and
//    presence). Targets: the command line within 1.0× the naive inferrer's process CPU time, and in-process
//    inference within 1.5× simdjson's parse alone. SHAPE_CORPUS_DIR keeps the files for a profiler.
// 3. Diff of two schemas of 10,000 properties (target < 50 ms).
import BenchmarkSupport
import Foundation
import JSONShape

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let words = [
    "tomato", "basil", "garlic", "onion", "olive oil", "salt", "pepper", "lemon", "chicken", "rice",
    "butter", "flour", "sugar", "egg", "milk", "cream", "parsley", "thyme", "carrot", "potato",
]
let publishers = ["Closet Cooking", "101 Cookbooks", "The Pioneer Woman", "Simply Recipes", "Two Peas and Their Pod"]

/// One recipe object, as the recipes API returns it.
func appendRecipe(_ out: inout String, _ rng: inout SeededGenerator, id: Int) {
    let uuid = UUID().uuidString.lowercased()
    let rank = Double(rng.next() % 10_000) / 100
    let day = 1 + Int(rng.next() % 28)
    let month = 1 + Int(rng.next() % 12)
    let bigID: UInt64 = UInt64(1) << 60 + UInt64(id)
    let first: String = words[Int(rng.next() % 20)].capitalized
    let second: String = words[Int(rng.next() % 20)]
    let third: String = words[Int(rng.next() % 20)]
    out += #"{"id":\#(bigID),"recipe_id":"\#(uuid)","title":"\#(first) \#(second) with \#(third) \#(id)","#
    out +=
        #""publisher":"\#(publishers[Int(rng.next() % 5)])","social_rank":\#(rank),"source_url":"https:\/\/example.com\/recipes\/\#(id)","image_url":"https://images.example.com/\#(id).jpg","#
    out +=
        #""published_at":"2026-\#(month < 10 ? "0" : "")\#(month)-\#(day < 10 ? "0" : "")\#(day)T12:00:00Z","author":{"name":"Cook \#(id % 97)","email":"cook\#(id % 97)@example.com"},"#
    out +=
        #""nutrition":{"calories":\#(rng.next() % 900),"fat":\#(Double(rng.next() % 500) / 10),"sugar":\#(rng.next() % 2 == 0 ? "null" : String(rng.next() % 40))},"ingredients":["#
    for k in 0..<Int(4 + rng.next() % 8) {
        if k > 0 { out += "," }
        out += #""\#(1 + rng.next() % 4) cups \#(words[Int(rng.next() % 20)])""#
    }
    out +=
        #"],"tags":["quick","dinner"],"rating":\#(rng.next() % 3 == 0 ? "null" : String(Double(rng.next() % 50) / 10))"#
    if rng.next() % 4 == 0 { out += #","video_url":"https://video.example.com/\#(id)""# }
    out += "}"
}

/// A search response with `count` recipes.
func makeResponse(_ rng: inout SeededGenerator, count: Int, firstID: Int) -> String {
    var out = #"{"count":\#(count),"page":\#(firstID / max(count, 1)),"recipes":["#
    for i in 0..<count {
        if i > 0 { out += "," }
        appendRecipe(&out, &rng, id: firstID + i)
    }
    out += #"],"facets":{"2026-01-01":{"hits":3},"2026-01-02":{"hits":5}}}"#
    return out
}

let linesMB = argument("--lines-mb", default: 1024)
let corpusMB = argument("--corpus-mb", default: 100)
let documentMB = argument("--document-mb", default: 50)

// MARK: 1. Peak memory over JSON Lines streamed from a file

do {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("shape-benchmark-\(getpid()).jsonl")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: url) }
    guard let handle = FileHandle(forWritingAtPath: url.path) else { fatalError("cannot write \(url.path)") }
    var rng = SeededGenerator(seed: 42)
    var written = 0
    var buffer = ""
    var id = 0
    let target = linesMB << 20
    while written < target {
        buffer += makeResponse(&rng, count: 3, firstID: id) + "\n"
        id += 3
        if buffer.utf8.count >= 1 << 20 {
            let data = Data(buffer.utf8)
            try handle.write(contentsOf: data)
            written += data.count
            buffer = ""
        }
    }
    try handle.close()
    let before = peakResidentMiB()
    let reset = resetPeakResident()
    let start = now()
    var inference = ShapeInference()
    try inference.addJSONLines(contentsOf: url)
    let seconds = now() - start
    let peak = peakResidentMiB()
    print(
        "JSON Lines: \(inference.sampleCount) documents, \(format(Double(written) / 1_048_576, 0)) MiB in \(format(seconds, 2)) s (\(format(Double(written) / 1_048_576 / seconds, 0)) MiB/s)"
    )
    print(
        "  peak resident memory while inferring: \(format(peak)) MiB (target < 64 MiB)\(reset ? "" : " [peak not reset; before: \(format(before)) MiB]")"
    )
}

// MARK: 1b. Peak memory over one large document streamed from a file

do {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("shape-benchmark-\(getpid()).json")
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: url) }
    guard let handle = FileHandle(forWritingAtPath: url.path) else { fatalError("cannot write \(url.path)") }
    var rng = SeededGenerator(seed: 11)
    var written = 0
    var id = 0
    var buffer = #"{"count":0,"recipes":["#
    let target = documentMB << 20
    while written < target {
        if id > 0 { buffer += "," }
        appendRecipe(&buffer, &rng, id: id)
        id += 1
        if buffer.utf8.count >= 1 << 20 {
            let data = Data(buffer.utf8)
            try handle.write(contentsOf: data)
            written += data.count
            buffer = ""
        }
    }
    buffer += "]}"
    try handle.write(contentsOf: Data(buffer.utf8))
    written += buffer.utf8.count
    try handle.close()
    let reset = resetPeakResident()
    let start = now()
    var inference = ShapeInference()
    try inference.addSample(contentsOf: url)
    let seconds = now() - start
    let peak = peakResidentMiB()
    precondition(inference.shape.properties["recipes"]?.items?.properties["recipe_id"]?.format == .uuid)
    print(
        "One document: \(id) recipes, \(format(Double(written) / 1_048_576, 0)) MiB in \(format(seconds, 2)) s, streamed from a file"
    )
    print(
        "  peak resident memory while inferring: \(format(peak)) MiB (target ≤ 64 MiB)\(reset ? "" : " [peak not reset]")"
    )
}

// MARK: 2. Throughput versus JSONSerialization

var rng = SeededGenerator(seed: 7)
var documents: [Data] = []
var corpusBytes = 0
var nextID = 0
while corpusBytes < corpusMB << 20 {
    let count = 20 + Int(rng.next() % 180)
    let data = Data(makeResponse(&rng, count: count, firstID: nextID).utf8)
    nextID += count
    corpusBytes += data.count
    documents.append(data)
}
let corpusMiB = Double(corpusBytes) / 1_048_576

func measure(_ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
        let start = now()
        try body()
        best = min(best, now() - start)
    }
    return best
}

// `--profile-inference N`: only inference over the corpus, N times (for a profiler), then exit.
if let rounds = Optional(argument("--profile-inference", default: 0)), rounds > 0 {
    for _ in 0..<rounds {
        var inference = ShapeInference()
        for data in documents { try inference.addSample(data) }
    }
    exit(0)
}

let foundationSeconds = try measure {
    for data in documents { _ = try JSONSerialization.jsonObject(with: data) }
}
var lastShape = ShapeNode.empty
let shapeSeconds = try measure {
    var inference = ShapeInference()
    for data in documents { try inference.addSample(data) }
    lastShape = inference.shape
}
let samples = documents.map { (json: $0, file: "corpus") }
var parallelShape = ShapeNode.empty
let parallelSeconds = try measure {
    var inference = ShapeInference()
    try inference.addSamples(samples)
    parallelShape = inference.shape
}
precondition(parallelShape == lastShape, "addSamples gave another shape than addSample in order")
let cores = ProcessInfo.processInfo.activeProcessorCount
print("Throughput over \(documents.count) responses, \(format(corpusMiB)) MiB (best of 3):")
print(
    "  JSONSerialization parse only: \(format(foundationSeconds * 1000, 0)) ms  \(format(corpusMiB / foundationSeconds, 0)) MiB/s"
)
print(
    "  JSONShape inference:          \(format(shapeSeconds * 1000, 0)) ms  \(format(corpusMiB / shapeSeconds, 0)) MiB/s"
)
print(
    "  JSONShape addSamples, \(cores) cores: \(format(parallelSeconds * 1000, 0)) ms  \(format(corpusMiB / parallelSeconds, 0)) MiB/s"
)
print(
    "  ratio (JSONSerialization time / inference time): \(format(foundationSeconds / shapeSeconds, 2)) (target ≥ 1.0)"
)
precondition(
    lastShape.properties["recipes"]?.items?.properties["recipe_id"]?.format == .uuid,
    "inference lost the uuid format"
)

// MARK: 2b. Versus GenSON, the Python reference for schema inference, on the same documents

/// Times GenSON's `SchemaBuilder.add_object` over the corpus (written to a JSON Lines file; parsing with
/// Python's `json` is counted, as JSONShape's reading is), in a child process; the best of 3, in seconds.
@MainActor func genSONSeconds() -> Double? {
    let python = ProcessInfo.processInfo.environment["GENSON_PYTHON"] ?? "python3"
    let corpus = FileManager.default.temporaryDirectory.appendingPathComponent("shape-genson-\(getpid()).jsonl")
    defer { try? FileManager.default.removeItem(at: corpus) }
    var lines = Data()
    for data in documents {
        lines.append(data)
        lines.append(UInt8(ascii: "\n"))
    }
    guard (try? lines.write(to: corpus)) != nil else { return nil }
    let script = """
        import json, sys, time
        from genson import SchemaBuilder
        lines = open(sys.argv[1], 'rb').read().splitlines()
        best = float('inf')
        for _ in range(3):
            start = time.perf_counter()
            builder = SchemaBuilder()
            for line in lines:
                builder.add_object(json.loads(line))
            builder.to_schema()
            best = min(best, time.perf_counter() - start)
        print(best)
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [python, "-c", script, corpus.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
}

if let genson = genSONSeconds() {
    print(
        "  GenSON (Python) over the same documents: \(format(genson * 1000, 0)) ms; JSONShape is \(format(genson / shapeSeconds, 1))× faster on one thread, \(format(genson / parallelSeconds, 1))× with addSamples on \(cores) cores (target ≥ 30×)"
    )
} else {
    print("  GenSON: not measured (pip install genson, or set GENSON_PYTHON to a Python that has it)")
}

// MARK: 2c. The command line, against simdjson

#if canImport(Glibc)
let childrenUsage = RUSAGE_CHILDREN.rawValue
#else
let childrenUsage = RUSAGE_CHILDREN
#endif

/// The CPU seconds (user and system) and wall seconds of one run of `executable`, best of 3, its output discarded;
/// `nil` when it cannot run or fails.
func processSeconds(_ executable: String, _ arguments: [String]) -> (cpu: Double, wall: Double, output: String)? {
    var best: (cpu: Double, wall: Double, output: String)?
    for _ in 0..<3 {
        var before = rusage()
        getrusage(childrenUsage, &before)
        let start = now()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let wall = now() - start
        guard process.terminationStatus == 0 else { return nil }
        var after = rusage()
        getrusage(childrenUsage, &after)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        let cpu =
            seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime)
        if cpu < best?.cpu ?? .infinity {
            // Only the last line: the tool prints a whole snapshot.
            let text = String(decoding: data.suffix(200), as: UTF8.self)
            best = (cpu, wall, text.split(separator: "\n").last.map(String.init) ?? "")
        }
    }
    return best
}

do {
    let binary = ProcessInfo.processInfo.environment["APIPROBE_BINARY"] ?? ".build/release/apiprobe"
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("simdjson")
    // SHAPE_CORPUS_DIR keeps the files (for a profiler); else they go to a temporary folder, removed afterwards.
    let kept = ProcessInfo.processInfo.environment["SHAPE_CORPUS_DIR"]
    let folder =
        kept.map { URL(fileURLWithPath: $0, isDirectory: true) }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("shape-cli-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { if kept == nil { try? FileManager.default.removeItem(at: folder) } }
    var files: [String] = []
    for (index, data) in documents.enumerated() {
        let file = folder.appendingPathComponent(String(format: "response-%04d.json", index))
        try data.write(to: file)
        files.append(file.path)
    }
    print("The command line over the same \(files.count) responses as files (process CPU time, best of 3):")
    var built: [String: String] = [:]
    for program in ["parse", "infer"] {
        let output = folder.appendingPathComponent(program).path
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/g++")
        compiler.arguments = [
            "-O3", "-std=c++17", sources.appendingPathComponent("\(program).cpp").path, "-lsimdjson", "-o", output,
        ]
        compiler.standardError = FileHandle.nullDevice
        if (try? compiler.run()) != nil {
            compiler.waitUntilExit()
            if compiler.terminationStatus == 0 { built[program] = output }
        }
    }
    let runsCLI = FileManager.default.isExecutableFile(atPath: binary)
    let cli = runsCLI ? processSeconds(binary, ["schema", "infer", folder.path]) : nil
    // The same files named one by one: swift-argument-parser's parse of a repeated argument grows with the square
    // of their number (ParsedValues.update copies the array and merges the origins for each value).
    let cliFiles = runsCLI ? processSeconds(binary, ["schema", "infer"] + files) : nil
    let parse = built["parse"].flatMap { processSeconds($0, files) }
    let naive = built["infer"].flatMap { processSeconds($0, files) }
    if let cli, let cliFiles {
        print(
            "  apiprobe schema infer FOLDER:   \(format(cli.cpu * 1000, 0)) ms CPU, \(format(cli.wall * 1000, 0)) ms wall"
        )
        print(
            "  apiprobe schema infer FILE...:  \(format(cliFiles.cpu * 1000, 0)) ms CPU (the argument parser: "
                + "+\(format((cliFiles.cpu - cli.cpu) * 1000, 0)) ms for \(files.count) arguments)")
    } else {
        print("  apiprobe schema infer: not measured (build it first: swift build -c release --product apiprobe)")
    }
    if let parse, let naive {
        print("  simdjson parse only:            \(format(parse.cpu * 1000, 0)) ms CPU (\(parse.output))")
        print("  simdjson + a naive inferrer:    \(format(naive.cpu * 1000, 0)) ms CPU (\(naive.output))")
        if let cli {
            print(
                "  ratio (apiprobe / naive simdjson inferrer, process CPU): \(format(cli.cpu / naive.cpu, 2)) (target ≤ 1.0)"
            )
        }
        let parseSeconds = Double(parse.output.split(separator: " ").dropLast().last ?? "") ?? parse.cpu
        print(
            "  ratio (JSONShape in process / simdjson's parse alone): \(format(shapeSeconds / parseSeconds, 2)) (target ≤ 1.5)"
        )
    } else {
        print("  simdjson: not measured (apt-get install -y g++ libsimdjson-dev)")
    }
}

// MARK: 3. Diff of two 10,000-property schemas

var oldShape = ShapeNode(types: .object)
var newShape = ShapeNode(types: .object)
for index in 0..<10_000 {
    let key = "field_\(index)"
    let child = ShapeNode(types: index % 3 == 0 ? .string : .integer, format: index % 3 == 0 ? .dateTime : nil)
    oldShape.properties[key] = child
    oldShape.required.insert(key)
    var changed = child
    if index % 100 == 0 { changed.types = .number }
    if index % 250 == 0 { changed.types.insert(.null) }
    if index % 333 != 0 { newShape.properties[key] = changed }
    if index % 10 != 0 { newShape.required.insert(key) }
}
newShape.required.formIntersection(newShape.properties.keys)
var diffChanges = 0
let diffSeconds = measure {
    diffChanges = SchemaDiff(from: oldShape, to: newShape).changes.count
}
print(
    "Diff of two schemas of 10,000 properties: \(format(diffSeconds * 1000, 2)) ms, \(diffChanges) changes (target < 50 ms)"
)
