import APIProbeTestSupport
import ContractTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `expectRequestsConform`: the requests a client sent through a stub set, against the operations file that
/// `apiprobe openapi import` writes.
@Suite(.temporaryFolder)
struct RequestConformanceTests {
    /// An operations file as `openapi import` writes it for a search (`q` required, `page` an integer) and a
    /// rating that takes a JSON body with a required integer `stars` and a required `X-Client` header.
    static let operations = """
        {
          "basePaths": ["/v1"],
          "openapi": "3.1.0",
          "operations": [
            {
              "method": "GET", "operationId": "search", "path": "/api/search",
              "parameters": [
                {"in": "query", "name": "q", "required": true, "schema": {"type": "string"}},
                {"in": "query", "name": "page", "required": false, "schema": {"type": "integer"}}
              ],
              "requestBody": null, "responses": ["200"], "snapshots": {"200": "search.schema.json"}
            },
            {
              "method": "POST", "operationId": "rate", "path": "/api/recipes/{id}/ratings",
              "parameters": [
                {"in": "path", "name": "id", "required": true, "schema": {"type": "integer"}},
                {"in": "header", "name": "X-Client", "required": true, "schema": {"type": "string"}}
              ],
              "requestBody": {"required": true, "schema": {
                "properties": {"stars": {"type": "integer"}, "comment": {"type": "string"}},
                "required": ["stars"], "type": "object"}},
              "responses": ["201"], "snapshots": {}
            }
          ],
          "x-apiprobe": {"generator": "apiprobe openapi import"}
        }
        """

    private func repository() throws -> TemporaryRepository {
        let repository = try TemporaryRepository()
        let folder = repository.snapshots.appendingPathComponent("recipes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Self.operations.utf8).write(to: folder.appendingPathComponent("operations.json"))
        return repository
    }

    /// Sends `requests` through a stub set that answers everything with `{}` and returns the logged requests.
    private func send(_ requests: [URLRequest]) async throws -> [StubRequest] {
        let stubs = StubSet()
        stubs.stub(RequestMatcher(), response: .json(.object([])))
        let session = URLSession(configuration: stubs.sessionConfiguration())
        defer { session.finishTasksAndInvalidate() }
        for request in requests { _ = try await session.data(for: request) }
        return stubs.requests
    }

    private func get(_ url: String) throws -> URLRequest {
        URLRequest(url: try #require(URL(string: url)))
    }

    @Test func aClientSendingAnUndeclaredQueryParameterFailsTheTest() async throws {
        let repository = try repository()
        let requests = try await send([
            try get("https://recipes.example.com/v1/api/search?q=chicken&page=2"),
            try get("https://recipes.example.com/v1/api/search?q=chicken&sort=rank"),
        ])
        let line = #line + 2
        withKnownIssue {
            expectRequestsConform(requests, to: .operations(of: "recipes", in: repository.snapshots))
        } matching: { issue in
            (issue.error as? ContractFailure)?.message
                == "GET https://recipes.example.com/v1/api/search?q=chicken&sort=rank: GET /api/search: "
                + "/query/sort: query parameter \"sort\" is not declared"
                && issue.sourceLocation?.line == line
        }
    }

    @Test func conformingRequestsPass() async throws {
        let repository = try repository()
        var rating = URLRequest(url: try #require(URL(string: "https://recipes.example.com/v1/api/recipes/7/ratings")))
        rating.httpMethod = "POST"
        rating.setValue("ios", forHTTPHeaderField: "X-Client")
        rating.httpBody = Data(#"{"stars": 5, "comment": "good"}"#.utf8)
        let requests = try await send([try get("https://recipes.example.com/v1/api/search?q=pie&page=2"), rating])
        #expect(
            verifyRequestsConform(requests, to: .operations(of: "recipes", in: repository.snapshots)).message == nil)
    }

    @Test func eachProblemNamesTheRequestTheOperationAndThePointer() async throws {
        let repository = try repository()
        var rating = URLRequest(url: try #require(URL(string: "https://recipes.example.com/v1/api/recipes/7/ratings")))
        rating.httpMethod = "POST"
        rating.httpBody = Data(#"{"stars": "five"}"#.utf8)
        var unknown = try get("https://recipes.example.com/v1/api/rate?api_key=s3cr3t-value")
        unknown.httpMethod = "DELETE"
        let requests = try await send([try get("https://recipes.example.com/v1/api/search?page=two"), rating, unknown])
        let message = verifyRequestsConform(requests, to: .operations(of: "recipes", in: repository.snapshots)).message
        #expect(
            message == """
                GET https://recipes.example.com/v1/api/search?page=two: GET /api/search: /query/q: required query parameter "q" is missing
                GET https://recipes.example.com/v1/api/search?page=two: GET /api/search: /query/page: query parameter "page": expected integer, found string "two"
                POST https://recipes.example.com/v1/api/recipes/7/ratings: POST /api/recipes/{id}/ratings: /header/X-Client: required header parameter "X-Client" is missing
                POST https://recipes.example.com/v1/api/recipes/7/ratings: POST /api/recipes/{id}/ratings: /body/stars: expected integer, found string "five"
                DELETE https://recipes.example.com/v1/api/rate?api_key=REDACTED: no such operation in \(displayPath(repository.snapshots))/recipes/operations.json
                """)
    }

    @Test func aMissingOperationsFileSaysHowToWriteIt() throws {
        let repository = try TemporaryRepository()
        let message = verifyRequestsConform([], to: .operations(of: "github", in: repository.snapshots)).message
        #expect(
            message
                == "\(displayPath(repository.snapshots))/github/operations.json: expected the operations file of github "
                + "(apiprobe openapi import SPEC --api github writes it), found no such file")
    }

    private func displayPath(_ url: URL) -> String {
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let path = url.standardizedFileURL.path
        return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
