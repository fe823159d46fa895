import APIProbeTestSupport
import Foundation
import Testing

@testable import ContractTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.temporaryFolder) struct RecordModeTests {
    @Test func argumentWinsOverScopeAndEnvironment() throws {
        #expect(
            try RecordMode.resolve(argument: .all, scope: .never, environment: ["APIPROBE_RECORD": "failed"]) == .all)
    }

    @Test func scopeWinsOverEnvironment() throws {
        #expect(try RecordMode.resolve(scope: .never, environment: ["APIPROBE_RECORD": "failed"]) == .never)
    }

    @Test(arguments: [("missing", RecordMode.missing), ("failed", .failed), ("all", .all), ("NEVER", .never)])
    func environmentNamesTheMode(value: String, mode: RecordMode) throws {
        #expect(try RecordMode.resolve(scope: nil, environment: ["APIPROBE_RECORD": value]) == mode)
    }

    @Test func defaultIsMissingLocallyAndNeverOnCI() throws {
        #expect(try RecordMode.resolve(scope: nil, environment: [:]) == .missing)
        #expect(try RecordMode.resolve(scope: nil, environment: ["CI": "true"]) == .never)
        #expect(
            try RecordMode.resolve(scope: nil, environment: ["CI": "true", "APIPROBE_RECORD": "missing"]) == .missing)
    }

    @Test func anUnknownValueIsAnErrorNamingTheVariable() {
        #expect(
            throws: ContractConfigurationError(
                variable: "APIPROBE_RECORD", expected: "one of missing, failed, all, never", found: "\"sometimes\"")
        ) {
            try RecordMode.resolve(scope: nil, environment: ["APIPROBE_RECORD": "sometimes"])
        }
    }

    @Test func nestedScopesKeepTheOuterSettingTheyDoNotOverride() {
        withContractTesting(record: .never) {
            withContractTesting(live: true) {
                #expect(
                    ContractTestingConfiguration.current == ContractTestingConfiguration(record: .never, live: true))
            }
        }
    }

    #if compiler(>=6.1)
    @Test(.contractTesting(record: .failed, live: true))
    func theTraitSetsTheScope() throws {
        #expect(try RecordMode.resolve(environment: [:]) == .failed)
        #expect(try ContractEnvironment.current(environment: [:]).isLive)
    }
    #endif
}

@Suite(.temporaryFolder) struct LiveModeTests {
    @Test(arguments: [("1", true), ("true", true), ("0", false), ("no", false)])
    func environmentSwitchesLiveMode(value: String, live: Bool) throws {
        #expect(try ContractEnvironment.current(scope: nil, environment: ["APIPROBE_LIVE": value]).isLive == live)
    }

    @Test func liveModeIsOffByDefaultAndABadValueIsAnError() throws {
        #expect(try ContractEnvironment.current(scope: nil, environment: [:]).isLive == false)
        let error = #expect(throws: ContractConfigurationError.self) {
            try ContractEnvironment.current(scope: nil, environment: ["APIPROBE_LIVE": "maybe"])
        }
        #expect(
            error?.description
                == #"APIPROBE_LIVE: expected 1, true or yes (live) or 0, false or no (stubbed), found "maybe""#)
    }

    @Test func theExpectAndVerifyFormsTakeTheSameArguments() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: #"{"count": 0, "recipes": []}"#)
        // verifyUsageManifest takes models one by one too, as expectUsageManifest does, and both take an array.
        let oneByOne = verifyUsageManifest(
            for: "recipes/search", models: .decoding(SearchPage.self), record: .missing, in: repository.stubs,
            snapshots: repository.snapshots
        ).message
        #expect(oneByOne?.hasPrefix("Recorded missing usage manifest") == true)
        withKnownIssue {
            // expectSnapshotMatch takes the snapshots folder, as verifySnapshotMatch does (never: it is missing).
            expectSnapshotMatch(
                .everyFixture(of: "recipes/search", in: repository.stubs), record: .never,
                snapshots: repository.snapshots)
        } matching: { issue in
            ((issue.error as? ContractFailure)?.message ?? "").hasPrefix("No schema snapshot at ")
                && ((issue.error as? ContractFailure)?.message ?? "").contains("Snapshots/recipes/search.schema.json")
        }
    }

    @Test func liveModeHandsOutAPlainConfigurationWithoutMakingTheStubs() {
        var made = 0
        func stubbed() -> URLSessionConfiguration {
            made += 1
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Stubbed": "1"]
            return configuration
        }
        let live = ContractEnvironment(isLive: true).sessionConfiguration(stubbed: stubbed())
        #expect(made == 0)
        #expect(live.httpAdditionalHeaders == nil)
        let stubs = ContractEnvironment(isLive: false).sessionConfiguration(stubbed: stubbed())
        #expect(made == 1)
        #expect(stubs.httpAdditionalHeaders?["X-Stubbed"] as? String == "1")
    }

    @Test func aFailedLiveRequestIsReportedAsSuchNotAsADecodingError() async throws {
        let request = URLRequest(url: try #require(URL(string: "unsupported-scheme://example.invalid/api/search")))
        let error = await #expect(throws: RequestFailure.self) {
            try await requireDecoding(
                SearchPage.self, fromResponseTo: request, configuration: .ephemeral,
                environment: ContractEnvironment(isLive: true))
        }
        #expect(error?.request == "GET unsupported-scheme://example.invalid/api/search")
        #expect(error?.status == nil)
        #expect(
            error?.description.hasPrefix("live request GET unsupported-scheme://example.invalid/api/search failed: ")
                == true)
    }

    @Test func requestFailureTextNamesStatusAndBody() {
        let failure = RequestFailure(
            request: "GET https://x.test/api/get", isLive: false, status: 404,
            detail: #"{"error":{"message":"unknown id"}}"#)
        #expect(
            failure.description
                == #"stubbed request GET https://x.test/api/get: expected a 2xx response, found 404 {"error":{"message":"unknown id"}}"#
        )
    }
}

