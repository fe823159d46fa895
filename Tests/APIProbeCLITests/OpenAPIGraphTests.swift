import APIProbeTestSupport
import Foundation
import Testing

/// A description shaped like the large real ones (Stripe's): every component reaches every other through
/// expandable fields (`anyOf: [string, $ref]`) and lists, so unrolling references per operation never ends.
/// Import, `--strict`, and a diff that reports a change to one component once, with the operations it reaches.
@Suite(.tags(.commandLine, .outsideTools), .temporaryFolder)
struct OpenAPIGraphTests {
    static let components = 40

    /// The description; `without` removes `field_3` from that component.
    static func description(without removed: Int? = nil) -> String {
        var paths: [String] = []
        for index in 0..<components {
            paths.append(
                ##""/things\##(index)": {"get": {"operationId": "getThing\##(index)", "responses": {"200": {"description": "ok", "##
                    + ##""content": {"application/json": {"schema": {"$ref": "#/components/schemas/S\##(index)"}}}}}}}"##
            )
        }
        var schemas: [String] = []
        for index in 0..<components {
            var properties = [##""id": {"type": "string", "maxLength": 64}"##]
            for field in 0..<4 where !(index == removed && field == 3) {
                properties.append(##""field_\##(field)": {"type": "integer"}"##)
            }
            for link in 0..<3 {
                let target = (index * 7 + link * 13 + 1) % components
                properties.append(
                    ##""parent_\##(link)": {"anyOf": [{"type": "string", "maxLength": 5000}, {"$ref": "#/components/schemas/S\##(target)"}]}"##
                )
            }
            properties.append(
                ##""children": {"type": "array", "items": {"$ref": "#/components/schemas/S\##((index + 1) % components)"}}"##
            )
            schemas.append(
                ##""S\##(index)": {"type": "object", "required": ["id"], "properties": {\##(properties.joined(separator: ", "))}}"##
            )
        }
        return ##"{"openapi": "3.0.3", "info": {"title": "graph", "version": "1"}, "paths": {"##
            + paths.joined(separator: ", ") + ##"}, "components": {"schemas": {"## + schemas.joined(separator: ", ")
            + "}}}"
    }

    @Test func aGraphOfReferencesImportsWholeAndStrictRefusesApproximations() async throws {
        let directory = try TemporaryFolder.make("openapi-graph")
        try Data(Self.description().utf8).write(to: directory.appendingPathComponent("graph.json"))

        let strict = try await CommandLineRunner.run(["openapi", "import", "graph.json", "--strict"], in: directory)
        #expect(strict.status == 2, "\(strict)")
        #expect(
            strict.standardError.contains(
                "graph.json: /components/schemas/S0/properties/id: expected a description every snapshot can say exactly (--strict), found 280 approximations; nothing written"
            ), "\(strict)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Snapshots").path))

        let result = try await CommandLineRunner.run(["openapi", "import", "graph.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.standardOutput.hasSuffix("40 operations, 40 snapshots, 280 approximations: see operations.json\n"),
            "\(result)")
        let folder = directory.appendingPathComponent("Snapshots/graph")
        let operations = try String(contentsOf: folder.appendingPathComponent("operations.json"), encoding: .utf8)
        #expect(!operations.contains("cut"))
        // Every snapshot says something: a reference to its component, whose definition is in components.json.
        for index in 0..<Self.components {
            let text = try String(
                contentsOf: folder.appendingPathComponent("getThing\(index).schema.json"), encoding: .utf8)
            #expect(text.contains(##""$ref": "components.json#/$defs/S\##(index)""##), "\(text)")
        }
        let components = try String(contentsOf: folder.appendingPathComponent("components.json"), encoding: .utf8)
        #expect(components.contains(##""S7|string": {"##))
        #expect(components.contains(##""$ref": "#/$defs/S7|string""##))
    }

