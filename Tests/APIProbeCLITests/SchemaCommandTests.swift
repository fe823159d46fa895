import APIProbeTestSupport
import Foundation
import Testing

@Suite(.tags(.commandLine), .temporaryFolder)
struct SchemaCommandTests {
    private func folder(_ files: [String: String]) throws -> URL {
        let directory = try TemporaryFolder.make("schema-cli")
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return directory
    }

    @Test func inferPrintsTheSnapshotOfAllSamples() async throws {
        let directory = try folder([
            "a.json": #"{"id": 12345678901234567890, "when": "2026-11-22"}"#,
            "b.jsonl": "{\"id\": 2}\n\n{\"id\": 3, \"when\": null}\n",
        ])
        let result = try await CommandLineRunner.run(["schema", "infer", "a.json", "b.jsonl"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasSuffix("}\n"))
        #expect(result.standardOutput.contains(#""samples": 3"#))
        #expect(result.standardOutput.contains(#""required": [\#n    "id"\#n  ]"#))
        #expect(result.standardOutput.contains(#""format": "date""#))
        #expect(result.standardOutput.contains(#""type": "integer""#))
    }

    /// A folder stands for every sample below it (thousands of files without thousands of arguments), the same
    /// snapshot as the files named one by one; a folder without samples is bad input, not an empty schema.
    @Test func inferOverAFolderIsInferenceOverItsSamples() async throws {
        let directory = try folder([
            "a.json": #"{"id": 1, "name": "x"}"#, "b.jsonl": "{\"id\": 2}\n", "notes.txt": "not a sample",
        ])
        let nested = directory.appendingPathComponent("more")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data(#"{"id": 3, "name": null}"#.utf8).write(to: nested.appendingPathComponent("c.json"))
        let named = try await CommandLineRunner.run(
            ["schema", "infer", "a.json", "b.jsonl", "more/c.json"], in: directory)
        let whole = try await CommandLineRunner.run(["schema", "infer", "."], in: directory)
        #expect(whole.status == 0, "\(whole)")
        #expect(whole.standardOutput == named.standardOutput)
        #expect(whole.standardOutput.contains(#""samples": 3"#))

        let empty = directory.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try await CommandLineRunner.run(["schema", "infer", "empty"], in: directory)
        #expect(none.status == 2, "\(none)")
        #expect(
            none.standardError.contains("empty: expected a folder of JSON samples (.json, .jsonl, .ndjson), found none")
        )
    }

    @Test func inferOnInvalidJSONNamesFileLineAndColumn() async throws {
        let directory = try folder(["bad.json": "{\n  \"a\": [1, 2,]\n}"])
        let result = try await CommandLineRunner.run(["schema", "infer", "bad.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("bad.json:2:14: expected a JSON value, found ']'"), "\(result)")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func inferOnBadJSONLinesNamesTheLine() async throws {
        let directory = try folder(["bad.ndjson": "{\"a\": 1}\n{\"a\": }\n"])
        let result = try await CommandLineRunner.run(["schema", "infer", "bad.ndjson"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("bad.ndjson:2:7: expected a JSON value, found '}'"), "\(result)")
    }

    @Test func inferOnMissingFileIsBadInput() async throws {
        let result = try await CommandLineRunner.run(["schema", "infer", "/nonexistent/none.json"])
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("/nonexistent/none.json: expected a readable file, found no such file"))
    }

    @Test func inferOnDeepNestingIsBadInputNotACrash() async throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let directory = try folder(["deep.json": deep])
        let result = try await CommandLineRunner.run(["schema", "infer", "deep.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("deep.json:1:513: expected at most 512 levels"))
    }

    @Test func diffOfSamplesPrintsOneLineAChangeAndExitsOneOnBreaking() async throws {
        let directory = try folder([
            "old.json": #"{"recipes": [{"social_rank": 99.5, "title": "a"}]}"#,
            "new.json": #"{"recipes": [{"social_rank": "99.5", "title": "a", "rank": 1}]}"#,
        ])
        let result = try await CommandLineRunner.run(["schema", "diff", "old.json", "new.json"], in: directory)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardOutput == """
                breaking /recipes/*/social_rank type-changed: number → string
                info     /recipes/*/rank added: integer
                1 breaking, 0 warnings, 1 info

                """
        )
    }

    @Test func diffJSONOutputIsTheDesignedReport() async throws {
        let directory = try folder([
            "old.json": #"{"recipes": [{"social_rank": 99.5}]}"#,
            "new.json": #"{"recipes": [{"social_rank": "99.5"}]}"#,
        ])
        let result = try await CommandLineRunner.run(
            ["schema", "diff", "old.json", "new.json", "--format", "json"],
            in: directory
        )
        #expect(result.status == 1, "\(result)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        )
        #expect(report["breaking"] as? Int == 1)
        #expect(report["warnings"] as? Int == 0)
        #expect(report["info"] as? Int == 0)
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["path"] as? String == "/recipes/*/social_rank")
        #expect(changes.first?["kind"] as? String == "type-changed")
        #expect(changes.first?["severity"] as? String == "breaking")
        #expect(changes.first?["before"] as? String == "number")
        #expect(changes.first?["after"] as? String == "string")
    }

    @Test func diffReadsSnapshotsByNameAndExitsZeroWithoutBreaking() async throws {
        let directory = try folder(["old.json": #"{"a": 1}"#, "new.json": #"{"a": 1, "b": true}"#])
        let inferred = try await CommandLineRunner.run(["schema", "infer", "old.json"], in: directory)
        try Data(inferred.standardOutput.utf8).write(to: directory.appendingPathComponent("old.schema.json"))
        let result = try await CommandLineRunner.run(["schema", "diff", "old.schema.json", "new.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasPrefix("info     /b added: boolean\n"))
        let same = try await CommandLineRunner.run(["schema", "diff", "old.schema.json", "old.json"], in: directory)
        #expect(same.status == 0)
        #expect(same.standardOutput == "No changes.\n")
    }

    @Test func diffWithUsageManifestRanksUnreadPathsAsInfo() async throws {
        let directory = try folder([
            "old.json": #"{"count": 1, "recipes": [{"title": "a", "social_rank": 1.5}]}"#,
            "new.json": #"{"count": 1, "recipes": [{"title": "a", "social_rank": "1.5"}]}"#,
            "usage.json": #"{"apiprobeVersion": "0.1.0", "paths": ["/count", "/recipes", "/recipes/*/title"]}"#,
        ])
        let result = try await CommandLineRunner.run(
            ["schema", "diff", "old.json", "new.json", "--usage", "usage.json"],
            in: directory
        )
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.hasPrefix("info     /recipes/*/social_rank type-changed: number → string\n"))
    }

    @Test func diffOnBadSnapshotNamesThePointer() async throws {
        let directory = try folder([
            "old.schema.json": #"{"type": "object", "properties": {"a": {"type": "int"}}}"#, "new.json": "{}",
        ])
        let result = try await CommandLineRunner.run(["schema", "diff", "old.schema.json", "new.json"], in: directory)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError.contains(
                #"old.schema.json: /properties/a/type: expected a JSON type name, found string "int""#
            )
        )
    }

    @Test func diffWithUnknownFormatIsBadUsage() async throws {
        let result = try await CommandLineRunner.run(["schema", "diff", "a.json", "b.json", "--format", "xml"])
        #expect(result.status == 2, "\(result)")
    }
}

/// A snapshot that accepts any value (an import's snapshot once written empty, `{}`) is never compared as
/// "No changes": the diff says that one side knows nothing.
@Suite(.tags(.commandLine), .temporaryFolder)
struct SchemaDiffAgainstNothingTests {
    @Test(arguments: [("full.schema.json", "empty.schema.json"), ("empty.schema.json", "full.schema.json")])
    func aDiffWithASnapshotThatKnowsNothingSaysSo(old: String, new: String) async throws {
        let directory = try TemporaryFolder.make("schema-nothing")
        try Data(#"{"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}"#.utf8)
            .write(to: directory.appendingPathComponent("full.schema.json"))
        try Data(#"{"x-apiprobe": {"samples": 0}}"#.utf8).write(
            to: directory.appendingPathComponent("empty.schema.json"))
        let result = try await CommandLineRunner.run(["schema", "diff", old, new], in: directory)
        #expect(!result.standardOutput.contains("No changes"), "\(result)")
        let any = old == "empty.schema.json" ? "any value → object" : "object → any value"
        #expect(result.standardOutput.contains("warning  / unconstrained: \(any)"), "\(result)")
        #expect(result.standardOutput.contains("0 breaking, 1 warning, 0 info"), "\(result)")
    }
}
