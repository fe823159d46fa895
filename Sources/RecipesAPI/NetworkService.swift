#if canImport(FoundationNetworking)
public import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// Sends resources' requests through one `URLSession` and decodes their responses.
///
/// The session's configuration is injected, so tests hand it a stub set's configuration and the app
/// the default one:
///
/// ```swift
/// let service = NetworkService(configuration: stubs.sessionConfiguration())
/// let page = try await service.fetch(.search("chicken", baseURL: baseURL))
/// ```
public final class NetworkService: Sendable {
    private let session: URLSession
    private let decoder: JSONDecoder

    public init(configuration: URLSessionConfiguration = .default, decoder: JSONDecoder = JSONDecoder()) {
        session = URLSession(configuration: configuration)
        self.decoder = decoder
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends the resource's request and decodes its 2xx response.
    ///
    /// - Throws: ``NetworkError``: `.transport` when no response came, `.http` with the server's message
    ///   for a non-2xx status, `.decoding` when the body does not fit the model, `.cancelled`.
    public func fetch<Value>(_ resource: Resource<Value>) async throws(NetworkError) -> Value {
        let data = try await data(for: resource.makeRequest())
        do {
            return try decoder.decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw .decoding(NetworkError.describe(error))
        } catch {
            throw .decoding("\(error)")
        }
    }

    /// The body of a 2xx response to `request`.
    public func data(for request: URLRequest) async throws(NetworkError) -> Data {
        if Task.isCancelled { throw .cancelled }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            if error.code == .cancelled || Task.isCancelled { throw .cancelled }
            throw .transport(code: error.code, message: error.localizedDescription)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .transport(code: .unknown, message: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw .transport(code: .badServerResponse, message: "the response is not HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            let message = (try? decoder.decode(APIErrorResponse.self, from: data))?.error.message
            throw .http(status: http.statusCode, message: message)
        }
        return data
    }
}

/// The recipes API: search and get, against a base URL.
///
/// ```swift
/// let client = RecipesClient(baseURL: URL(string: "https://recipes.example.com")!)
/// let page = try await client.search("chicken")
/// let detail = try await client.recipe(id: page.recipes[0].recipeID)
/// ```
public struct RecipesClient: Sendable {
    /// The app's base URL.
    public static let defaultBaseURL = URL(string: "https://recipes.example.com") ?? URL(fileURLWithPath: "/")

    public var baseURL: URL
    public var service: NetworkService

    public init(baseURL: URL = RecipesClient.defaultBaseURL, service: NetworkService = NetworkService()) {
        self.baseURL = baseURL
        self.service = service
    }

    public init(baseURL: URL = RecipesClient.defaultBaseURL, configuration: URLSessionConfiguration) {
        self.init(baseURL: baseURL, service: NetworkService(configuration: configuration))
    }

    /// One page of recipes matching `query`.
    public func search(_ query: String, page: Int = 1) async throws(NetworkError) -> SearchResponse {
        try await service.fetch(.search(query, page: page, baseURL: baseURL))
    }

    /// One recipe with its ingredients.
    public func recipe(id: String) async throws(NetworkError) -> RecipeDetail {
        try await service.fetch(.recipe(id: id, baseURL: baseURL)).recipe
    }
}
