import APIProbeShared
public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which requests a stub answers: every condition must hold.
///
/// Build one from a starting point and add conditions; each condition says, when it fails, why:
///
/// ```swift
/// let search = RequestMatcher.get("https://recipes.example.com/api/search")
///     .query(["q": "chicken"])            // the URL has at least these items
///     .header("Accept", "application/json")
/// let update = try RequestMatcher.post("/api/recipes/{id}")
///     .jsonBody(JSONValue(parsing: Data(#"{"title": "Soup"}"#.utf8)), subset: true)
/// ```
///
/// A URL given to ``get(_:)`` and friends may be absolute (scheme, host and path are matched) or a
/// path; a path may hold `{name}` placeholders, each matching one path segment. Query items in the URL
/// are matched as a subset.
public struct RequestMatcher: Sendable, CustomStringConvertible {
    /// One condition and the name it shows in diagnostics.
    public struct Condition: Sendable {
        public var name: String
        /// Returns `nil` when the request satisfies the condition, else why not.
        public var evaluate: @Sendable (StubRequest) -> String?
        /// What the condition fixes exactly, when a stub set's index can stand in for evaluating it.
        var fixes: Fixed?

        public init(_ name: String, evaluate: @escaping @Sendable (StubRequest) -> String?) {
            self.name = name
            self.evaluate = evaluate
        }

        enum Fixed: Sendable, Equatable {
            case method(String)
            case path(String)
        }
    }

    public private(set) var conditions: [Condition] = []
    /// `METHOD path` when the method and the path are exact: lets a set find candidates without
    /// trying every stub.
    package private(set) var exactMethod: String?
    package private(set) var exactPath: String?
    /// The host (lowercased) when a condition fixes it: the global mode answers only hosts its stubs name.
    package private(set) var exactHost: String?

    /// A matcher that accepts every request.
    public static var any: RequestMatcher { RequestMatcher() }

    public init() {}

    public var description: String {
        conditions.isEmpty ? "any request" : conditions.map(\.name).joined(separator: ", ")
    }

    /// Adds a condition.
    public func adding(_ condition: Condition) -> RequestMatcher {
        var copy = self
        copy.conditions.append(condition)
        return copy
    }

    /// Adds a condition from a closure that returns `true` for requests it accepts.
    public func matching(_ name: String, _ predicate: @escaping @Sendable (StubRequest) -> Bool) -> RequestMatcher {
        adding(Condition(name) { predicate($0) ? nil : "\(name) did not accept the request" })
    }

    // MARK: Method and URL

    public static func get(_ url: String) -> RequestMatcher { RequestMatcher().method("GET").url(url) }
    public static func post(_ url: String) -> RequestMatcher { RequestMatcher().method("POST").url(url) }
    public static func put(_ url: String) -> RequestMatcher { RequestMatcher().method("PUT").url(url) }
    public static func patch(_ url: String) -> RequestMatcher { RequestMatcher().method("PATCH").url(url) }
    public static func delete(_ url: String) -> RequestMatcher { RequestMatcher().method("DELETE").url(url) }

    /// The HTTP method, compared without regard to case.
    public func method(_ method: String) -> RequestMatcher {
        let expected = method.uppercased()
        var condition = Condition("method \(expected)") { request in
            request.method == expected ? nil : "method differs: expected \(expected), got \(request.method)"
        }
        condition.fixes = .method(expected)
        var copy = adding(condition)
        copy.exactMethod = expected
        return copy
    }

    /// Scheme, host and port (when the URL has them), path (with `{name}` placeholders) and query items (a subset).
    public func url(_ url: String) -> RequestMatcher {
        guard let components = URLComponents(string: url) else { return path(url) }
        var copy = self
        if let scheme = components.scheme { copy = copy.scheme(scheme) }
        if let host = components.host { copy = copy.host(host, port: components.port) }
        let path = components.path.isEmpty ? "/" : components.path
        copy = path.contains("{") ? copy.pathTemplate(path) : copy.path(path)
        if let items = components.queryItems, !items.isEmpty {
            copy = copy.query(items, exact: false)
        }
        return copy
    }

