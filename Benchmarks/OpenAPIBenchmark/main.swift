// OpenAPIBenchmark: reading and importing a large OpenAPI description, as `apiprobe openapi import` does.
//
//   swift run -c release OpenAPIBenchmark [--operations 8000] [--schemas 3000]
//   swift run -c release OpenAPIBenchmark --spec spec3.json [--old spec3-old.json] [--baseline OLD_APIPROBE]
//
// With --spec, a real description is read instead (and, with --old, the diff from an older version is timed).
// With --baseline (an `apiprobe` built from an earlier commit) and --binary (this one, default
// .build/release/apiprobe), `openapi import` and `openapi diff` of each are run side by side, three times each in
// turn, and the ratios of their median wall times printed.
//
// Issue 20's targets for Stripe's newest spec3.json: import under 2 s and 200 MiB, the diff of two versions under
// 1 s (read of the old version aside), files no larger than the shared-$defs snapshots of before (16 MB).
//
// A seeded generator writes a JSON description of about 10 MB shaped like large public ones (GitHub's REST
// description: thousands of operations over a shared set of component schemas that reference each other, a few
// recursively, with nullable fields, formats, enums, allOf and oneOf). The run times the read (parse, OpenAPIKit's
// check, every schema converted) and the import's files, and reports the peak memory.
// Targets: under 5 s and under 500 MiB for 10 MB.
import APIProbeShared
import BenchmarkSupport
import Foundation
import OpenAPISupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON string literal.
func quoted(_ text: String) -> String { "\"\(text)\"" }

/// A reference to component schema `S<index>`.
func reference(_ index: Int) -> String { "{\"$ref\": \"#/components/schemas/S\(index)\"}" }

