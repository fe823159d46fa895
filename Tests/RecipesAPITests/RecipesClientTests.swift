import ContractTesting
import Foundation
import HTTPStubs
import RecipesAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real client (`RecipesClient` → `NetworkService` → URLSession) answered by the recorded fixtures.
@Suite struct RecipesClientTests {
    @Test func searchDecodesTheRecordedPage() async throws {
        let stubs = try makeRecipeStubs()
        let page = try await makeClient(stubs).search("chicken")
        #expect(page.count == 30)
        #expect(page.recipes.count == 30)
        let first = try #require(page.recipes.first)
        #expect(first.title == "Crispy Chicken Noodle Soup")
        #expect(first.recipeID == "39535")
        #expect((0...100).contains(first.socialRank))
        #expect(stubs.requests.map(\.url.absoluteString) == ["https://recipes.example.com/api/search?q=chicken"])
    }

    @Test func secondPageIsRequestedWithThePageParameter() async throws {
        let stubs = try makeRecipeStubs()
        let page = try await makeClient(stubs).search("chicken", page: 2)
        #expect(page.count == 9)
        #expect(page.recipes.count == 9)
        #expect(
            stubs.requests.first?.queryItems == [.init(name: "q", value: "chicken"), .init(name: "page", value: "2")])
    }

    @Test func searchWithNoMatchIsAnEmptyPage() async throws {
        let stubs = try makeRecipeStubs()
        let page = try await makeClient(stubs).search("zzzqqq")
        #expect(page == SearchResponse(count: 0, recipes: []))
        #expect(stubs.unmatchedRequests.isEmpty)
    }

    @Test func getDecodesTheRecipeWithItsIngredients() async throws {
        let stubs = try makeRecipeStubs()
        let recipe = try await makeClient(stubs).recipe(id: "35382")
        #expect(stubs.requests.map(\.url.absoluteString) == ["https://recipes.example.com/api/get?rId=35382"])
        #expect(recipe.title == "Easy Banana Bread")
        #expect(recipe.ingredients.count == 8)
        #expect(recipe.ingredients.first == "1 pound ripe bananas")
        #expect(recipe.socialRank == 55.05)
        #expect(recipe.summary.recipeID == "35382")
    }

    @Test func unknownRecipeIsA404WithTheServersMessage() async throws {
        let stubs = try makeRecipeStubs()
        let client = makeClient(stubs)
        let error = await networkError { () async throws(NetworkError) in try await client.recipe(id: "1") }
        #expect(stubs.log.map(\.status) == [404])
        #expect(error == .http(status: 404, message: #"no recipe with id "1""#))
        #expect(error?.userMessage == #"no recipe with id "1""#)
        #expect(error?.isTransient == false)
    }

    @Test func missingQueryIsA400WithTheServersMessage() async throws {
        let stubs = try makeRecipeStubs()
        let service = NetworkService(configuration: stubs.sessionConfiguration())
        let resource = Resource<SearchResponse>(baseURL: RecipesClient.defaultBaseURL, path: "/api/search")
        let error = await networkError { () async throws(NetworkError) in try await service.fetch(resource) }
        #expect(error == .http(status: 400, message: "missing query parameter q"))
    }

    @Test(arguments: [
        (StubFault.timedOut, URLError.Code.timedOut),
        (.notConnectedToInternet, .notConnectedToInternet),
        (.networkConnectionLost, .networkConnectionLost),
    ])
    func transportFaultsAreTransportErrors(fault: StubFault, code: URLError.Code) async throws {
        let stubs = StubSet()
        stubs.stub(.get(recipesBaseURL + "/api/search"), response: .failure(fault))
        let client = makeClient(stubs)
        let error = await networkError { () async throws(NetworkError) in try await client.search("chicken") }
        guard case .transport(let actual, let message)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(actual == code)
        #expect(!message.isEmpty)
        #expect(error?.isTransient == true)
    }

    @Test func droppedConnectionMidBodyIsATransportError() async throws {
        let stubs = StubSet()
        stubs.stub(
            .get(recipesBaseURL + "/api/search"), response: .fixture(try fixture("search")).dropped(afterBytes: 100))
        let client = makeClient(stubs)
        let error = await networkError { () async throws(NetworkError) in try await client.search("chicken") }
        guard case .transport(let code, _)? = error else {
            Issue.record("expected a transport error, got \(String(describing: error))")
            return
        }
        #expect(code == .networkConnectionLost)
    }

    @Test func malformedBodyIsADecodingError() async throws {
        let stubs = StubSet()
        stubs.stub(.get(recipesBaseURL + "/api/get"), response: .fixture(try fixture("get")).malformed())
        let client = makeClient(stubs)
        let error = await networkError { () async throws(NetworkError) in try await client.recipe(id: "35382") }
        guard case .decoding? = error else {
            Issue.record("expected a decoding error, got \(String(describing: error))")
            return
        }
    }

    @Test func driftedFieldIsADecodingErrorNamingThePath() async throws {
        let stubs = StubSet()
        stubs.stub(
            .get(recipesBaseURL + "/api/get"),
            response: .json(
                text:
                    #"{"recipe": {"publisher": "P", "f2f_url": "u", "title": "T", "source_url": "s", "recipe_id": 35382, "image_url": "i", "social_rank": 1, "ingredients": [], "publisher_url": "p"}}"#
            ))
        let client = makeClient(stubs)
        let error = await networkError { () async throws(NetworkError) in try await client.recipe(id: "35382") }
        #expect(error == .decoding("recipe.recipe_id: expected String"))
    }

    // A guard against a hang, not a timer (see RecipeSearchTests).
    @Test(.timeLimit(.minutes(10)))
    func parallelClientsWithTheirOwnStubsForTheSameURLSeeOnlyTheirOwn() async throws {
        let results = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<16 {
                group.addTask {
                    let stubs = StubSet()
                    var exchange = try fixture("get")
                    guard case .json(var body)? = exchange.response.body else { throw NetworkError.cancelled }
                    body = try JSONValue(
                        parsing: Data(
                            String(decoding: body.serialized(), as: UTF8.self)
                                .replacingOccurrences(of: "Easy Banana Bread", with: "Bread \(index)").utf8))
                    exchange.response.body = .json(body)
                    stubs.stub(exchange)
                    let recipe = try await makeClient(stubs).recipe(id: "35382")
                    #expect(stubs.requests.count == 1)
                    return (index, recipe.title)
                }
            }
            var results: [Int: String] = [:]
            for try await (index, title) in group { results[index] = title }
            return results
        }
        #expect(results.count == 16)
        for (index, title) in results { #expect(title == "Bread \(index)") }
    }
}
