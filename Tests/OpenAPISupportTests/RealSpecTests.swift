import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

@testable import OpenAPISupport

/// Stripe's published descriptions (MIT), the large graph of references issue 20 was found on: the one of July
/// 2020 (355 operations, 337 component schemas whose expandable fields reach one another) and its older version of
/// October 2019. The import loses nothing, and the diff finds every response property removed between them, on
/// the right operation, as an independent walk of the two documents in Python (`Fixtures/removed_properties.py`)
/// finds them.
///
/// The files are public material this repository does not hold: they are read from `stripe/2019-10.json` and
/// `stripe/2020-07.json` in the folder named by `APIPROBE_REAL_COLLECTIONS`, or `shared/real-collections` beside
/// the checkout (Tests/APIProbeCLITests/Fixtures/RealCollections/README.md gives their commits). Without them, the
/// test is a known issue that says where to put them.
@Suite(.hangGuard)
struct RealSpecTests {
    static var folder: URL? {
        TestEnvironment.sharedFolder(
            "real-collections", variable: "APIPROBE_REAL_COLLECTIONS", probe: "stripe/2020-07.json")
    }

    static func specs() async throws -> (old: OpenAPISpec, new: OpenAPISpec)? {
        guard let folder else {
            withKnownIssue(
                "Stripe's descriptions are not here: put stripe/2019-10.json and stripe/2020-07.json in shared/real-collections beside the checkout, or name their folder in APIPROBE_REAL_COLLECTIONS"
            ) {
                Issue.record("no Stripe descriptions")
            }
            return nil
        }
        return try await onLargeStack {
            (
                try OpenAPISpec(contentsOf: folder.appendingPathComponent("stripe/2019-10.json")),
                try OpenAPISpec(contentsOf: folder.appendingPathComponent("stripe/2020-07.json"))
            )
        }
    }

    /// Every description of every vendor folder (none named here: a vendor added to the folder is tested with no
    /// code change, issue 37) reads, and imports with a snapshot for each success response that has a schema and
    /// nothing cut.
    static var everyDescription: [URL] {
        let found = RealCollections.vendors.flatMap(\.specs)
        return found.isEmpty ? [URL(fileURLWithPath: "/no-real-collections")] : found
    }

    // One at a time: Stripe's two descriptions take seconds of CPU each, and the machine has two cores.
    @Test(.serialized, arguments: everyDescription)
    func everyVendorsDescriptionImportsWhole(_ url: URL) async throws {
        guard RealCollections.folder != nil else {
            withKnownIssue("the vendors' files are not here: put them in shared/real-collections beside the checkout") {
                Issue.record("no real collections")
            }
            return
        }
        let spec = try await onLargeStack { try OpenAPISpec(contentsOf: url) }
        #expect(!spec.operations.isEmpty, "\(url.path): no operations")
        let result = try await onLargeStack { SpecImport(spec) }
        let snapshots = result.files.filter { $0.name.hasSuffix(".schema.json") }
        let expected = spec.operations.reduce(0) { count, operation in
            count + operation.responses.filter { $0.isSuccess && $0.shape != nil }.count
        }
        #expect(snapshots.count == expected, "\(url.lastPathComponent)")
        #expect(!result.notes.contains { $0.message.contains("cut") }, "\(result.notes.map(\.message))")
    }

    /// Issue 37, item 4, on Adyen's description mutated: a header parameter that goes from required to optional is
    /// reported (it was not), and `Content-Type`, `Accept` and `Authorization` header "parameters", which OpenAPI
    /// ignores and `openapi check` ignores, are no change when they come or go (eight were reported as removed).
    @Test func headerParametersChangeAsOpenAPISaysTheyCount() async throws {
        guard let folder = RealCollections.folder else {
            withKnownIssue("the vendors' files are not here: put them in shared/real-collections beside the checkout") {
                Issue.record("no real collections")
            }
            return
        }
        let original = try Data(contentsOf: folder.appendingPathComponent("adyen/openapi.json"))
        let document = try #require(try JSONSerialization.jsonObject(with: original) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        let path = try #require(paths.keys.sorted().first { ((paths[$0] as? [String: Any])?["get"]) != nil })
        func version(_ parameters: [[String: Any]]) throws -> OpenAPISpec {
            var document = document
            var items = paths
            var item = try #require(items[path] as? [String: Any])
            var operation = try #require(item["get"] as? [String: Any])
            operation["parameters"] = ((operation["parameters"] as? [[String: Any]]) ?? []) + parameters
            item["get"] = operation
            items[path] = item
            document["paths"] = items
            return try OpenAPISpec(
                data: try JSONSerialization.data(withJSONObject: document), file: "adyen/openapi.json")
        }
        func header(_ name: String, required: Bool) -> [String: Any] {
            ["name": name, "in": "header", "required": required, "schema": ["type": "string"]]
        }
        let before = try version([
            header("Idempotency-Key", required: true), header("Content-Type", required: true),
            header("Accept", required: false),
        ])
        let after = try version([header("Idempotency-Key", required: false), header("Authorization", required: true)])
        let changes = SpecDiff(from: before, to: after).changes
        #expect(changes.count == 1, "\(changes)")
        let change = try #require(changes.first)
        #expect(change.place == "header parameter Idempotency-Key")
        #expect(change.change.kind == .becameOptional && change.change.severity == .info)
        #expect(change.operation.hasPrefix("GET "), "\(change.operation)")
    }

