#if canImport(FoundationNetworking)
public import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// An HTTP method.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")

    public var description: String { rawValue }
}

/// One endpoint call and the model its response decodes to.
///
/// ```swift
/// let resource = Resource<SearchResponse>(
///     baseURL: URL(string: "https://recipes.example.com")!, path: "/api/search",
///     parameters: [URLQueryItem(name: "q", value: "chicken")])
/// let page = try await NetworkService().fetch(resource)
/// ```
public struct Resource<Value: Decodable & Sendable>: Sendable, Hashable {
    public var baseURL: URL
    public var path: String
    public var method: HTTPMethod
    public var parameters: [URLQueryItem]

    public init(baseURL: URL, path: String, method: HTTPMethod = .get, parameters: [URLQueryItem] = []) {
        self.baseURL = baseURL
        self.path = path
        self.method = method
        self.parameters = parameters
    }

    /// The full URL: the base URL, the path, and the parameters as the query.
    public var url: URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = base + (path.hasPrefix("/") ? path : "/" + path)
        components.queryItems = parameters.isEmpty ? nil : parameters
        return components.url
    }

    /// The request `NetworkService` sends, with `Accept: application/json`.
    public func makeRequest() throws(NetworkError) -> URLRequest {
        guard let url else {
            throw .invalidRequest("cannot build a URL from \(baseURL.absoluteString) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }
}

/// The recipes API's endpoints.
extension Resource where Value == SearchResponse {
    /// `GET /api/search?q=<query>&page=<page>`: recipes whose title or ingredients match, 30 a page.
    public static func search(_ query: String, page: Int = 1, baseURL: URL) -> Resource {
        var parameters = [URLQueryItem(name: "q", value: query)]
        if page != 1 { parameters.append(URLQueryItem(name: "page", value: String(page))) }
        return Resource(baseURL: baseURL, path: "/api/search", parameters: parameters)
    }
}

extension Resource where Value == RecipeResponse {
    /// `GET /api/get?rId=<id>`: one recipe with its ingredients.
    public static func recipe(id: String, baseURL: URL) -> Resource {
        Resource(baseURL: baseURL, path: "/api/get", parameters: [URLQueryItem(name: "rId", value: id)])
    }
}
