import ContractTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests answered by the real stub layer (HTTPStubs, which ContractTesting re-exports).
@Suite struct ResponseDecodingTests {
    let stubs = StubSet()
    let url = "https://api.example.com/api/get?rId=7"

    /// The request, after stubbing its answer with `status` and `body`.
    func request(status: Int, body: String) throws -> URLRequest {
        stubs.stub(.get(url), response: .json(text: body, status: status))
        return URLRequest(url: try #require(URL(string: url)))
    }

    var configuration: URLSessionConfiguration { stubs.sessionConfiguration() }

    @Test func decodesTheResponseOfAStubbedRequest() async throws {
        let request = try request(status: 200, body: #"{"recipe": {"title": "Soup", "social_rank": 99.5}}"#)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let response = try await requireDecoding(
            RecipeResponse.self, fromResponseTo: request, configuration: configuration, decoder: decoder,
            environment: ContractEnvironment(isLive: false))
        #expect(response.recipe.socialRank == 99.5)
    }

    @Test func anErrorStatusIsARequestFailureNotADecodingError() async throws {
        let request = try request(status: 404, body: #"{"error": {"message": "unknown id"}}"#)
        let error = await #expect(throws: RequestFailure.self) {
            try await requireDecoding(
                RecipeResponse.self, fromResponseTo: request, configuration: configuration,
                environment: ContractEnvironment(isLive: false))
        }
        #expect(error?.status == 404)
        #expect(
            error?.description.hasSuffix(#": expected a 2xx response, found 404 {"error": {"message": "unknown id"}}"#)
                == true)
        #expect(error?.description.hasPrefix("stubbed request GET https://api.example.com/api/get?rId=7:") == true)
    }

    @Test func aDriftedResponseIsReportedWithTheRequestAsTheFileName() async throws {
        let request = try request(status: 200, body: #"{"recipe": {"title": "Soup", "rank": 99.5}}"#)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        await withKnownIssue {
            await expectDecoding(
                RecipeResponse.self, fromResponseTo: request, configuration: configuration, decoder: decoder,
                environment: ContractEnvironment(isLive: false))
        } matching: { issue in
            let text = ((issue.error as? ContractFailure)?.message ?? "")
            return text.hasPrefix("GET https://api.example.com/api/get?rId=7")
                && text.hasSuffix(
                    #": /recipe: expected key "social_rank" (socialRank), found an object without it; did you mean "rank"? (keys: rank, title)"#
                )
        }
    }
}
