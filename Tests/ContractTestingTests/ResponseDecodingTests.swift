import ContractTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers every request with the status and body in its `X-Test-Status` / URL query, standing in for
/// HTTPStubs until it is wired in.
final class EchoProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return
        }
        let items = components.queryItems ?? []
        let status = Int(items.first { $0.name == "status" }?.value ?? "200") ?? 200
        let body = Data((items.first { $0.name == "body" }?.value ?? "").utf8)
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])
        if let response { client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed) }
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}

@Suite struct ResponseDecodingTests {
    func request(status: Int, body: String) throws -> URLRequest {
        var components = try #require(URLComponents(string: "https://api.example.com/api/get"))
        components.queryItems = [
            URLQueryItem(name: "status", value: "\(status)"), URLQueryItem(name: "body", value: body),
        ]
        return URLRequest(url: try #require(components.url))
    }

    var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [EchoProtocol.self]
        return configuration
    }

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
        #expect(error?.description.hasPrefix("stubbed request GET https://api.example.com/api/get?") == true)
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
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("GET https://api.example.com/api/get?")
                && text.hasSuffix(
                    #": /recipe: expected key "social_rank" (socialRank), found an object without it (keys: rank, title)"#
                )
        }
    }
}
