// The code of README.md's "Quick start: stubbing a request", kept compiling and passing here.
import HTTPStubs
import RecipesAPI
import Testing

@Suite struct ReadmeQuickStartTests {
    @Test func searchShowsTheRecordedRecipes() async throws {
        let stubs = StubSet()
        let store = try FixtureStore(relativeTo: #filePath)  // the nearest Stubs/ folder
        stubs.stub(try store.exchange(named: "recipes/search"))  // GET https://recipes.example.com/api/search?q=chicken
        let client = RecipesClient(configuration: stubs.sessionConfiguration())

        let page = try await client.search("chicken")

        #expect(page.recipes.count == 30)
        try stubs.requireNoUnmatchedRequests()
    }

    @Test func offlineShowsATransportError() async throws {
        let stubs = StubSet()
        stubs.stub(
            .get("https://recipes.example.com/api/search"),
            response: .failure(.notConnectedToInternet).delayed(by: .milliseconds(20)))
        let client = RecipesClient(configuration: stubs.sessionConfiguration())

        await #expect(throws: NetworkError.self) { try await client.search("chicken") }
        #expect(stubs.requests.count == 1)
    }
}