    public func scheme(_ scheme: String) -> RequestMatcher {
        let expected = scheme.lowercased()
        return adding(
            Condition("scheme \(expected)") { request in
                let actual = request.scheme ?? ""
                return actual == expected ? nil : "scheme differs: expected \(expected), got \(actual)"
            })
    }

    /// The host (without regard to case) and, when given, the port.
    public func host(_ host: String, port: Int? = nil) -> RequestMatcher {
        let expected = host.lowercased()
        let shown = port.map { "\(expected):\($0)" } ?? expected
        var copy = adding(
            Condition("host \(shown)") { request in
                let actual = request.host ?? ""
                if actual != expected { return "host differs: expected \(expected), got \(actual)" }
                if let port, request.url.port != port {
                    return "port differs: expected \(port), got \(request.url.port.map(String.init) ?? "none")"
                }
                return nil
            })
        copy.exactHost = expected
        return copy
    }

    /// The exact path (`/api/search`).
    public func path(_ path: String) -> RequestMatcher {
        var condition = Condition("path \(path)") { request in
            request.path == path ? nil : "path differs: expected \(path), got \(request.path)"
        }
        condition.fixes = .path(path)
        var copy = adding(condition)
        copy.exactPath = path
        return copy
    }

    /// A path with `{name}` placeholders, each matching one non-empty segment: `/api/recipes/{id}`.
    public func pathTemplate(_ template: String) -> RequestMatcher {
        let expected = template.split(separator: "/", omittingEmptySubsequences: false)
        return adding(
            Condition("path \(template)") { request in
                let actual = request.path.split(separator: "/", omittingEmptySubsequences: false)
                let fits =
                    actual.count == expected.count
                    && zip(expected, actual).allSatisfy { pattern, segment in
                        (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty) || pattern == segment
                    }
                return fits ? nil : "path differs: expected \(template), got \(request.path)"
            })
    }

