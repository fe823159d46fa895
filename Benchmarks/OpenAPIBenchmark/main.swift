// OpenAPIBenchmark: reading and importing a large OpenAPI description, as `apiprobe openapi import` does.
//
//   swift run -c release OpenAPIBenchmark [--operations 8000] [--schemas 3000]
//   swift run -c release OpenAPIBenchmark --spec spec3.json [--old spec3-old.json]
//
// With --spec, a real description is read instead (and, with --old, the diff from an older version is timed).
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

let thread = Thread {
    let clock = ContinuousClock()
    let start = clock.now
    do {
        let spec = try OpenAPISpec(data: data, file: fileName)
        let read = clock.now - start
        let result = SpecImport(spec)
        let total = clock.now - start
        let bytes = result.files.reduce(0) { $0 + $1.data.count }
        print("read (parse, OpenAPIKit check, schemas converted): \(read); \(spec.operations.count) operations")
        print(
            String(
                format: "import files: %d files, %.1f MB, total %@", result.files.count, Double(bytes) / 1e6,
                "\(total)"))
        if let oldPath {
            let diffStart = clock.now
            let old = try OpenAPISpec(contentsOf: URL(fileURLWithPath: oldPath))
            let diff = SpecDiff(from: old, to: spec)
            print(
                "diff from \(oldPath) (its read included): \(clock.now - diffStart); \(diff.changes.count) changes, breaking: \(diff.hasBreakingChanges)"
            )
        }
        print(String(format: "peak memory: %.0f MiB (targets: under 5 s, under 500 MiB)", peakResidentMiB()))
        exit(total < .seconds(5) && peakResidentMiB() < 500 ? 0 : 1)
    } catch {
        print("error: \(error)")
        exit(3)
    }
}
thread.stackSize = 256 << 20
thread.start()
while true { sleep(60) }
