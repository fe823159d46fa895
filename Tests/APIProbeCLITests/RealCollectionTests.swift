import APIProbeTestSupport
import FixtureImport
import Foundation
import HTTPFixtures
import Testing

/// Real vendors' Postman collections beside their OpenAPI descriptions: imported with no `--var`, every fixture's
/// URL is the one Postman sends (no empty path segment, every enabled query item), and `openapi check` reports only
/// what an independent validator, PyPI's `jsonschema` driven by `Fixtures/RealCollections/oracle.py`, also finds in
/// the same examples.
///
/// The vendors' files are public material this repository does not hold: they are read from the folder named by
/// `APIPROBE_REAL_COLLECTIONS`, or `shared/real-collections` beside the checkout (Fixtures/RealCollections/README.md
/// lists each file's source, commit and licence). Without them, the test is a known issue that says where to put
/// them.
@Suite(.tags(.commandLine, .outsideTools, .realMaterial), .hangGuard, .temporaryFolder)
struct RealCollectionTests {
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/RealCollections/oracle.py")

    /// The folder of the vendors' files, when it is there.
    static var folder: URL? { RealCollections.folder }

    /// Every vendor folder with a Postman collection and one description beside it, none named here (issue 37: a
    /// vendor added to the folder is tested with no code change). Today: Adyen's Management API v3 (158 requests,
    /// 111 examples, empty variables); EdgeX Foundry's ONVIF camera service (its environment file, examples saved
    /// with an empty request); Plaid (every operation a POST with a JSON body, base URL from its Sandbox
    /// environment, examples saved a month after the description). Without the folder, one placeholder case that
    /// records the known issue.
    static var vendors: [RealCollections.Vendor] {
        let found = RealCollections.vendors.filter { $0.collection != nil && $0.specs.count == 1 }
        return found.isEmpty && folder == nil
            ? [RealCollections.Vendor(name: "(none)", folder: URL(fileURLWithPath: "/"), specs: [])] : found
    }

