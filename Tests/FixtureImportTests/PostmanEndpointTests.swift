import FixtureImport
import Foundation
import Testing

@testable import HTTPFixtures

/// What a real vendor's collection brings that the GitHub sample does not: an empty collection variable and an
/// empty path variable in paths, `raw` beside structured query items, dynamic variables, bodies that say JSON but
/// are not, and titles that do not follow endpoints (one title on two paths, two titles on one path).
@Suite struct PostmanEndpointTests {
    static let collectionURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/stores.postman_collection.json")

    func collection(
        variables: [String: String] = [:], naming: FixtureNaming = FixtureNaming(), only: [String] = []
    ) throws -> PostmanCollection {
        try PostmanCollection(
            parsing: Data(contentsOf: Self.collectionURL), file: "stores.json", variables: variables,
            redactingWith: .default, naming: naming, only: only.compactMap(ImportSelection.init))
    }

    @Test func emptyVariablesKeepAPlaceholderAndNeverMakeAnEmptySegment() throws {
        let collection = try collection()
        let urls = collection.entries.map(\.exchange.request.url)
        #expect(
            urls == [
                "https://management-test.example.com/v3/companies/%7BYOUR_ACCOUNT%7D/stores?pageNumber=1&pageSize=10",
                "https://management-test.example.com/v3/merchants/MC_1/stores",
                "https://management-test.example.com/v3/merchants/MC_1/stores/%7BstoreId%7D",
                "https://management-test.example.com/v3/merchants/MC_2/stores/ST2",
                "https://management-test.example.com/v3/merchants/MC_1/stores",
            ])
        for url in urls { #expect(!PathTemplate.path(of: url).contains("//"), "\(url)") }
        // One warning per variable, naming where it was first met and how to set it.
        #expect(
            collection.warnings.filter { $0.contains("YOUR_ACCOUNT") } == [
                "{{YOUR_ACCOUNT}} is empty (first in /item/0/item/0 (Get a list of stores)): the path segments it fills keep the placeholder {YOUR_ACCOUNT} (set it with --var YOUR_ACCOUNT=…)"
            ])
        #expect(
            collection.warnings.filter { $0.contains("storeId") } == [
                "path variable :storeId has no value (first in /item/1/item/1 (Get a store)): the segment keeps the placeholder {storeId} (set it with --var :storeId=…)"
            ])
    }

    @Test func varSetsCollectionAndPathVariables() throws {
        let collection = try collection(variables: ["YOUR_ACCOUNT": "YOUR_COMPANY_ACCOUNT", ":storeId": "ST9"])
        #expect(
            collection.entries[0].exchange.request.url
                == "https://management-test.example.com/v3/companies/YOUR_COMPANY_ACCOUNT/stores?pageNumber=1&pageSize=10"
        )
        #expect(
            collection.entries[2].exchange.request.url
                == "https://management-test.example.com/v3/merchants/MC_1/stores/ST9")
        // `--var :storeId` sets the path variable of every request, over the request's own.
        #expect(
            collection.entries[3].exchange.request.url
                == "https://management-test.example.com/v3/merchants/MC_2/stores/ST9")
        #expect(!collection.warnings.contains { $0.contains("YOUR_ACCOUNT") || $0.contains("storeId") })
    }

    @Test func theStructuredURLIsSentWithItsEnabledQueryItems() throws {
        // `raw` has no query; the structured URL has two enabled items and a disabled one.
        let url = try collection().entries[0].exchange.request.url
        let items = URLComponents(string: url)?.queryItems ?? []
        #expect(items == [URLQueryItem(name: "pageNumber", value: "1"), URLQueryItem(name: "pageSize", value: "10")])
    }

    @Test func dynamicVariablesTakeFixedValuesSoAReimportChangesNoByte() throws {
        let first = try collection()
        let second = try collection()
        #expect(first.entries.map { $0.exchange.encoded() } == second.entries.map { $0.exchange.encoded() })
        let create = first.entries[4].exchange
        #expect(create.request.headers["X-Request-Id"] == "00000000-0000-4000-8000-000000000000")
        #expect(create.request.body == .text("{\n  \"reference\": \"500\",\n  \"description\": \"x\",\n}"))
        #expect(first.dynamicVariables == ["$guid", "$randomInt"])
        // A saved response is what the server sent: its text is not substituted.
        guard case .json(let body)? = first.entries[0].exchange.response.body else {
            Issue.record("expected a JSON body")
            return
        }
        #expect(body.value(at: "/data/0/reference") == .string("{{$guid}}"))
    }

    @Test func aBodyThatSaysJSONButIsNotIsWarnedOfWithItsLineAndColumn() throws {
        let warnings = try collection().warnings.filter { $0.contains("says it is JSON") }
        #expect(
            warnings == [
                "/item/1/item/3/request/body/raw (in /item/1/item/3 (Create a store)): the body says it is JSON (Content-Type: application/json) but is not, at its line:column 4:1: expected a string key, found '}'; kept as text",
                "/item/1/item/3/response/0/body (in /item/1/item/3 (Create a store)): the body says it is JSON (Content-Type: application/json) but is not, at its line:column 1:14: expected a string key, found '}'; kept as text",
            ])
    }

    @Test func examplesAreGroupedByEndpointNotByTitle() throws {
        // Two "Get a list of stores" on different paths stay two endpoints; "Get a store" and "Retrieve one
        // store" on one path are one endpoint, named after the first title.
        #expect(
            try collection().entries.map(\.name) == [
                "get-a-list-of-stores", "get-v3-merchants-merchantid-stores", "get-a-store", "get-a-store.2",
                "create-a-store",
            ])
    }

    @Test func templatesTakeAMethodAndMatchWithOrWithoutTheBasePath() throws {
        let naming = FixtureNaming(templates: [
            FixtureNaming.PathTemplate("GET /merchants/{merchantId}/stores=merchant-stores")!,
            FixtureNaming.PathTemplate("/companies/{companyId}/stores")!,
        ])
        #expect(
            try collection(naming: naming).entries.map(\.name) == [
                "stores", "merchant-stores", "get-a-store", "get-a-store.2", "create-a-store",
            ])
    }

    @Test func aSpecsOperationsNameTheExamplesAndTheRestAreWarnedOf() throws {
        let naming = FixtureNaming(
            operations: [
                .init(method: "GET", path: "/merchants/{merchantId}/stores", name: "get-merchants-merchantId-stores"),
                .init(method: "GET", path: "/merchants/{merchantId}/stores/{storeId}", name: "getStore"),
                .init(method: "POST", path: "/merchants/{merchantId}/stores", name: "createStore"),
            ], basePaths: ["/v3"])
        let collection = try collection(naming: naming)
        #expect(
            collection.entries.map(\.name) == [
                "get-a-list-of-stores", "get-merchants-merchantId-stores", "getStore", "getStore.2", "createStore",
            ])
        #expect(
            collection.warnings.filter { $0.contains("no operation") } == [
                "/item/0/item/0 (Get a list of stores): GET /v3/companies/{YOUR_ACCOUNT}/stores is no operation of the spec; named by its title"
            ])
    }

    @Test func onlySelectsAFolderAPathPrefixOrATemplate() throws {
        #expect(try collection(only: ["Companies"]).entries.map(\.name) == ["get-a-list-of-stores"])
        // Names are the full collection's: a part imports under the names a whole import gives.
        #expect(
            try collection(only: ["/merchants/MC_1/stores"]).entries.map(\.name) == [
                "get-v3-merchants-merchantid-stores", "get-a-store", "create-a-store",
            ])
        #expect(
            try collection(only: ["GET /v3/merchants/{merchantId}/stores/{storeId}"]).entries.map(\.name) == [
                "get-a-store", "get-a-store.2",
            ])
        // What is not selected is neither imported nor warned of.
        #expect(try collection(only: ["Companies"]).warnings.allSatisfy { $0.contains("YOUR_ACCOUNT") })
        let error = #expect(throws: InputError.self) { try collection(only: ["Payments"]) }
        #expect(
            error?.description
                == "stores.json: expected a request that --only Payments selects (a folder name, a path prefix or a template), found none of the collection's 5 requests"
        )
    }

    @Test func noSecretReachesAWarningOrAFixture() throws {
        let collection = try collection()
        let bytes = collection.entries.map { String(decoding: $0.exchange.encoded(), as: UTF8.self) }.joined()
        #expect(!bytes.contains("sk_test_planted"))
        #expect(!collection.warnings.joined().contains("sk_test_planted"))
        #expect(collection.entries[0].exchange.request.headers["X-API-Key"] == "REDACTED")
    }
}