/// A stand-in for JSONShape: the "schema" is the sorted set of keys at the top level.
struct TopLevelKeysEngine: SchemaSnapshotEngine {
    func makeSnapshot(of samples: [Sample], previous: Data?, at url: URL) throws -> Data {
        Data((keys(samples.map(\.document)).joined(separator: "\n") + "\n").utf8)
    }

    func failingChanges(from snapshot: Data, at url: URL, file: String, to samples: [Sample]) throws -> [String] {
        let committed = Set(String(decoding: snapshot, as: UTF8.self).split(separator: "\n").map(String.init))
        return committed.subtracting(keys(samples.map(\.document))).sorted().map { "breaking: /\($0): removed" }
    }

    private func keys(_ samples: [JSONValue]) -> [String] {
        var keys: Set<String> = []
        for case .object(let members) in samples { keys.formUnion(members.map(\.key)) }
        return keys.sorted()
    }
}

@Suite(.temporaryFolder) struct SnapshotMatchTests {
    @Test func theJSONShapeEngineFailsOnARetypedFieldAndHonoursTheUsageManifest() throws {
        let folder = try TemporaryFolder.make("engine")
        let before = Data(#"{"id": 1, "rank": 9.5, "note": "a"}"#.utf8)
        let after = Data(#"{"id": 1, "rank": "9.5", "note": 2}"#.utf8)
        #expect(verifySnapshotMatch(.data(before), named: "api/item", record: .all, snapshots: folder).message != nil)
        #expect(verifySnapshotMatch(.data(before), named: "api/item", record: .never, snapshots: folder).message == nil)
        let failure = try #require(
            verifySnapshotMatch(.data(after), named: "api/item", record: .never, snapshots: folder).message)
        #expect(failure.contains("breaking: /rank type-changed: number → string"))
        #expect(failure.contains("breaking: /note type-changed: string → integer"))

        // With a usage manifest that reads only /id and /rank, the change at /note is information.
        let manifest = UsageManifest(paths: ["/id", "/rank"]).encoded()
        try manifest.write(to: folder.appendingPathComponent("api/item.usage.json"))
        let ranked = try #require(
            verifySnapshotMatch(.data(after), named: "api/item", record: .never, snapshots: folder).message)
        #expect(ranked.contains("/rank"))
        #expect(!ranked.contains("/note"))
    }

