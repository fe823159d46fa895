#if canImport(FoundationNetworking)
public import Foundation
import FoundationNetworking
#else
public import Foundation
#endif

/// Why a request gave no model, in terms the app can show.
///
/// ```swift
/// do {
///     recipes = try await client.search("chicken").recipes
/// } catch {
///     alert = error.userMessage   // "no recipe with id \"1\"", "The request timed out.", …
/// }
/// ```
public enum NetworkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request never got a response: offline, timed out, connection lost, … (`URLError.Code`).
    case transport(code: URLError.Code, message: String)
    /// The server answered with a non-2xx status; `message` is the server's JSON error message when it sent one.
    case http(status: Int, message: String?)
    /// The response did not decode into the model: where, and what was wrong.
    case decoding(String)
    /// The request could not be built.
    case invalidRequest(String)
    /// The request was cancelled (for instance superseded by a newer search).
    case cancelled

    /// A short message for the user.
    public var userMessage: String {
        switch self {
        case .transport(_, let message): return message
        case .http(let status, let message): return message ?? HTTPURLResponse.localizedString(forStatusCode: status)
        case .decoding: return "The server sent a response this version of the app cannot read."
        case .invalidRequest(let message): return message
        case .cancelled: return "The request was cancelled."
        }
    }

    public var description: String {
        switch self {
        case .transport(let code, let message): return "transport error \(code.rawValue): \(message)"
        case .http(let status, let message): return "HTTP \(status)" + (message.map { ": \($0)" } ?? "")
        case .decoding(let message): return "decoding error: \(message)"
        case .invalidRequest(let message): return "invalid request: \(message)"
        case .cancelled: return "cancelled"
        }
    }

    /// Whether retrying later may help (transport errors, 5xx, 429).
    public var isTransient: Bool {
        switch self {
        case .transport: return true
        case .http(let status, _): return status >= 500 || status == 429
        default: return false
        }
    }
}

extension NetworkError {
    /// A readable message for a `DecodingError`: the JSON path and what was wrong.
    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