    /// A path that matches a regular expression (searched in the whole path; anchor it with `^…$`).
    ///
    /// - Throws: ``RequestMatcherError`` when `pattern` is not a valid regular expression, so a typo fails
    ///   where the stub is made, not later as a request that matches nothing.
    public func pathMatching(_ pattern: String) throws(RequestMatcherError) -> RequestMatcher {
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: pattern)
        } catch {
            throw RequestMatcherError(
                message:
                    "pathMatching: expected a regular expression, found \"\(pattern)\" (\(error.localizedDescription))")
        }
        let box = RegexBox(regex)
        return adding(
            Condition("path ~ \(pattern)") { request in
                let path = request.path
                let range = NSRange(path.startIndex..., in: path)
                return box.regex.firstMatch(in: path, range: range) != nil
                    ? nil : "path differs: expected a path matching \(pattern), got \(path)"
            })
    }

    // MARK: Query, headers, body

    /// Query items: `exact` means these and no others (order ignored); otherwise at least these.
    public func query(_ items: [String: String], exact: Bool = false) -> RequestMatcher {
        query(items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }, exact: exact)
    }

    /// Query items: `exact` means these and no others (order ignored); otherwise at least these.
    public func query(_ items: [URLQueryItem], exact: Bool = false) -> RequestMatcher {
        let expected = items.map { QueryPair(name: $0.name, value: $0.value) }
        let shown = items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        return adding(
            Condition(exact ? "query exactly \(shown)" : "query \(shown)") { request in
                let actual = request.queryItems.map { QueryPair(name: $0.name, value: $0.value) }
                for item in expected {
                    let sameName = actual.filter { $0.name == item.name }
                    if sameName.isEmpty { return "query item \(item.name) missing" }
                    if !sameName.contains(item) {
                        return
                            "query item \(item.name) differs: expected \(item.value ?? "(no value)"), got \(sameName.map { $0.value ?? "(no value)" }.joined(separator: ", "))"
                    }
                }
                if exact {
                    let extra = actual.filter { !expected.contains($0) }
                    if !extra.isEmpty {
                        return "query has unexpected item(s) \(extra.map(\.name).joined(separator: ", "))"
                    }
                }
                return nil
            })
    }

    /// A header with this value (or present with any value when `value` is `nil`); names ignore case.
    ///
    /// A header that holds a credential by its name (`Authorization`, `X-API-Key`, as the redactor judges) is
    /// compared as any other, but its values never appear in a description or a near-miss message.
    public func header(_ name: String, _ value: String? = nil) -> RequestMatcher {
        let secret = RedactionPolicy.default.isSensitiveHeader(name)
        let shown = secret ? RedactionPolicy.default.marker : value
        return adding(
            Condition(shown.map { "header \(name): \($0)" } ?? "header \(name)") { request in
                guard let actual = request.header(name) else { return "header \(name) missing" }
                guard let value, actual != value else { return nil }
                if secret { return "header \(name) differs (a credential: the values are not shown)" }
                return "header \(name) differs: expected \(value), got \(actual)"
            })
    }

    /// The body's bytes, exactly.
    public func body(_ data: Data) -> RequestMatcher {
        adding(
            Condition("body of \(data.count) bytes") { request in
                guard let body = request.body else { return Self.noBodyReason }
                return body == data ? nil : "body differs: expected \(data.count) bytes, got \(body.count) bytes"
            })
    }

    /// A JSON body equal to `expected` (key order and number spelling ignored) or, with `subset`,
    /// one whose objects hold at least the members of `expected`.
    public func jsonBody(_ expected: JSONValue, subset: Bool = false) -> RequestMatcher {
        adding(
            Condition(
                subset
                    ? "JSON body containing \(Redactor().redactingJSON(expected).compactText)"
                    : "JSON body \(Redactor().redactingJSON(expected).compactText)"
            ) {
                request in
                guard let body = request.body else { return Self.noBodyReason }
                guard let actual = try? JSONValue(parsing: body) else { return "body is not JSON" }
                if subset {
                    if let pointer = Self.firstDifference(expected: expected, actual: actual, pointer: "") {
                        return "JSON body differs at \(pointer.isEmpty ? "/" : pointer)"
                    }
                    return nil
                }
                guard actual != expected else { return nil }
                // Members a credential-named key holds (`password`, `access_token`) are masked on both sides.
                let redactor = Redactor()
                return "JSON body differs: expected \(redactor.redactingJSON(expected).compactText), got "
                    + "\(redactor.redactingJSON(actual).compactText)"
            })
    }

    /// Why a body matcher failed on a request without a visible body.
    static let noBodyReason =
        "request has no body (a body given to upload(for:from:) is not visible to a URLProtocol on Linux; set httpBody on the URLRequest)"

    /// The first place where `actual` does not contain `expected`, or `nil` when it does.
    static func firstDifference(expected: JSONValue, actual: JSONValue, pointer: String) -> String? {
        switch (expected, actual) {
        case (.object(let members), .object):
            for member in members {
                let child = pointer + "/" + JSONPointer.escape(member.key)
                guard let value = actual[member.key] else { return child }
                if let difference = firstDifference(expected: member.value, actual: value, pointer: child) {
                    return difference
                }
            }
            return nil
        case (.array(let expectedItems), .array(let actualItems)):
            guard expectedItems.count == actualItems.count else { return pointer }
            for (index, pair) in zip(expectedItems, actualItems).enumerated() {
                if let difference = firstDifference(expected: pair.0, actual: pair.1, pointer: "\(pointer)/\(index)") {
                    return difference
                }
            }
            return nil
        default:
            return expected == actual ? nil : pointer
        }
    }
}

extension JSONValue {
    var compactText: String {
        let text = String(decoding: serialized(), as: UTF8.self)
        return text.count > 80 ? String(text.prefix(80)) + "…" : text
    }
}

private struct QueryPair: Hashable {
    var name: String
    var value: String?
}

private final class RegexBox: @unchecked Sendable {
    // NSRegularExpression is immutable and documented as thread-safe.
    let regex: NSRegularExpression
    init(_ regex: NSRegularExpression) { self.regex = regex }
}

/// A matcher that cannot be built: the message says which argument and why.
public struct RequestMatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
