import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `apiprobe schema diff` given fixture files compares their response bodies, not the files (whose envelope of
/// request, response and metadata is no part of the API's answer).
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct SchemaDiffFixtureTests {
    @Test func aFixtureIsReadAsItsResponseBody() async throws {
        let folder = try TemporaryFolder.make()
        func fixture(_ name: String, body: String, status: Int = 200, recordedAt: String) throws {
            let exchange = Exchange(
                method: "GET", url: "https://api.example.com/stores/1", status: status,
                responseHeaders: ["Content-Type": "application/json"], responseBody: Data(body.utf8),
                source: "record", recordedAt: recordedAt)
            try exchange.encoded().write(to: folder.appendingPathComponent(name))
        }
        try fixture("old.json", body: #"{"id": "ST1", "name": "Main"}"#, recordedAt: "2026-01-01T00:00:00Z")
        try fixture("new.json", body: #"{"id": 7}"#, recordedAt: "2026-02-01T00:00:00Z")
        let result = try await CommandLineRunner.run(["schema", "diff", "old.json", "new.json"], in: folder)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.standardOutput == """
                breaking /id type-changed: string → integer
                breaking /name removed: was string
                2 breaking, 0 warnings, 0 info

                """, "\(result)")

        // A snapshot against a fixture, and a fixture with no JSON body, which is said, not compared.
        try Data(#"{"id": "ST1", "name": "Main"}"#.utf8).write(to: folder.appendingPathComponent("sample.json"))
        let same = try await CommandLineRunner.run(["schema", "diff", "sample.json", "old.json"], in: folder)
        #expect(same.status == 0 && same.standardOutput == "No changes.\n", "\(same)")
        try fixture("empty.json", body: "", status: 204, recordedAt: "2026-01-01T00:00:00Z")
        let empty = try await CommandLineRunner.run(["schema", "diff", "old.json", "empty.json"], in: folder)
        #expect(empty.status == 2, "\(empty)")
        #expect(
            empty.standardError.contains(
                "empty.json: /response/body: expected a JSON response body to compare, found a fixture (status 204) without one"
            ), "\(empty)")
    }
}