    @Test func everyOperationImportsWholeWithNoCut() async throws {
        guard let (_, spec) = try await Self.specs() else { return }
        #expect(spec.operations.count == 355)
        let result = SpecImport(spec)
        let snapshots = result.files.filter { $0.name.hasSuffix(".schema.json") }
        let expected = spec.operations.reduce(0) { count, operation in
            count + operation.responses.filter { $0.isSuccess && $0.shape != nil }.count
        }
        #expect(snapshots.count == expected)
        #expect(snapshots.count >= 353)
        for file in snapshots {
            let text = String(decoding: file.data, as: UTF8.self)
            #expect(text.contains("\"type\"") || text.contains("\"$ref\""), "\(file.name) knows nothing")
        }
        #expect(!result.notes.contains { $0.message.contains("cut") })
        #expect(result.files.contains { $0.name == "components.json" })
        let bytes = result.files.reduce(0) { $0 + $1.data.count }
        #expect(bytes < 16_000_000, "\(bytes) bytes")
    }

    @Test func theDiffFindsEveryRemovedResponsePropertyOnItsOperation() async throws {
        guard let (old, new) = try await Self.specs(), let folder = Self.folder else { return }
        let diff = try await onLargeStack { SpecDiff(from: old, to: new) }
        var found: Set<String> = []
        for entry in diff.changes where entry.change.kind == .removed && entry.place.hasPrefix("response ") {
            guard let name = JSONPointer.tokens(of: entry.change.path)?.last else { continue }
            found.insert("\(entry.operation) \(entry.place): \(name)")
        }
        // The oracle: Fixtures/removed_properties.py walks the two documents in Python, without apiprobe.
        guard let python = Self.python else {
            withKnownIssue("no python3 for the oracle (.ci/run makes .build/venv-openapi)") {
                Issue.record("no python3")
            }
            return
        }
        // Waited for off Swift's cooperative pool (a blocking wait here held one of its two threads for the oracle's
        // whole run, and starved every other test of the process).
        let oracle = try await CommandLineRunner.runProcess(
            python,
            [
                Self.oracle.path, folder.appendingPathComponent("stripe/2019-10.json").path,
                folder.appendingPathComponent("stripe/2020-07.json").path,
            ])
        #expect(oracle.status == 0)
        let expected = Set(oracle.standardOutput.split(separator: "\n").map(String.init))
        #expect(expected.count == 13_514)
        #expect(expected.subtracting(found).sorted().prefix(10) == [])
        #expect(found.subtracting(expected).sorted().prefix(10) == [])
        // subscription_schedule lost five response properties between the two versions.
        for name in [
            "billing_thresholds", "collection_method", "default_payment_method", "default_source", "invoice_settings",
        ] {
            #expect(found.contains("GET /v1/subscription_schedules/{schedule} response 200: \(name)"))
        }
        // And the console groups them: a reader gets a few hundred lines, not a hundred thousand.
        #expect(diff.changes.count > 100_000)
        #expect(diff.componentChanges.count + diff.changes.count { $0.component == nil } < 400)
    }

    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/removed_properties.py")

    /// The Python of the virtual environment `.ci/run` makes, or the system's.
    static var python: URL? {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return [repository.appendingPathComponent(".build/venv-openapi/bin/python3").path, "/usr/bin/python3"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }.map(URL.init(fileURLWithPath:))
    }

}