func makeDescription(operations: Int, schemas: Int) -> Data {
    var random = SeededGenerator(seed: 2_026)
    var out = #"{"openapi": "3.0.3", "info": {"title": "Generated", "version": "1.0.0"}, "#
    out += #""servers": [{"url": "https://api.example.com/v3"}], "paths": {"#
    let description = String(repeating: "Lorem ipsum dolor sit amet. ", count: 4)
    for index in 0..<operations {
        if index > 0 { out += ", " }
        let schema = Int.random(in: 0..<schemas, using: &random)
        out += quoted("/resources\(index)/{owner}/{id}") + ": {"
        out += #""get": {"operationId": "get-resource-\#(index)", "description": "\#(description)", "#
        out += #""parameters": [{"name": "owner", "in": "path", "required": true, "schema": {"type": "string"}}, "#
        out += #"{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}, "#
        out += #"{"name": "per_page", "in": "query", "schema": {"type": "integer", "default": 30}}], "#
        out += #""responses": {"200": {"description": "ok", "content": {"application/json": {"schema": "#
        out += #"{"type": "array", "items": \#(reference(schema))}}}}, "#
        out += #""404": {"description": "not found"}}}}"#
    }
    out += #"}, "components": {"schemas": {"#
    for index in 0..<schemas {
        if index > 0 { out += ", " }
        var properties: [String] = []
        for field in 0..<12 {
            let roll = Int.random(in: 0..<100, using: &random)
            let name = quoted("field_\(field)")
            // Schemas come in six layers (a repository holds a user holds a plan …); references go to a lower one.
            let layer = index * 6 / schemas
            if roll < 15, layer > 0 {
                // References go down the layers (a DAG, as most specs are) ...
                let target = Int.random(in: 0..<(layer * schemas / 6), using: &random)
                properties.append(#"\#(name): \#(reference(target))"#)
            } else if roll < 17 {
                // ... and a few back to themselves (comments with replies).
                properties.append(
                    #"\#(name): {"type": "array", "items": \#(reference(index))}"#)
            } else if roll < 40 {
                properties.append(#"\#(name): {"type": "string", "format": "date-time", "nullable": true}"#)
            } else if roll < 50 {
                properties.append(#"\#(name): {"type": "string", "enum": ["open", "closed", "all"]}"#)
            } else if roll < 55 {
                properties.append(#"\#(name): {"oneOf": [{"type": "string"}, {"type": "integer"}]}"#)
            } else {
                properties.append(#"\#(name): {"type": "integer", "description": "\#(description)"}"#)
            }
        }
        let body =
            #"{"type": "object", "required": ["field_0"], "properties": {\#(properties.joined(separator: ", "))}}"#
        if index % 10 == 0, index > 0 {
            out += quoted("S\(index)") + #": {"allOf": [\#(reference(index - 1)), \#(body)]}"#
        } else {
            out += quoted("S\(index)") + ": " + body
        }
    }
    out += "}}}"
    return Data(out.utf8)
}

func path(_ name: String) -> String? {
    let args = CommandLine.arguments
    guard let index = args.firstIndex(of: name), index + 1 < args.count else { return nil }
    return args[index + 1]
}

let specPath = path("--spec")
let oldPath = path("--old")
let data: Data
let fileName: String
if let specPath {
    guard let contents = FileManager.default.contents(atPath: specPath) else {
        print("error: \(specPath): expected a readable file")
        exit(2)
    }
    data = contents
    fileName = specPath
    print(String(format: "description: %@, %.1f MB", specPath, Double(data.count) / 1e6))
} else {
    let operations = argument("--operations", default: 8_000)
    let schemas = argument("--schemas", default: 3_000)
    data = makeDescription(operations: operations, schemas: schemas)
    fileName = "generated.json"
    print(
        String(format: "description: %.1f MB, %d operations, %d schemas", Double(data.count) / 1e6, operations, schemas)
    )
}

/// Runs a command, its output discarded, and returns its wall time in seconds (and whether it exited 0 or 1).
func timed(_ executable: String, _ arguments: [String], in folder: URL) -> (seconds: Double, status: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let start = now()
    do { try process.run() } catch {
        print("error: \(executable): \(error)")
        exit(2)
    }
    process.waitUntilExit()
    return (now() - start, process.terminationStatus)
}

/// The bytes of the files below `folder`.
func folderBytes(_ folder: URL) -> Int {
    let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
    return names.reduce(0) { total, name in
        let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path))?[.size]
        return total + ((size as? NSNumber)?.intValue ?? 0)
    }
}

/// `openapi import` and `openapi diff` of the baseline and of this build, side by side.
func compareWithBaseline(_ baseline: String, binary: String, spec: String, old: String?) {
    let spec = URL(fileURLWithPath: spec).standardizedFileURL.path
    let old = old.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    var times: [String: [Double]] = [:]
    var bytes: [String: Int] = [:]
    for round in 0..<3 {
        for (label, executable) in [("baseline", baseline), ("this build", binary)] {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "openapi-bench-\(round)-\(label.count)")
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let run = timed(executable, ["openapi", "import", spec, "--api", "bench"], in: folder)
            times["import " + label, default: []].append(run.seconds)
            bytes[label] = folderBytes(folder.appendingPathComponent("Snapshots"))
            if let old {
                times["diff " + label, default: []].append(
                    timed(executable, ["openapi", "diff", old, spec], in: folder).seconds)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }
    for step in ["import"] + (old == nil ? [] : ["diff"]) {
        let before = median(times[step + " baseline"] ?? [])
        let after = median(times[step + " this build"] ?? [])
        print(
            "\(step), process against process (median of 3): baseline \(format(before, 2)) s, this build \(format(after, 2)) s, \(format(before / after, 1))× faster"
        )
    }
    print(
        "snapshot files: baseline \(format(Double(bytes["baseline"] ?? 0) / 1e6)) MB, this build \(format(Double(bytes["this build"] ?? 0) / 1e6)) MB"
    )
}

let thread = Thread {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        let spec = try OpenAPISpec(data: data, file: fileName)
        let read = clock.now - start
        let result = SpecImport(spec)
        let total = clock.now - start
        let bytes = result.files.reduce(0) { $0 + $1.data.count }
        let snapshots = result.files.filter { $0.name.hasSuffix(".schema.json") }
        let empty = snapshots.filter {
            !String(decoding: $0.data, as: UTF8.self).contains("\"type\"")
                && !String(decoding: $0.data, as: UTF8.self).contains("\"$ref\"")
        }
        let cuts = result.notes.filter { $0.message.contains("cut") }.count
        print("read (parse, OpenAPIKit check, schemas converted): \(read); \(spec.operations.count) operations")
        print(
            String(
                format:
                    "import files: %d files (%d snapshots, %d that know nothing), %.1f MB, %d approximations, %d cuts; total %@",
                result.files.count, snapshots.count, empty.count, Double(bytes) / 1e6, result.notes.count, cuts,
                "\(total)"))
        let importMemory = peakResidentMiB()
        print(String(format: "peak memory after the import: %.0f MiB", importMemory))
        var diffTime: Duration = .zero
        if let oldPath {
            let old = try OpenAPISpec(contentsOf: URL(fileURLWithPath: oldPath))
            let diffStart = clock.now
            let diff = SpecDiff(from: old, to: spec)
            diffTime = clock.now - diffStart
            let lines = diff.componentChanges.count + diff.changes.count { $0.component == nil }
            print(
                "diff from \(oldPath) (its read aside): \(diffTime); \(diff.changes.count) per-operation changes, \(lines) lines on the console"
            )
        }
        print(String(format: "peak memory after the diff too: %.0f MiB", peakResidentMiB()))
        if let baseline = path("--baseline"), let specPath {
            compareWithBaseline(
                baseline, binary: path("--binary") ?? ".build/release/apiprobe", spec: specPath, old: oldPath)
        }
        let met =
            total < .seconds(specPath == nil ? 5 : 2) && importMemory < (specPath == nil ? 500 : 200)
            && diffTime < .seconds(1) && empty.isEmpty && cuts == 0
        print(
            met
                ? "targets met"
                : "targets NOT met (import under 2 s and 200 MiB for a real spec, 5 s and 500 MiB generated; diff under 1 s; no snapshot that knows nothing, no cut)"
        )
        exit(met ? 0 : 1)
    } catch {
        print("error: \(error)")
        exit(3)
    }
}
thread.stackSize = 256 << 20
thread.start()
while true { sleep(60) }
