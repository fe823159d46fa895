import Foundation
import HTTPFixtures
import JSONShape
import Testing

struct DiffTests {
    private func diff(_ old: String, _ new: String, usage: UsageManifest? = nil) throws -> [SchemaChange] {
        SchemaDiff(from: try infer(old), to: try infer(new), usage: usage).changes
    }

    private func only(_ changes: [SchemaChange]) throws -> SchemaChange {
        #expect(changes.count == 1, "\(changes)")
        return try #require(changes.first)
    }

    @Test func identicalSchemasHaveNoChanges() throws {
        #expect(try diff(#"{"a": [1], "b": {"c": "x"}}"#, #"{"a": [2], "b": {"c": "y"}}"#).isEmpty)
    }

    @Test func addedFieldIsInfo() throws {
        let change = try only(try diff(#"{"a": 1}"#, #"{"a": 1, "b": "x"}"#))
        #expect(change == SchemaChange(path: "/b", kind: .added, severity: .info, before: nil, after: "string"))
    }

    @Test func removedFieldIsBreaking() throws {
        let change = try only(try diff(#"{"a": 1, "b": "x"}"#, #"{"a": 1}"#))
        #expect(change == SchemaChange(path: "/b", kind: .removed, severity: .breaking, before: "string", after: nil))
    }

    @Test func typeChangeIsBreaking() throws {
        let change = try only(try diff(#"{"r": [{"rank": 1.5}]}"#, #"{"r": [{"rank": "1.5"}]}"#))
        #expect(
            change
                == SchemaChange(
                    path: "/r/*/rank",
                    kind: .typeChanged,
                    severity: .breaking,
                    before: "number",
                    after: "string"
                )
        )
    }

    @Test func aFieldSeenOnlyAsNullThatGainsATypeIsAWarning() throws {
        // GitHub's `assignee`, `closed_at`: a model that decoded `null` declares the field optional already.
        let learned = try only(
            SchemaDiff(
                from: try inferAll([#"{"assignee": null}"#]),
                to: try inferAll([#"{"assignee": null}"#, #"{"assignee": {"login": "octocat"}}"#])
            ).changes)
        #expect(
            learned
                == SchemaChange(
                    path: "/assignee", kind: .typeChanged, severity: .warning, before: "null", after: "object|null"))
        // The other way round (a value that is now only ever null) still breaks a client.
        let lost = try only(try diff(#"{"a": {"b": 1}}"#, #"{"a": null}"#))
        #expect(lost.severity == .breaking)
    }

    @Test func itemsFirstSeenInAnAlwaysEmptyArrayAreInfo() throws {
        let change = try only(try diff(#"{"labels": []}"#, #"{"labels": [{"name": "bug"}]}"#))
        #expect(
            change == SchemaChange(path: "/labels/*", kind: .added, severity: .info, before: nil, after: "object"))
    }

    @Test func integerBecomingNumberIsBreakingButNumberBecomingIntegerIsNot() throws {
        #expect(try only(try diff(#"{"n": 1}"#, #"{"n": 1.5}"#)).severity == .breaking)
        let narrowed = try only(try diff(#"{"n": 1.5}"#, #"{"n": 1}"#))
        #expect(narrowed.kind == .typeChanged)
        #expect(narrowed.severity == .info)
    }

    @Test func arrayBecomingObjectIsBreakingAndReportedOnce() throws {
        let change = try only(try diff(#"{"a": [{"b": 1}]}"#, #"{"a": {"b": 1}}"#))
        #expect(
            change
                == SchemaChange(path: "/a", kind: .typeChanged, severity: .breaking, before: "array", after: "object")
        )
    }

    @Test func changeIsReportedAtTheHighestPathOnly() throws {
        let change = try only(try diff(#"{"a": {"b": 1, "c": {"d": 2}}}"#, #"{"a": "gone"}"#))
        #expect(change.path == "/a")
        #expect(change.kind == .typeChanged)
    }

    @Test func becomingNullableIsBreaking() throws {
        let nullable = try only(
            SchemaDiff(from: try inferAll([#"{"a": "x"}"#]), to: try inferAll([#"{"a": "x"}"#, #"{"a": null}"#]))
                .changes
        )
        #expect(
            nullable
                == SchemaChange(
                    path: "/a",
                    kind: .becameNullable,
                    severity: .breaking,
                    before: "string",
                    after: "string|null"
                )
        )
    }

    @Test func becomingNonNullableIsInfo() throws {
        let change = try only(
            SchemaDiff(from: try inferAll([#"{"a": "x"}"#, #"{"a": null}"#]), to: try inferAll([#"{"a": "x"}"#]))
                .changes
        )
        #expect(
            change
                == SchemaChange(
                    path: "/a",
                    kind: .becameNonNullable,
                    severity: .info,
                    before: "string|null",
                    after: "string"
                )
        )
    }

    @Test func becomingOptionalIsBreakingAndBecomingRequiredIsInfo() throws {
        let always = try inferAll([#"{"a": 1}"#, #"{"a": 2}"#])
        let sometimes = try inferAll([#"{"a": 1}"#, #"{}"#])
        #expect(
            try only(SchemaDiff(from: always, to: sometimes).changes)
                == SchemaChange(
                    path: "/a",
                    kind: .becameOptional,
                    severity: .breaking,
                    before: "integer",
                    after: "integer"
                )
        )
        #expect(
            try only(SchemaDiff(from: sometimes, to: always).changes)
                == SchemaChange(
                    path: "/a",
                    kind: .becameRequired,
                    severity: .info,
                    before: "integer",
                    after: "integer"
                )
        )
    }

    @Test func formatChangeIsAWarning() throws {
        let change = try only(try diff(#"{"d": "2026-11-22T18:00:00Z"}"#, #"{"d": "2026-11-22"}"#))
        #expect(
            change
                == SchemaChange(
                    path: "/d",
                    kind: .formatChanged,
                    severity: .warning,
                    before: "date-time",
                    after: "date"
                )
        )
        let lost = try only(try diff(#"{"d": "2026-11-22"}"#, #"{"d": "soon"}"#))
        #expect(lost == SchemaChange(path: "/d", kind: .formatChanged, severity: .warning, before: "date", after: nil))
    }

    @Test func enumChangeIsAWarning() throws {
        let old = try infer(#"["open", "closed"]"#, enums: true)
        let new = try infer(#"["open", "closed", "archived"]"#, enums: true)
        let change = try only(SchemaDiff(from: old, to: new).changes)
        #expect(
            change
                == SchemaChange(
                    path: "/*",
                    kind: .enumChanged,
                    severity: .warning,
                    before: "closed|open",
                    after: "archived|closed|open"
                )
        )
    }

    @Test func mapValuesAreComparedUnderStar() throws {
        let change = try only(try diff(#"{"m": {"1": {"n": 1}}}"#, #"{"m": {"2": {"n": "x"}}}"#))
        #expect(change.path == "/m/*/n")
        #expect(change.kind == .typeChanged)
    }

    @Test func changesAreOrderedBySeverityThenPath() throws {
        let changes = try diff(
            #"{"z": 1, "d": "2026-11-22", "y": 1, "a": 1}"#,
            #"{"z": "1", "d": "x", "b": 1, "a": "1", "c": 2}"#
        )
        #expect(changes.map(\.path) == ["/a", "/y", "/z", "/d", "/b", "/c"])
        #expect(changes.map(\.severity) == [.breaking, .breaking, .breaking, .warning, .info, .info])
    }

    @Test func keysWithSlashesAreEscapedInPaths() throws {
        let change = try only(try diff(#"{"a": 1}"#, #"{"a": 1, "x/y~z": 1}"#))
        #expect(change.path == "/x~1y~0z")
    }

    @Test func usageManifestDemotesChangesNoModelReads() throws {
        let usage = UsageManifest(paths: ["/recipes/*/title", "/count"])
        let changes = try diff(
            #"{"count": 1, "recipes": [{"title": "a", "rank": 1.5, "extra": 1}]}"#,
            #"{"count": "1", "recipes": [{"title": "a", "rank": "1.5"}]}"#,
            usage: usage
        )
        #expect(changes.map(\.path) == ["/count", "/recipes/*/extra", "/recipes/*/rank"])
        #expect(changes.map(\.severity) == [.breaking, .info, .info])
    }

    @Test func jsonReportHasTheDesignedFields() throws {
        let diff = SchemaDiff(from: try infer(#"{"r": [{"s": 1.5}]}"#), to: try infer(#"{"r": [{"s": "x"}], "n": 1}"#))
        let text = String(decoding: diff.jsonReport(), as: UTF8.self)
        #expect(
            text == """
                {
                  "breaking": 1,
                  "changes": [
                    {
                      "after": "string",
                      "before": "number",
                      "kind": "type-changed",
                      "path": "/r/*/s",
                      "severity": "breaking"
                    },
                    {
                      "after": "integer",
                      "before": null,
                      "kind": "added",
                      "path": "/n",
                      "severity": "info"
                    }
                  ],
                  "info": 1,
                  "warnings": 0
                }

                """
        )
        let object = try JSONSerialization.jsonObject(with: diff.jsonReport()) as? [String: Any]
        #expect(object?["breaking"] as? Int == 1)
    }

    @Test func conformanceReportsOnlyWhatTheSampleBreaks() throws {
        let schema = try inferAll([
            #"{"id": 1, "note": "x", "d": "2026-11-22"}"#, #"{"id": 2, "d": "2026-11-23", "n": null}"#,
        ])
        #expect(
            SchemaDiff(conformanceOf: try infer(#"{"id": 3, "d": "2026-01-01", "new": true}"#), to: schema).changes
                .isEmpty
        )
        let problems = SchemaDiff(conformanceOf: try infer(#"{"id": "3", "n": 1}"#), to: schema).changes
        #expect(problems.map(\.kind) == [.removed, .typeChanged, .typeChanged])
        #expect(problems.map(\.path) == ["/d", "/id", "/n"])
    }

    @Test func aDiffOfTenThousandPropertiesFindsTheOneChange() throws {
        var old = ShapeNode(types: .object)
        for index in 0..<10_000 {
            old.properties["p\(index)"] = ShapeNode(types: .string)
            old.required.insert("p\(index)")
        }
        var new = old
        new.properties["p5"] = ShapeNode(types: .integer)
        // Its speed is the release benchmark's to measure (ShapeBenchmark: 10,000 properties in under 50 ms).
        let changes = SchemaDiff(from: old, to: new).changes
        #expect(changes.count == 1)
    }
}

struct ConformanceTests {
    @Test func bodyThatFitsTheSnapshotHasNoProblems() throws {
        let snapshot = SchemaSnapshot(
            shape: try inferAll([#"{"s": "open", "n": 1}"#, #"{"s": "closed"}"#], enums: true),
            sampleCount: 2
        )
        #expect(try snapshot.conformance(of: Data(#"{"s": "open", "extra": [1]}"#.utf8)).changes.isEmpty)
    }

    @Test func bodyWithAnUnknownEnumValueOrWrongTypeIsReported() throws {
        let snapshot = SchemaSnapshot(
            shape: try inferAll([#"{"s": "open", "n": 1}"#, #"{"s": "closed"}"#], enums: true),
            sampleCount: 2
        )
        let problems = try snapshot.conformance(of: Data(#"{"s": "archived", "n": 1.5}"#.utf8))
        #expect(problems.changes.map(\.kind) == [.typeChanged, .enumChanged])
        #expect(problems.changes.map(\.path) == ["/n", "/s"])
        #expect(throws: InputError.self) { try snapshot.conformance(of: Data("{".utf8)) }
    }
}