    /// A snapshot `openapi import` wrote (listed in the operations.json beside it) is the spec's: no record mode
    /// rewrites it from samples, and the failure says where the change belongs.
    @Test func noRecordModeRewritesASnapshotWrittenFromASpec() throws {
        let folder = try TemporaryFolder.make("spec")
        #expect(
            verifySnapshotMatch(.data(Data(#"{"id": 1}"#.utf8)), named: "api/item", record: .all, snapshots: folder)
                .message
                != nil)
        try Data(
            #"{"x-apiprobe": {"generator": "apiprobe openapi import"}, "operations": [{"operationId": "item", "method": "GET", "path": "/item", "snapshots": {"200": "item.schema.json"}}]}"#
                .utf8
        ).write(to: folder.appendingPathComponent("api/operations.json"))
        let file = folder.appendingPathComponent("api/item.schema.json")
        let spec = try Data(contentsOf: file)
        for mode in [RecordMode.failed, .all] {
            let failure = try #require(
                verifySnapshotMatch(
                    .data(Data(#"{"id": "one"}"#.utf8)), named: "api/item", record: mode, snapshots: folder
                ).message)
            #expect(failure.contains("breaking: /id type-changed: integer → string"), "\(failure)")
            #expect(
                failure.hasSuffix(
                    "item.schema.json comes from an OpenAPI description (it is listed in \(folder.path)/api/operations.json), so no record mode rewrites it from samples: if the API changed, update the description and re-run `apiprobe openapi import`."
                ), "\(failure)")
            #expect(try Data(contentsOf: file) == spec, "the spec's snapshot is untouched under record mode \(mode)")
        }
    }

    /// The advice names what sets the mode: an argument overrides APIPROBE_RECORD, so setting it would do nothing.
    @Test func theAdviceChangesWhatSetTheRecordMode() throws {
        let folder = try TemporaryFolder.make("advice")
        _ =
            verifySnapshotMatch(.data(Data(#"{"id": 1}"#.utf8)), named: "api/item", record: .all, snapshots: folder)
            .message
        let failure = try #require(
            verifySnapshotMatch(.data(Data(#"{"id": "1"}"#.utf8)), named: "api/item", record: .never, snapshots: folder)
                .message
        )
        #expect(
            failure.hasSuffix(
                "If the change is intended, pass record: .failed instead of record: .never (the argument overrides APIPROBE_RECORD), re-run, and commit the file."
            ), "\(failure)")
        #expect(!failure.contains("re-run with APIPROBE_RECORD=failed"))
    }

    @Test func recordModeAllRewritesEveryFileAndFailsOnlyWhereContentChanged() throws {
        let folder = try TemporaryFolder.make("all")
        let first = Data(#"{"id": 1}"#.utf8)
        let added = Data(#"{"id": 1, "title": "x"}"#.utf8)  // a non-breaking change: a field added
        #expect(
            verifySnapshotMatch(.data(first), named: "api/item", record: .missing, snapshots: folder).message != nil)
        let file = folder.appendingPathComponent("api/item.schema.json")
        let recorded = try Data(contentsOf: file)

        // Same content: rewritten (unchanged) and passing.
        #expect(verifySnapshotMatch(.data(first), named: "api/item", record: .all, snapshots: folder).message == nil)
        #expect(try Data(contentsOf: file) == recorded)
        // Changed content without breaking drift: rewritten, and the test fails so the change is reviewed.
        let failure = verifySnapshotMatch(.data(added), named: "api/item", record: .all, snapshots: folder).message
        #expect(
            failure?.hasSuffix(
                "was re-recorded with changed content (record mode all); review the change, then commit it.") == true,
            "\(failure ?? "nil")")
        #expect(try Data(contentsOf: file) != recorded)
        #expect(verifySnapshotMatch(.data(added), named: "api/item", record: .never, snapshots: folder).message == nil)
    }

    @Test func recordsThenMatchesThenCatchesABreakingChange() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: #"{"count": 1, "recipes": []}"#)
        func check(_ mode: RecordMode) -> String? {
            verifySnapshotMatch(
                .everyFixture(of: "recipes/search", in: repository.stubs), named: nil, record: mode,
                snapshots: repository.snapshots, engine: TopLevelKeysEngine(), filePath: #filePath)
        }
        #expect(check(.missing)?.hasSuffix("Snapshots/recipes/search.schema.json; re-run, then commit it.") == true)
        #expect(check(.never) == nil)
        try repository.addFixture("recipes/search", json: #"{"recipes": []}"#)
        #expect(check(.never)?.contains("search.schema.json does not match:\n  breaking: /count: removed\n") == true)
    }
}

/// The decoder a 90-field snake_case API needs, set once for a suite instead of on every call.
let snakeCaseDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
}()

#if compiler(>=6.1)
@Suite(.contractTesting(decoder: snakeCaseDecoder), .temporaryFolder)
struct SuiteDecoderTests {
    struct Repository: Decodable, Equatable {
        var fullName: String
        var stargazersCount: Int
    }

    let body = Data(#"{"full_name": "apple/swift", "stargazers_count": 1}"#.utf8)

    @Test func assertionsWithoutADecoderUseTheSuites() throws {
        #expect(verifyDecoding(Repository.self, from: .data(body)).message == nil)
        #expect(try requireDecoding(Repository.self, from: body).fullName == "apple/swift")
    }

    @Test func aDecoderGivenToTheCallWins() {
        #expect(
            verifyDecoding(Repository.self, from: .data(body, named: "repo.json"), decoder: JSONDecoder()).message
                == #"repo.json: /: expected key "fullName", found an object without it; the JSON uses snake_case ("full_name"): did you mean to use .convertFromSnakeCase? (keys: full_name, stargazers_count)"#
        )
    }

    @Test func anInnerScopeOverridesTheSuiteAndOnlyInside() {
        let plain = JSONDecoder()
        withContractTesting(decoder: plain) {
            #expect(verifyDecoding(Repository.self, from: .data(body)).message != nil)
        }
        #expect(verifyDecoding(Repository.self, from: .data(body)).message == nil)
    }
}
#endif
