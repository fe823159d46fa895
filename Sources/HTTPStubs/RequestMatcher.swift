package import APIProbeShared
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
        public var evaluate: @Sendable (StubRequest) -> String? {
            get { explained }
            set {
                explained = newValue
                accepts = { newValue($0) == nil }
                // A condition given another test no longer fixes what its first one did.
                fixes = nil
            }
        }
        private var explained: @Sendable (StubRequest) -> String?
        /// Whether the request satisfies the condition: what matching asks of every candidate stub, without
        /// writing the reason a refusal has (only a near miss's diagnostics read that).
        private(set) var accepts: @Sendable (StubRequest) -> Bool
        /// What the condition fixes exactly, when a stub set's index can stand in for evaluating it.
        var fixes: Fixed?

        public init(_ name: String, evaluate: @escaping @Sendable (StubRequest) -> String?) {
            self.name = name
            explained = evaluate
            accepts = { evaluate($0) == nil }
        }

        /// A condition whose test is `accepts`, and whose reason, asked only of a request it refuses, is
        /// `reason`'s.
        init(
            _ name: String, accepts: @escaping @Sendable (StubRequest) -> Bool,
            reason: @escaping @Sendable (StubRequest) -> String
        ) {
            self.name = name
            self.accepts = accepts
            explained = { accepts($0) ? nil : reason($0) }
        }

        enum Fixed: Sendable, Equatable {
            case method(String)
            case path(String)
            /// The query's items, as `StubSet.queryKey` makes them.
            case query(String)
            /// The scheme, lowercased.
            case scheme(String)
            /// The host, lowercased, and the port when one is fixed.
            case host(String, port: Int?)
        }
    }

    public private(set) var conditions: [Condition] = []
    /// `METHOD path` when the method and the path are exact: lets a set find candidates without
    /// trying every stub.
    package private(set) var exactMethod: String?
    package private(set) var exactPath: String?
    /// Text every path the matcher accepts starts with (the literal start of a path pattern or template), when a
    /// condition requires one: a stub set tries such a stub only for the paths that start so.
    package private(set) var pathPrefix: String?
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
        adding(Condition(name, accepts: predicate) { _ in "\(name) did not accept the request" })
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
        var condition = Condition(
            "method \(expected)", accepts: { $0.method == expected },
            reason: { "method differs: expected \(expected), got \($0.method)" })
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
        var condition = Condition(
            "scheme \(expected)", accepts: { ($0.scheme ?? "") == expected },
            reason: { "scheme differs: expected \(expected), got \($0.scheme ?? "")" })
        condition.fixes = .scheme(expected)
        return adding(condition)
    }

    /// The host (without regard to case) and, when given, the port.
    public func host(_ host: String, port: Int? = nil) -> RequestMatcher {
        let expected = host.lowercased()
        let shown = port.map { "\(expected):\($0)" } ?? expected
        var condition = Condition(
            "host \(shown)",
            accepts: { request in (request.host ?? "") == expected && (port == nil || request.port == port) },
            reason: { request in
                let actual = request.host ?? ""
                if actual != expected { return "host differs: expected \(expected), got \(actual)" }
                return "port differs: expected \(port.map(String.init) ?? "none"), got "
                    + (request.port.map(String.init) ?? "none")
            })
        condition.fixes = .host(expected, port: port)
        var copy = adding(condition)
        copy.exactHost = expected
        return copy
    }

    /// The exact path (`/api/search`).
    public func path(_ path: String) -> RequestMatcher {
        var condition = Condition(
            "path \(path)", accepts: { $0.path == path }, reason: { "path differs: expected \(path), got \($0.path)" })
        condition.fixes = .path(path)
        var copy = adding(condition)
        copy.exactPath = path
        return copy
    }

    /// A path with `{name}` placeholders, each matching one non-empty segment: `/api/recipes/{id}`.
    public func pathTemplate(_ template: String) -> RequestMatcher {
        let expected = template.split(separator: "/", omittingEmptySubsequences: false)
        // The segments before the first placeholder, each followed by its `/` (the whole template when it has
        // none).
        let fixed = expected.prefix { !($0.hasPrefix("{") && $0.hasSuffix("}")) }
        let literal = fixed.count == expected.count ? template : fixed.map { $0 + "/" }.joined()
        return requiringPathPrefix(literal).adding(
            Condition(
                "path \(template)",
                accepts: { request in
                    let actual = request.path.split(separator: "/", omittingEmptySubsequences: false)
                    return actual.count == expected.count
                        && zip(expected, actual).allSatisfy { pattern, segment in
                            (pattern.hasPrefix("{") && pattern.hasSuffix("}") && !segment.isEmpty)
                                || pattern == segment
                        }
                }
            ) { request in "path differs: expected \(template), got \(request.path)" })
    }

    /// A path (percent-encoded, as sent) that matches a regular expression, searched in the whole path: anchor
    /// it with `^…$`.
    ///
    /// Patterns are ECMA-262 regular expressions, as JSON Schema's `pattern` and a fixture's `match.pathPattern`
    /// read them (`\d` and `\w` are ASCII, `\p{L}` a Unicode property).
    ///
    /// - Throws: ``RequestMatcherError`` when `pattern` is not a valid regular expression, so a typo fails
    ///   where the stub is made, not later as a request that matches nothing.
    public func pathMatching(_ pattern: String) throws(RequestMatcherError) -> RequestMatcher {
        let regex = try Self.compile(pattern, for: "pathMatching")
        let (prefix, isWhole) = Self.anchoredLiteral(pattern)
        let name = "path ~ \(pattern)"
        let reason: @Sendable (StubRequest) -> String = {
            "path differs: expected a path matching \(pattern), got \($0.path)"
        }
        if isWhole, prefix.utf8.allSatisfy({ $0 < 0x80 }) {
            // `^/items/10$` is one path: compared as text, and indexed by a stub set as an exact path is.
            var condition = Condition(name, accepts: { $0.path.utf8.elementsEqual(prefix.utf8) }, reason: reason)
            condition.fixes = .path(prefix)
            var copy = adding(condition)
            copy.exactPath = prefix
            return copy
        }
        return requiringPathPrefix(prefix).adding(
            Condition(
                name,
                // The pattern's literal start, compared first, spares the regular expression most paths.
                accepts: { $0.path.utf8.starts(with: prefix.utf8) && Self.search(regex, in: $0.path) },
                reason: reason))
    }

    /// This matcher, noting that its paths start with `prefix` (the longest such text is kept).
    private func requiringPathPrefix(_ prefix: String) -> RequestMatcher {
        var copy = self
        if prefix.utf8.count > (pathPrefix?.utf8.count ?? 0) { copy.pathPrefix = prefix }
        return copy
    }

    /// The literal text a pattern anchored with `^` starts with (an escaped punctuation character stands for
    /// itself), and whether that text is the whole pattern (`^/items/10$`); `("", false)` for a pattern that is not
    /// anchored or holds an alternation (`^/a|/b` does not require `/a`).
    static func anchoredLiteral(_ pattern: String) -> (prefix: String, isWhole: Bool) {
        guard pattern.hasPrefix("^"), !pattern.contains("|") else { return ("", false) }
        var literal = ""
        var rest = pattern.dropFirst().unicodeScalars[...]
        while let scalar = rest.first {
            rest = rest.dropFirst()
            switch scalar {
            case "\\":
                guard let escaped = rest.first, escaped.isASCII,
                    escaped.properties.generalCategory.isPunctuationOrSymbol
                else { return (literal, false) }
                literal.unicodeScalars.append(escaped)
                rest = rest.dropFirst()
            case "$":
                return (literal, rest.isEmpty)
            case "*", "+", "?", "{":
                // A quantifier applies to the character before it, which is then not required.
                if !literal.isEmpty { literal.unicodeScalars.removeLast() }
                return (literal, false)
            case ".", "[", "]", "(", ")", "}", "^":
                return (literal, false)
            default:
                literal.unicodeScalars.append(scalar)
            }
        }
        return (literal, false)
    }

    /// A query item whose value matches a regular expression (ECMA-262, searched in the value).
    ///
    /// - Throws: ``RequestMatcherError`` when `pattern` is not a valid regular expression.
    public func queryItem(_ name: String, matching pattern: String) throws(RequestMatcherError) -> RequestMatcher {
        let regex = try Self.compile(pattern, for: "queryItem(\(name), matching:)")
        return adding(
            Condition("query \(name) ~ \(pattern)") { request in
                let values = request.queryItems.filter { $0.name == name }.map { $0.value ?? "" }
                if values.isEmpty { return "query item \(name) missing" }
                return values.contains { Self.search(regex, in: $0) }
                    ? nil
                    : "query item \(name) differs: expected a value matching \(pattern), got \(values.joined(separator: ", "))"
            })
    }

    /// A header whose value matches a regular expression (ECMA-262, searched in the value; names ignore case).
    /// The value of a credential-named header is never shown.
    ///
    /// - Throws: ``RequestMatcherError`` when `pattern` is not a valid regular expression.
    public func header(_ name: String, matching pattern: String) throws(RequestMatcherError) -> RequestMatcher {
        let regex = try Self.compile(pattern, for: "header(\(name), matching:)")
        let secret = RedactionPolicy.default.isSensitiveHeader(name)
        return adding(
            Condition(
                "header \(name) ~ \(secret ? RedactionPolicy.default.marker : pattern)",
                accepts: { request in request.header(name).map { Self.search(regex, in: $0) } ?? false }
            ) { request in
                guard let actual = request.header(name) else { return "header \(name) missing" }
                if secret { return "header \(name) differs (a credential: the values are not shown)" }
                return "header \(name) differs: expected a value matching \(pattern), got \(actual)"
            })
    }

    /// A cookie of the `Cookie` header with this value (or present with any value when `value` is `nil`).
    /// Cookie values are never shown: a session cookie is a credential.
    public func cookie(_ name: String, _ value: String? = nil) -> RequestMatcher {
        adding(
            Condition("cookie \(name)") { request in
                let values = Self.cookies(of: request).filter { $0.name == name }.map(\.value)
                if values.isEmpty { return "cookie \(name) missing" }
                guard let value, !values.contains(value) else { return nil }
                return "cookie \(name) differs (the values are not shown)"
            })
    }

    /// The cookies of a request's `Cookie` fields, in order (`a=1; b=2`).
    static func cookies(of request: StubRequest) -> [(name: String, value: String)] {
        request.headers.filter { headerNamesMatch($0.name, "Cookie") }.flatMap {
            HeaderFields.cookiePairs(in: $0.value)
        }
    }

    static func compile(_ pattern: String, for place: String) throws(RequestMatcherError) -> ECMARegex {
        do {
            return try ECMARegex(pattern)
        } catch {
            throw RequestMatcherError(
                message: "\(place): expected a regular expression (ECMA-262), found \"\(pattern)\" (\(error))")
        }
    }

    /// Whether `regex` matches somewhere in `text`; a match stopped by its time limit (1 s) is no match.
    static func search(_ regex: ECMARegex, in text: String) -> Bool {
        (try? regex.matches(text)) ?? false
    }

    // MARK: Query, headers, body

    /// Query items: `exact` means these and no others (order ignored); otherwise at least these.
    public func query(_ items: [String: String], exact: Bool = false) -> RequestMatcher {
        query(items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }, exact: exact)
    }

    /// Query items: `exact` means these and no others (order ignored); otherwise at least these.
    public func query(_ items: [URLQueryItem], exact: Bool = false) -> RequestMatcher {
        let expected = items.map { QueryPair(name: $0.name, value: $0.value) }
        // A credential-named item (`api_key`, `access_token`) is compared as any other, never shown.
        let policy = RedactionPolicy.default
        let shown = items.map {
            "\($0.name)=\(policy.isSensitiveParameter($0.name) ? policy.marker : $0.value ?? "")"
        }.joined(separator: "&")
        return adding(
            Condition(exact ? "query exactly \(shown)" : "query \(shown)") { request in
                let actual = request.queryItems.map { QueryPair(name: $0.name, value: $0.value) }
                for item in expected {
                    let sameName = actual.filter { $0.name == item.name }
                    if sameName.isEmpty { return "query item \(item.name) missing" }
                    if !sameName.contains(item) {
                        if policy.isSensitiveParameter(item.name) {
                            return "query item \(item.name) differs (a credential: the values are not shown)"
                        }
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
            Condition(
                shown.map { "header \(name): \($0)" } ?? "header \(name)",
                accepts: { request in request.header(name).map { value == nil || $0 == value } ?? false }
            ) { request in
                guard let actual = request.header(name) else { return "header \(name) missing" }
                if secret { return "header \(name) differs (a credential: the values are not shown)" }
                return "header \(name) differs: expected \(value ?? ""), got \(actual)"
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

    /// A JSON body holding `expected` at `pointer` (equal as JSON values; other members anywhere allowed): a
    /// partial match, as a fixture's `match.bodyPointers`.
    public func jsonBody(at pointer: String, equals expected: JSONValue) -> RequestMatcher {
        let secret = Self.pointerNamesCredential(pointer)
        let shown = secret ? RedactionPolicy.default.marker : Redactor().redactingJSON(expected).compactText
        // The pointer is read once, not for each request (an invalid one finds nothing).
        let tokens = JSONPointer.tokens(of: pointer)
        return adding(
            Condition("JSON body \(pointer.isEmpty ? "/" : pointer) = \(shown)") { request in
                guard let body = request.body else { return Self.noBodyReason }
                guard let actual = try? JSONValue(parsing: body) else { return "body is not JSON" }
                guard let found = tokens.flatMap(actual.value(atTokens:)) else {
                    return "JSON body has nothing at \(pointer.isEmpty ? "/" : pointer)"
                }
                if found == expected { return nil }
                if secret { return "JSON body differs at \(pointer) (a credential: the values are not shown)" }
                return "JSON body differs at \(pointer.isEmpty ? "/" : pointer): expected \(shown), got "
                    + Redactor().redactingJSON(found).compactText
            })
    }

    /// Whether a pointer's last token names a credential (`/password`, `/auth/access_token`).
    static func pointerNamesCredential(_ pointer: String) -> Bool {
        guard let last = pointer.split(separator: "/").last else { return false }
        return RedactionPolicy.default.isSensitiveBodyKey(JSONPointer.unescape(String(last)))
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

extension Unicode.GeneralCategory {
    var isPunctuationOrSymbol: Bool {
        switch self {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation, .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol:
            return true
        default:
            return false
        }
    }
}

/// A matcher that cannot be built: the message says which argument and why.
public struct RequestMatcherError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

extension RequestMatcherError: ExitStatusReporting {
    /// A fixture's `match` that cannot be compiled: status 2.
    package var exitStatus: ExitStatus { .badInput }
}
