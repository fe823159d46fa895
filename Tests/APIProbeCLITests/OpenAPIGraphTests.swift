import APIProbeTestSupport
import Foundation
import Testing

/// A description shaped like the large real ones (Stripe's): every component reaches every other through
/// expandable fields (`anyOf: [string, $ref]`) and lists, so unrolling references per operation never ends.
/// Import, `--strict`, and a diff that reports a change to one component once, with the operations it reaches.
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
        let directory = try CommandLineRunner.makeTemporaryDirectory("openapi-graph")
        defer { try? FileManager.default.removeItem(at: directory) }
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
        let directory = try CommandLineRunner.makeTemporaryDirectory("openapi-graph-diff")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(Self.description().utf8).write(to: directory.appendingPathComponent("old.json"))
        try Data(Self.description(without: 7).utf8).write(to: directory.appendingPathComponent("new.json"))
        let result = try await CommandLineRunner.run(["openapi", "diff", "old.json", "new.json"], in: directory)
        #expect(result.status == 1, "\(result)")
        // Every component reaches every other (S(i) lists S(i+1)), so all 40 operations reach S7: each reaches it
        // as a component and as an expandable field (`S7|string`), two entries per operation in the JSON report.
        #expect(
            result.standardOutput == """
                Changes to shared schemas (1):
                breaking components/schemas/S7: /field_3 removed: was integer — 40 operations, e.g. GET /things0 response 200
                80 breaking, 0 warnings, 0 info (80 of them through 1 change to shared schemas)

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
}