    /// Every vendor folder is one of: a collection with its description (tested here), or descriptions alone
    /// (RealSpecTests). A folder that is neither is not silently skipped.
    @Test func everyVendorFolderIsTestedSomewhere() throws {
        guard Self.folder != nil else {
            withKnownIssue("the vendors' files are not here: put them in shared/real-collections beside the checkout") {
                Issue.record("no real collections")
            }
            return
        }
        let vendors = RealCollections.vendors
        #expect(!vendors.isEmpty)
        for vendor in vendors {
            #expect(
                (vendor.collection != nil && vendor.specs.count == 1)
                    || (vendor.collection == nil && !vendor.specs.isEmpty),
                "\(vendor.name): a collection.json needs exactly one description beside it (found \(vendor.specs.map(\.lastPathComponent))); a folder without one needs at least one description"
            )
        }
    }

    /// The Python of the virtual environment `.ci/run` makes (with jsonschema and rfc3339-validator).
    static var python: URL? {
        let environment = ProcessInfo.processInfo.environment
        let candidates: [String?] = [
            environment["OPENAPI_SPEC_VALIDATOR"].map {
                URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("python3").path
            },
            OpenAPICommandTests.repository.appendingPathComponent(".build/venv-openapi/bin/python3").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
            .map(URL.init(fileURLWithPath:))
    }

    struct Example: Decodable {
        var pointer: String
        var path: String
        var query: [[String?]]
        var template: String?
        var statusDeclared: Bool?
        var violations: [String]
        var requestViolations: [String]
    }

    /// `openapi check`'s JSON report for a folder of fixtures.
    struct CheckReport: Decodable {
        struct Violation: Decodable {
            var file: String
            var pointer: String
            var kind: String
        }
        var violations: [Violation]
        var unmatched: [String]
    }

    /// The kinds of violation that are about the exchange, not a schema keyword.
    static let exchangeKinds: Set<String> = ["request-body", "status-undeclared", "no-operation", "parameter"]

    /// Whether the oracle (PyPI's `jsonschema`) finds a schema violation at the same place: the same pointer, the
    /// `oneOf`/`anyOf` itself (`P/*` in the oracle's output), or a place below one no alternative of which fits (the
    /// closest alternative's reasons, which apiprobe lists after it).
    static func oracleFinds(_ pointer: String, kind: String, in found: [String]) -> Bool {
        if found.contains(pointer) { return true }
        if kind == "oneOf" || kind == "anyOf", found.contains(pointer + "/*") { return true }
        return found.contains { $0.hasSuffix("/*") && pointer.hasPrefix(String($0.dropLast())) }
    }

    static func check(_ spec: URL, stubs: String, in directory: URL) async throws -> CheckReport {
        let check = try await CommandLineRunner.run(
            ["openapi", "check", spec.path, "--stubs", stubs, "--format", "json"], in: directory)
        return try JSONDecoder().decode(CheckReport.self, from: Data(check.standardOutput.utf8))
    }

    /// The vendors' folder and the oracle's Python; without them a known issue that says where to put them
    /// (a missing Python is a failure under CI).
    static func prerequisites() -> (folder: URL, python: URL)? {
        guard let folder else {
            withKnownIssue(
                "the vendors' files are not here: put them in shared/real-collections beside the checkout, or name their folder in APIPROBE_REAL_COLLECTIONS (Tests/APIProbeCLITests/Fixtures/RealCollections/README.md)"
            ) {
                Issue.record("no real collections")
            }
            return nil
        }
        guard let python else {
            TestEnvironment.recordMissing(
                "the tests' Python (.build/venv-openapi, with jsonschema) is missing: run .ci/run")
            return nil
        }
        return (folder, python)
    }

    @Test(arguments: vendors)
    func importedWithoutVarsThenCheckedOnlyForWhatJSONSchemaFinds(_ vendor: RealCollections.Vendor) async throws {
        guard let (_, python) = Self.prerequisites() else { return }
        let collection = try #require(vendor.collection)
        let spec = try #require(vendor.specs.first)
        let environment = vendor.environment
        let directory = try TemporaryFolder.make("real-\(vendor.name)")

        // The import, as a user runs it: no --var.
        var arguments = ["import", "postman", collection.path, "--into", "Stubs/\(vendor.name)"]
        if let environment { arguments += ["--environment", environment.path] }
        let imported = try await CommandLineRunner.run(arguments, in: directory)
        #expect(imported.status == 0, "\(imported)")

        // The oracle, on the same files.
        let oracle = try await CommandLineRunner.runProcess(
            python,
            [Self.oracle.path, collection.path, spec.path]
                + (environment.map { [$0.path] } ?? []))
        try #require(oracle.status == 0, "\(oracle)")
        struct Output: Decodable { var examples: [Example] }
        let examples = try JSONDecoder().decode(Output.self, from: Data(oracle.standardOutput.utf8)).examples
        let byPointer = Dictionary(examples.map { ($0.pointer, $0) }) { first, _ in first }

        // Fixture names and their examples, from the library the command uses.
        let values =
            try environment.map {
                try PostmanCollection.environmentValues(parsing: Data(contentsOf: $0), file: $0.path)
            } ?? [:]
        let entries = try PostmanCollection(
            parsing: Data(contentsOf: collection), file: collection.path, variables: values
        ).entries
        #expect(entries.count == examples.count, "every saved example is a fixture")
        var exampleOfFile: [String: Example] = [:]
        for entry in entries {
            let written = try Exchange.load(
                from: directory.appendingPathComponent("Stubs/\(vendor.name)/\(entry.name).json"))
            let example = try #require(byPointer[entry.pointer], "\(entry.pointer)")
            exampleOfFile["Stubs/\(vendor.name)/\(entry.name).json"] = example
            let components = try #require(URLComponents(string: written.request.url), "\(written.request.url)")
            // The path Postman sends, placeholders for empty variables, and never an empty segment.
            #expect(components.path == example.path, "\(entry.name)")
            #expect(
                !components.percentEncodedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
                    .contains(""), "\(written.request.url)")
            // Every enabled query item (credentials masked by the redactor).
            let sent = (components.queryItems ?? []).map { [$0.name, $0.value] }
            for item in example.query where !item.isEmpty {
                #expect(
                    sent.contains { $0[0] == item[0] && ($0[1] == item[1] || $0[1] == "REDACTED") },
                    "\(entry.name): \(item) in \(written.request.url)")
            }
        }

        // openapi check reports only what jsonschema also finds, at the same place.
        let report = try await Self.check(spec, stubs: "Stubs/\(vendor.name)", in: directory)
        var reported = 0
        for violation in report.violations {
            let example = try #require(exampleOfFile[violation.file], "\(violation.file)")
            reported += 1
            switch violation.kind {
            case _ where !Self.exchangeKinds.contains(violation.kind):
                // A schema keyword's violation: at the place jsonschema names too.
                #expect(
                    Self.oracleFinds(violation.pointer, kind: violation.kind, in: example.violations),
                    "\(violation.file) \(violation.pointer) \(violation.kind): jsonschema finds \(example.violations)")
            case "request-body":
                #expect(
                    example.requestViolations.contains(violation.pointer),
                    "\(violation.file) \(violation.pointer): jsonschema finds \(example.requestViolations)")
            case "status-undeclared":
                #expect(example.statusDeclared == false, "\(violation.file)")
            case "no-operation":
                #expect(
                    example.template == nil, "\(violation.file): jsonschema's side matched \(example.template ?? "")")
            default:
                // A parameter the operation does not declare: checked by neither; counted in the closing note.
                break
            }
        }
        for file in report.unmatched {
            #expect(exampleOfFile[file]?.template == nil, "\(file) matched no operation, but the oracle's did")
        }
    }

    /// The examples each vendor's description carries for its JSON responses, made fixtures, pass `openapi check`
    /// where PyPI's `jsonschema` accepts them and fail where it rejects them, at the places it names
    /// (`Fixtures/RealCollections/spec_examples.py`, beside `oracle.py`).
    @Test(arguments: vendors)
    func theDescriptionsOwnExamplesAreCheckedAsJSONSchemaChecksThem(_ vendor: RealCollections.Vendor) async throws {
        guard let (_, python) = Self.prerequisites() else { return }
        let spec = try #require(vendor.specs.first)
        let directory = try TemporaryFolder.make("real-examples-\(vendor.name)")
        let script = Self.oracle.deletingLastPathComponent().appendingPathComponent("spec_examples.py")
        let oracle = try await CommandLineRunner.runProcess(python, [script.path, spec.path])
        try #require(oracle.status == 0, "\(oracle)")
        struct SpecExample: Decodable {
            var pointer: String
            var method: String
            var path: String
            var status: Int
            var body: String
            var violations: [String]
        }
        struct Output: Decodable { var examples: [SpecExample] }
        let examples = try JSONDecoder().decode(Output.self, from: Data(oracle.standardOutput.utf8)).examples
        #expect(!examples.isEmpty)

        // The description imports whole: no cut, every snapshot says something, the approximations counted.
        let imported = try await CommandLineRunner.run(
            ["openapi", "import", spec.path, "--api", "imported"], in: directory)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.standardOutput.contains(" approximation"), "\(imported)")
        let snapshotFolder = directory.appendingPathComponent("Snapshots/imported")
        let operations = try String(
            contentsOf: snapshotFolder.appendingPathComponent("operations.json"), encoding: .utf8)
        #expect(!operations.contains("cut here"))
        for name in try FileManager.default.contentsOfDirectory(atPath: snapshotFolder.path)
        where name.hasSuffix(".schema.json") {
            let text = try String(contentsOf: snapshotFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(text.contains("\"type\"") || text.contains("\"$ref\""), "\(name) accepts any value")
        }

        let stubs = directory.appendingPathComponent("Stubs/\(vendor.name)")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        var exampleOfFile: [String: SpecExample] = [:]
        for (index, example) in examples.enumerated() {
            let request = JSONValue.object([
                ("method", .string(example.method)), ("url", .string("https://api.example.test" + example.path)),
            ])
            let response = JSONValue.object([
                ("status", .number(String(example.status))),
                ("headers", .object([("Content-Type", .string("application/json"))])),
                ("body", try JSONValue(parsing: Data(example.body.utf8))),
            ])
            let fixture = JSONValue.object([("request", request), ("response", response)])
            try fixture.serialized().write(to: stubs.appendingPathComponent("example-\(index).json"))
            exampleOfFile["Stubs/\(vendor.name)/example-\(index).json"] = example
        }
        let report = try await Self.check(spec, stubs: "Stubs/\(vendor.name)", in: directory)
        #expect(report.unmatched.isEmpty, "\(report.unmatched)")
        var failing = Set<String>()
        for violation in report.violations where !Self.exchangeKinds.contains(violation.kind) {
            let example = try #require(exampleOfFile[violation.file], "\(violation.file)")
            failing.insert(violation.file)
            #expect(
                Self.oracleFinds(violation.pointer, kind: violation.kind, in: example.violations),
                "\(example.pointer) \(violation.pointer) \(violation.kind): jsonschema finds \(example.violations)")
        }
        // And every example jsonschema rejects fails the check.
        let rejected = Set(exampleOfFile.filter { !$0.value.violations.isEmpty }.keys)
        #expect(rejected.subtracting(failing).sorted().prefix(5) == [], "rejected by jsonschema, passed by apiprobe")
        #expect(failing.subtracting(rejected).isEmpty)
    }
}
