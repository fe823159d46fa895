import ContractTesting
import Foundation
import HTTPStubs
import RecipesAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's base URL, as the fixtures record it.
let recipesBaseURL = "https://recipes.example.com"

/// A stub set answering every recorded fixture of Stubs/recipes; its delayed responses wait on `clock`
/// when one is given.
func makeRecipeStubs(clock: ManualClock? = nil, filePath: StaticString = #filePath) throws -> StubSet {
    let stubs = clock.map { StubSet(clock: $0) } ?? StubSet()
    try stubs.stubAll(from: FixtureStore(relativeTo: filePath), in: "recipes")
    return stubs
}

/// The real client, answered by `stubs`.
func makeClient(_ stubs: StubSet) -> RecipesClient {
    RecipesClient(configuration: stubs.sessionConfiguration())
}

/// The recorded exchange `recipes/<name>`.
func fixture(_ name: String, filePath: StaticString = #filePath) throws -> Exchange {
    try FixtureStore(relativeTo: filePath).exchange(named: "recipes/" + name)
}

/// The `q` values of the search requests a stub set received, in order.
func searchQueries(_ stubs: StubSet) -> [String] {
    stubs.requests.filter { $0.path == "/api/search" }.map { request in
        request.queryItems.first(where: { $0.name == "q" })?.value ?? "(none)"
    }
}

/// The error `operation` throws, or nil.
func networkError<T>(_ operation: () async throws(NetworkError) -> T) async -> NetworkError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}
