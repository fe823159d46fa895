import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@Suite(.tags(.commandLine), .temporaryFolder)
struct SnapshotCommandTests {
    /// A workspace with `Stubs/recipes/` fixtures.
    private func workspace(_ fixtures: [String: (Int, FixtureBody?)]) throws -> URL {
        let directory = try TemporaryFolder.make("snapshot-cli")
        for (name, (status, body)) in fixtures {
            let exchange = Exchange(
                request: RecordedRequest(url: "http://127.0.0.1/\(name)"),
                response: RecordedResponse(status: status, body: body)
            )
            try exchange.write(to: directory.appendingPathComponent("Stubs/recipes/\(name).json"))
        }
        return directory
    }

    private func json(_ text: String) throws -> FixtureBody {
        .json(try JSONValue(parsing: Data(text.utf8)))
    }

    @Test func updateWritesSnapshotsThenCheckPasses() async throws {
        let directory = try workspace([
            "search": (200, try json(#"{"count": 1, "recipes": [{"title": "a", "social_rank": 1.5}]}"#)),
            "search.page2": (200, try json(#"{"count": 2, "recipes": [{"title": "b", "social_rank": 2}]}"#)),
            "search.missing": (404, try json(#"{"error": "none"}"#)),
            "ping": (200, .text("pong")),
        ])

        let dryRun = try await CommandLineRunner.run(["snapshot", "update", "--dry-run"], in: directory)
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect(dryRun.standardOutput.contains("would create Snapshots/recipes/search.schema.json"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("Snapshots").path))

        let update = try await CommandLineRunner.run(["snapshot", "update"], in: directory)
        #expect(update.status == 0, "\(update)")
        #expect(update.standardOutput.contains("created Snapshots/recipes/search.schema.json"))
        // What was skipped is said on standard error and counted in the last line; the output is the snapshots.
        #expect(update.standardError.contains("skipped Stubs/recipes/search.missing.json: status 404"))
        #expect(update.standardError.contains("skipped Stubs/recipes/ping.json: no JSON body"))
        #expect(!update.standardOutput.contains("skipped "))
        #expect(update.standardOutput.hasSuffix("1 snapshot written, 3 skipped.\n"), "\(update)")
        let url = directory.appendingPathComponent("Snapshots/recipes/search.schema.json")
        let written = try Data(contentsOf: url)
        #expect(String(decoding: written, as: UTF8.self).contains(#""samples": 2"#))

        let again = try await CommandLineRunner.run(["snapshot", "update"], in: directory)
        #expect(again.standardOutput.contains("same    Snapshots/recipes/search.schema.json"))
        #expect(try Data(contentsOf: url) == written)

        let check = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(check.status == 0, "\(check)")
        #expect(check.standardOutput.contains("ok      Snapshots/recipes/search.schema.json (2 samples)"))
        #expect(check.standardOutput.hasSuffix("0 breaking, 0 warnings, 0 info, 3 skipped\n"), "\(check)")
        #expect(check.standardError.contains("skipped Stubs/recipes/ping.json: no JSON body"), "\(check)")
        #expect(!check.standardOutput.contains("skipped "))
    }

    @Test func checkReportsDriftWithFileAndExitsOne() async throws {
        let directory = try workspace(["search": (200, try json(#"{"recipes": [{"social_rank": 1.5}]}"#))])
        #expect(try await CommandLineRunner.run(["snapshot", "update"], in: directory).status == 0)
        let drifted = Exchange(
            request: RecordedRequest(url: "http://127.0.0.1/search"),
            response: RecordedResponse(status: 200, body: try json(#"{"recipes": [{"social_rank": "1.5"}]}"#))
        )
        try drifted.write(to: directory.appendingPathComponent("Stubs/recipes/search.json"))

        let text = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(text.status == 1, "\(text)")
        #expect(
            text.standardOutput.contains(
                "Snapshots/recipes/search.schema.json:\n  breaking /recipes/*/social_rank type-changed: number → string\n"
            )
        )

        let result = try await CommandLineRunner.run(["snapshot", "check", "--format", "json"], in: directory)
        #expect(result.status == 1, "\(result)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        )
        let changes = try #require(report["changes"] as? [[String: Any]])
        #expect(changes.first?["file"] as? String == "Snapshots/recipes/search.schema.json")
        #expect(changes.first?["kind"] as? String == "type-changed")
        #expect(report["breaking"] as? Int == 1)

        // A usage manifest where no model reads social_rank makes the drift information only.
        let usage = #"{"apiprobeVersion": "0.1.0", "paths": ["/recipes"]}"#
        try Data(usage.utf8).write(to: directory.appendingPathComponent("Snapshots/recipes/search.usage.json"))
        let demoted = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(demoted.status == 0, "\(demoted)")
        #expect(demoted.standardOutput.contains("  info     /recipes/*/social_rank type-changed: number → string\n"))

        let update = try await CommandLineRunner.run(["snapshot", "update"], in: directory)
        #expect(
            update.standardOutput.contains(
                "updated Snapshots/recipes/search.schema.json\n  breaking /recipes/*/social_rank type-changed: number → string\n"
            ),
            "\(update)"
        )
    }

    @Test func checkReportsMissingSnapshotsAndSnapshotsWithoutFixtures() async throws {
        let directory = try workspace(["search": (200, try json(#"{"a": 1}"#))])
        let orphan = directory.appendingPathComponent("Snapshots/recipes/gone.schema.json")
        try FileManager.default.createDirectory(
            at: orphan.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data("{}\n".utf8).write(to: orphan)
        let result = try await CommandLineRunner.run(["snapshot", "check", "--format", "json"], in: directory)
        #expect(result.status == 1, "\(result)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        )
        #expect(report["missing"] as? [String] == ["Snapshots/recipes/search.schema.json"])
        #expect(report["orphaned"] as? [String] == ["Snapshots/recipes/gone.schema.json"])
        let text = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(text.standardOutput.contains("missing Snapshots/recipes/search.schema.json"))
        #expect(text.standardOutput.contains("orphan  Snapshots/recipes/gone.schema.json: a snapshot without fixtures"))
    }

    @Test func badFixtureAndBadSnapshotAreBadInput() async throws {
        let directory = try workspace(["search": (200, try json(#"{"a": 1}"#))])
        let snapshot = directory.appendingPathComponent("Snapshots/recipes/search.schema.json")
        try FileManager.default.createDirectory(
            at: snapshot.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data(#"{"type": "object", "required": 3}"#.utf8).write(to: snapshot)
        let badSnapshot = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(badSnapshot.status == 2, "\(badSnapshot)")
        #expect(
            badSnapshot.standardError.contains(
                "Snapshots/recipes/search.schema.json: /required: expected an array of property names, found integer 3"
            )
        )

        try Data("{\n  \"request\": oops\n}".utf8).write(
            to: directory.appendingPathComponent("Stubs/recipes/search.json")
        )
        let badFixture = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(badFixture.status == 2, "\(badFixture)")
        #expect(badFixture.standardError.contains("Stubs/recipes/search.json:2:"), "\(badFixture)")

        let noStubs = try await CommandLineRunner.run(["snapshot", "check", "--stubs", "Nowhere"], in: directory)
        #expect(noStubs.status == 2, "\(noStubs)")
        #expect(noStubs.standardError.contains("Nowhere: expected a folder of fixtures, found no such folder"))
    }

    @Test func customFoldersAreHonoured() async throws {
        let directory = try workspace(["search": (200, try json(#"{"a": 1}"#))])
        let stubs = directory.appendingPathComponent("Stubs").path
        let update = try await CommandLineRunner.run(
            ["snapshot", "update", "--stubs", stubs, "--snapshots", "Schemas"],
            in: directory
        )
        #expect(update.status == 0, "\(update)")
        #expect(
            FileManager.default.fileExists(
                atPath: directory.appendingPathComponent("Schemas/recipes/search.schema.json").path
            )
        )
    }

    @Test func updateReplacesAnUnreadableSnapshot() async throws {
        let directory = try workspace(["search": (200, try json(#"{"a": 1}"#))])
        let snapshot = directory.appendingPathComponent("Snapshots/recipes/search.schema.json")
        try FileManager.default.createDirectory(
            at: snapshot.deletingLastPathComponent(),
            withIntermediateDirectories: true
        )
        try Data("{ not json".utf8).write(to: snapshot)
        let update = try await CommandLineRunner.run(["snapshot", "update"], in: directory)
        #expect(update.status == 0, "\(update)")
        #expect(update.standardOutput.contains("replaced unreadable Snapshots/recipes/search.schema.json"))
        #expect(try await CommandLineRunner.run(["snapshot", "check"], in: directory).status == 0)
    }

    /// A snapshot tightened by hand (pattern, minLength, maximum, multipleOf, uniqueItems, minItems,
    /// additionalProperties: false) and a fixture that breaks every one: seven named violations, exit 1; a
    /// misspelt keyword is counted, and --strict refuses it.
    @Test func everyKeywordAddedToASnapshotIsEnforced() async throws {
        let directory = try workspace([
            "get": (
                200,
                try json(
                    #"{"recipe": {"recipe_id": "35382", "title": "Easy Banana Bread with Walnuts and Honey", "social_rank": 45.5, "ingredients": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]}}"#
                )
            )
        ])
        #expect(try await CommandLineRunner.run(["snapshot", "update"], in: directory).status == 0)
        let snapshotURL = directory.appendingPathComponent("Snapshots/recipes/get.schema.json")
        var text = try String(contentsOf: snapshotURL, encoding: .utf8)
        let additions = [
            (#""recipe_id": {"#, #""recipe_id": {"pattern": "^[0-9]+$", "#),
            (#""title": {"#, #""title": {"minLength": 30, "maxLenght": 3, "#),
            (#""social_rank": {"#, #""social_rank": {"maximum": 50, "multipleOf": 0.5, "#),
            (#""ingredients": {"#, #""ingredients": {"uniqueItems": true, "minItems": 10, "#),
            (#""recipe": {"#, #""recipe": {"additionalProperties": false, "#),
        ]
        for (from, to) in additions {
            #expect(text.contains(from))
            text = text.replacingOccurrences(of: from, with: to)
        }
        try Data(text.utf8).write(to: snapshotURL)
        // Still valid as written: the check passes, the misspelt keyword counted.
        let holds = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(holds.status == 0, "\(holds)")
        #expect(holds.standardOutput.hasSuffix("0 breaking, 0 warnings, 0 info, 1 keyword ignored\n"), "\(holds)")

        let broken = Exchange(
            request: RecordedRequest(url: "http://127.0.0.1/get"),
            response: RecordedResponse(
                status: 200,
                body: try json(
                    #"{"recipe": {"recipe_id": "35382x", "title": "Bread", "social_rank": 55.05, "ingredients": ["salt", "salt"], "extra": 1}}"#
                )))
        try broken.write(to: directory.appendingPathComponent("Stubs/recipes/get.json"))
        let check = try await CommandLineRunner.run(["snapshot", "check"], in: directory)
        #expect(check.status == 1, "\(check)")
        let lines = check.standardOutput.split(separator: "\n").filter { $0.contains("violation ") }
        #expect(lines.count == 7, "\(check)")
        for (place, keyword) in [
            ("/recipe/recipe_id", "pattern"), ("/recipe/title", "minLength"), ("/recipe/social_rank", "maximum"),
            ("/recipe/social_rank", "multipleOf"), ("/recipe/ingredients", "uniqueItems"),
            ("/recipe/ingredients", "minItems"), ("/recipe/extra", "additionalProperties"),
        ] {
            #expect(
                lines.contains { $0.contains("Stubs/recipes/get.json: \(place): \(keyword): ") },
                "\(place) \(keyword): \(check)")
        }
        #expect(
            check.standardOutput.contains("7 violations of the snapshots as written, 1 keyword ignored"), "\(check)")

        let json = try await CommandLineRunner.run(["snapshot", "check", "--format", "json"], in: directory)
        #expect(json.status == 1, "\(json)")
        let report = try JSONValue(parsing: Data(json.standardOutput.utf8))
        guard case .array(let violations)? = report["violations"] else {
            Issue.record("no violations in \(json)")
            return
        }
        #expect(violations.count == 7)
        #expect(violations.allSatisfy { $0["fixture"] == .string("Stubs/recipes/get.json") })

        let strict = try await CommandLineRunner.run(["snapshot", "check", "--strict"], in: directory)
        #expect(strict.status == 2, "\(strict)")
        #expect(
            strict.standardError.contains(
                "Snapshots/recipes/get.schema.json: /properties/recipe/properties/title/maxLenght: expected only keywords"
            ),
            "\(strict)")
    }
}
