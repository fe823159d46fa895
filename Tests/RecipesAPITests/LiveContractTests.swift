import ContractTesting
import Foundation
import HTTPStubs
import RecipesAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The same contract checks through the real client against the stubs, or with `APIPROBE_LIVE=1`
/// against the live recipes API named by `RECIPES_BASE_URL` (for instance a `RecipesServer` on 127.0.0.1).
// A guard against a hang, not a timer: some 750 tests share two cores, and a test waits there for Swift's
// cooperative pool while CPU-heavy tests beside it hold it (ARCHITECTURE, "Time limits guard against hangs").
@Suite(.timeLimit(.minutes(10))) struct LiveContractTests {
    @Test func searchAndGetHoldTheContract() async throws {
        try await withRecipesAPI { baseURL, configuration in
            let client = RecipesClient(baseURL: baseURL, configuration: configuration)
            let page = try await client.search("chicken")
            #expect(page.count == page.recipes.count)
            #expect(page.count > 0)
            let detail = try await client.recipe(id: "35382")
            #expect(!detail.ingredients.isEmpty)

            var request = URLRequest(url: try #require(Resource.search("chicken", baseURL: baseURL).url))
            request.setValue("application/json", forHTTPHeaderField: "Accept")
            let body = try await requireDecoding(
                SearchResponse.self, fromResponseTo: request, configuration: configuration)
            #expect(body.recipes.map(\.recipeID) == page.recipes.map(\.recipeID))
        }
    }

    @Test func liveResponsesMatchTheCommittedSnapshots() async throws {
        try await withRecipesAPI { baseURL, configuration in
            let service = NetworkService(configuration: configuration)
            let search = try await service.data(for: Resource.search("chicken", baseURL: baseURL).makeRequest())
            let get = try await service.data(for: Resource.recipe(id: "35382", baseURL: baseURL).makeRequest())
            #expect(
                verifySnapshotMatch(
                    .data(search, named: "GET /api/search"), named: "recipes/search", record: .never
                ).message == nil)
            #expect(
                verifySnapshotMatch(.data(get, named: "GET /api/get"), named: "recipes/get", record: .never).message
                    == nil)
        }
    }

    @Test func errorsCarryTheServersMessage() async throws {
        try await withRecipesAPI { baseURL, configuration in
            let client = RecipesClient(baseURL: baseURL, configuration: configuration)
            let error = await networkError { () async throws(NetworkError) in try await client.recipe(id: "1") }
            #expect(error == .http(status: 404, message: #"no recipe with id "1""#))
        }
    }
}

/// Runs `body` with the base URL and session configuration of the contract environment: the recorded
/// fixtures (stubs), or in live mode a live recipes API.
func withRecipesAPI(
    filePath: StaticString = #filePath,
    _ body: (URL, URLSessionConfiguration) async throws -> Void
) async throws {
    let environment = try ContractEnvironment.current()
    guard environment.isLive else {
        let stubs = try makeRecipeStubs(filePath: filePath)
        try await body(RecipesClient.defaultBaseURL, stubs.sessionConfiguration())
        #expect(stubs.unmatchedRequests.isEmpty)
        return
    }
    let configuration = environment.sessionConfiguration(stubbed: .ephemeral)
    guard let given = ProcessInfo.processInfo.environment["RECIPES_BASE_URL"], let url = URL(string: given),
        url.scheme != nil
    else {
        Issue.record("APIPROBE_LIVE=1: expected RECIPES_BASE_URL to name the live recipes API, found none")
        return
    }
    try await body(url, configuration)
}