    @Test func aChangeToOneComponentIsReportedOnceWithEveryOperationItReaches() async throws {
        let directory = try TemporaryFolder.make("openapi-graph-diff")
        try Data(Self.description().utf8).write(to: directory.appendingPathComponent("old.json"))
        try Data(Self.description(without: 7).utf8).write(to: directory.appendingPathComponent("new.json"))
        let result = try await CommandLineRunner.run(["openapi", "diff", "old.json", "new.json"], in: directory)
        // An optional property removed from a response: a warning, as oasdiff's response-optional-property-removed.
        #expect(result.status == 0, "\(result)")
        // Every component reaches every other (S(i) lists S(i+1)), so all 40 operations reach S7: each reaches it
        // as a component and as an expandable field (`S7|string`), two entries per operation in the JSON report.
        #expect(
            result.standardOutput == """
                Changes to shared schemas (1):
                warning  components/schemas/S7: /field_3 removed: was integer — 40 operations, e.g. GET /things0 response 200
                0 breaking, 80 warnings, 0 info (80 of them through 1 change to shared schemas)

                """, "\(result)")

        let json = try await CommandLineRunner.run(
            ["openapi", "diff", "old.json", "new.json", "--format", "json"], in: directory)
        let report = try #require(
            JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.count == 80)
        #expect(Set(changes.compactMap { $0["operation"] as? String }).count == 40)
        #expect(changes.allSatisfy { $0["component"] as? String == "components/schemas/S7" })
        #expect(changes.allSatisfy { $0["pathInComponent"] as? String == "/field_3" })
    }

    /// The snapshots and their `components.json` are standard JSON Schema 2020-12: PyPI's `jsonschema`, following
    /// the references across the two files (`Fixtures/validate_snapshot.py`), judges three bodies as `snapshot
    /// check` does, down to the place of the first fault three references deep.
    @Test func theSnapshotsAgreeWithJSONSchemaThroughTheirReferences() async throws {
        guard let python = RealCollectionTests.python else {
            TestEnvironment.recordMissing(
                "the tests' Python (.build/venv-openapi, with jsonschema) is missing: run .ci/run")
            return
        }
        let directory = try TemporaryFolder.make("openapi-graph-oracle")
        try Data(Self.description().utf8).write(to: directory.appendingPathComponent("graph.json"))
        let imported = try await CommandLineRunner.run(["openapi", "import", "graph.json"], in: directory)
        #expect(imported.status == 0, "\(imported)")
        let bodies = [
            (
                "good",
                ##"{"id": "a", "field_0": 1, "children": [{"id": "b", "parent_0": {"id": "c", "field_3": 4}}], "parent_1": "x"}"##
            ),
            ("retyped", ##"{"id": "a", "children": [{"id": "b", "parent_0": {"id": "c", "field_3": "oops"}}]}"##),
            (
                "missing",
                ##"{"id": "a", "children": [{"id": "b", "parent_2": {"id": "c", "children": [{"field_1": 2}]}}]}"##
            ),
        ]
        let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/validate_snapshot.py")
        var verdicts: [String: String] = [:]
        for (name, body) in bodies {
            try Data(body.utf8).write(to: directory.appendingPathComponent("\(name).json"))
            // Waited for off Swift's cooperative pool, as every outside program the tests start.
            let run = try await CommandLineRunner.runProcess(
                python,
                [
                    oracle.path, directory.appendingPathComponent("Snapshots/graph/getThing0.schema.json").path,
                    directory.appendingPathComponent("\(name).json").path,
                ])
            let output = run.standardOutput
            #expect(run.status == 0, "\(output)")
            verdicts[name] = output.components(separatedBy: ": ").last?.trimmingCharacters(in: .whitespacesAndNewlines)

            // apiprobe: the same body as the endpoint's one fixture, checked against the same snapshot.
            let stubs = directory.appendingPathComponent("Stubs/graph")
            try? FileManager.default.removeItem(at: stubs)
            try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
            let fixture =
                ##"{"request": {"method": "GET", "url": "https://api.example.com/things0"}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": "##
                + body + "}}"
            try Data(fixture.utf8).write(to: stubs.appendingPathComponent("getThing0.json"))
            let check = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
            switch name {
            case "good":
                #expect(check.status == 0, "\(check)")
            case "retyped":
                #expect(check.status == 1, "\(check)")
                #expect(
                    check.standardOutput.contains("/children/*/parent_0/field_3 type-changed: integer → string"),
                    "\(check)")
            default:
                #expect(check.status == 1, "\(check)")
                #expect(check.standardOutput.contains("/children/*/parent_2/children/*/id removed"), "\(check)")
            }
        }
        #expect(
            verdicts == [
                "good": "valid", "retyped": "invalid at /children/0/parent_0/field_3",
                "missing": "invalid at /children/0/parent_2/children/0",
            ])
    }
}
