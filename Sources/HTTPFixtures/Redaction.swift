import Foundation

/// What to redact from an exchange before it touches disk.
///
/// The default policy redacts credentials wherever HTTP usually carries them: the `Authorization`,
/// `Proxy-Authorization`, `Cookie` and `Set-Cookie` headers and any header whose name says it holds a key,
/// token, secret or password (`X-API-Key`, `X-Auth-Token`, `X-Client-Secret`, …); query parameters such as
/// `api_key`, `key`, `token`, `access_token`, `client_secret`, `password` and `sig`/`signature` (in the URL,
/// in `Referer` and `Location` headers, and in form-encoded bodies); and JSON body members named
/// `password`, `access_token`, `refresh_token`, `id_token` or `client_secret`. Add the fields of your API:
///
/// ```swift
/// let policy = RedactionPolicy.default
///     .redactingBodyKeys(["ssn"])                      // a member named "ssn" anywhere in a JSON body
///     .redactingBodyPointers(["/user/email"])          // one place, by JSON Pointer
/// let safe = exchange.redacted(using: policy)
/// safe.metadata.redactions  // ["request.headers.Authorization", "response.body/user/email"]
/// ```
public struct RedactionPolicy: Sendable, Hashable {
    /// Header names redacted whatever their value (compared without regard to case).
    public var headerNames: Set<String>
    /// Query parameter names redacted (compared without regard to case).
    public var queryParameters: Set<String>
    /// Header and query names that contain one of these words (lower case) are redacted too.
    public var sensitiveWords: [String]
    /// JSON body member names redacted wherever they occur (compared without regard to case).
    public var bodyKeys: Set<String>
    /// JSON Pointers (RFC 6901) of body values to redact; `*` stands for any array item.
    public var bodyPointers: [String]
    /// The text that replaces a redacted value.
    public var marker: String

    public init(
        headerNames: Set<String> = [],
        queryParameters: Set<String> = [],
        sensitiveWords: [String] = [],
        bodyKeys: Set<String> = [],
        bodyPointers: [String] = [],
        marker: String = "REDACTED"
    ) {
        self.headerNames = Set(headerNames.map { $0.lowercased() })
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
        self.sensitiveWords = sensitiveWords.map { $0.lowercased() }
        self.bodyKeys = Set(bodyKeys.map { $0.lowercased() })
        self.bodyPointers = bodyPointers
        self.marker = marker
    }

    /// Credentials in headers, query parameters and the usual JSON body members (see the type's discussion).
    public static let `default` = RedactionPolicy(
        headerNames: [
            "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "apikey",
            "x-amz-security-token", "x-goog-api-key", "x-csrf-token", "x-xsrf-token",
        ],
        queryParameters: [
            "api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "id_token", "auth",
            "client_secret", "password", "passwd", "pwd", "secret", "sig", "signature", "session", "sessionid",
            "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        ],
        sensitiveWords: ["token", "secret", "password", "api-key", "api_key", "apikey", "credential", "signature"],
        bodyKeys: ["password", "access_token", "refresh_token", "id_token", "client_secret"]
    )

    /// Nothing is redacted.
    public static let none = RedactionPolicy()

    /// This policy, also redacting JSON body members with these names wherever they occur.
    public func redactingBodyKeys(_ keys: some Sequence<String>) -> RedactionPolicy {
        var policy = self
        policy.bodyKeys.formUnion(keys.map { $0.lowercased() })
        return policy
    }

    /// This policy, also redacting the JSON body values at these pointers (`/user/token`, `/items/*/secret`).
    public func redactingBodyPointers(_ pointers: some Sequence<String>) -> RedactionPolicy {
        var policy = self
        policy.bodyPointers.append(contentsOf: pointers)
        return policy
    }

    /// This policy, also redacting these headers.
    public func redactingHeaders(_ names: some Sequence<String>) -> RedactionPolicy {
        var policy = self
        policy.headerNames.formUnion(names.map { $0.lowercased() })
        return policy
    }

    /// This policy, also redacting these query parameters.
    public func redactingQueryParameters(_ names: some Sequence<String>) -> RedactionPolicy {
        var policy = self
        policy.queryParameters.formUnion(names.map { $0.lowercased() })
        return policy
    }

    func isSensitiveHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return headerNames.contains(lower) || sensitiveWords.contains(where: { lower.contains($0) })
    }

    func isSensitiveParameter(_ name: String) -> Bool {
        let lower = name.lowercased()
        return queryParameters.contains(lower) || sensitiveWords.contains(where: { lower.contains($0) })
    }
}

/// Removes secrets from exchanges, deterministically: the same exchange always gives the same bytes.
///
/// Each redacted value is replaced by the policy's marker (`REDACTED`), and the exchange's
/// `metadata.redactions` lists each place once, in a fixed order: `request.headers.Authorization`,
/// `request.query.key`, `request.form.password`, `request.body/password`, `response.headers.Set-Cookie`,
/// `response.body/user/token`.
///
/// ```swift
/// let redactor = Redactor(.default.redactingBodyKeys(["email"]))
/// let safe = redactor.redact(exchange)
/// try FixtureStore(directory: stubs).write(safe, named: "recipes/search")
/// ```
public struct Redactor: Sendable {
    public var policy: RedactionPolicy

    public init(_ policy: RedactionPolicy = .default) {
        self.policy = policy
    }

    /// The exchange with every secret the policy names replaced by the marker, and the places listed in
    /// `metadata.redactions` (added to those already there).
    ///
    /// - Complexity: O(n) in the size of the exchange.
    public func redact(_ exchange: Exchange) -> Exchange {
        var result = exchange
        var places: [String] = []

        result.request.url = redactQuery(inURL: exchange.request.url, place: "request.query", places: &places)
        result.request.headers = redactHeaders(exchange.request.headers, side: "request", places: &places)
        result.request.body = redactBody(
            exchange.request.body, side: "request", contentType: exchange.request.header("Content-Type"),
            places: &places)
        result.response.headers = redactHeaders(exchange.response.headers, side: "response", places: &places)
        result.response.body = redactBody(
            exchange.response.body, side: "response", contentType: exchange.response.header("Content-Type"),
            places: &places)

        var seen = Set(exchange.metadata.redactions)
        var all = exchange.metadata.redactions
        for place in places where seen.insert(place).inserted { all.append(place) }
        result.metadata.redactions = all
        return result
    }

    // MARK: Headers

    private func redactHeaders(_ headers: [String: String], side: String, places: inout [String]) -> [String: String] {
        var result = headers
        for name in headers.keys.sorted() {
            guard let value = headers[name] else { continue }
            if policy.isSensitiveHeader(name) {
                if value != policy.marker {
                    result[name] = policy.marker
                }
                places.append("\(side).headers.\(name)")
            } else if ["referer", "location", "content-location"].contains(name.lowercased()) {
                var found: [String] = []
                let redacted = redactQuery(inURL: value, place: "", places: &found)
                if !found.isEmpty {
                    result[name] = redacted
                    places.append("\(side).headers.\(name)")
                }
            }
        }
        return result
    }

    // MARK: Query strings

    /// The URL with the values of sensitive query parameters replaced; everything else byte for byte.
    private func redactQuery(inURL url: String, place: String, places: inout [String]) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let redacted = redactPairs(String(query), place: place, places: &places)
        return String(url[...question]) + redacted + String(url[fragmentStart...])
    }

    /// `a=1&key=secret` → `a=1&key=REDACTED`, noting `<place>.key`.
    private func redactPairs(_ text: String, place: String, places: inout [String]) -> String {
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            guard parts.count == 2, policy.isSensitiveParameter(name) else { return String(pair) }
            places.append("\(place).\(name)")
            return "\(rawName)=\(policy.marker)"
        }
        return pairs.joined(separator: "&")
    }

    // MARK: Bodies

    private func redactBody(_ body: Body?, side: String, contentType: String?, places: inout [String]) -> Body? {
        switch body {
        case .json(let value):
            var found: [String] = []
            let redacted = redactJSON(value, pointer: "", places: &found)
            places.append(contentsOf: found.map { "\(side).body\($0)" })
            return .json(redacted)
        case .text(let text) where contentType?.lowercased().contains("x-www-form-urlencoded") == true:
            return .text(redactPairs(text, place: "\(side).form", places: &places))
        default:
            return body
        }
    }

    private func redactJSON(_ value: JSONValue, pointer: String, places: inout [String]) -> JSONValue {
        if !pointer.isEmpty, policy.bodyPointers.contains(where: { Self.pointer($0, matches: pointer) }) {
            places.append(pointer)
            return .string(policy.marker)
        }
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    let path = pointer + "/" + Self.escape(member.key)
                    if policy.bodyKeys.contains(member.key.lowercased()) {
                        places.append(path)
                        return (member.key, .string(policy.marker))
                    }
                    return (member.key, redactJSON(member.value, pointer: path, places: &places))
                })
        case .array(let items):
            return .array(
                items.enumerated().map { redactJSON($0.element, pointer: "\(pointer)/\($0.offset)", places: &places) })
        default:
            return value
        }
    }

    private static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// Whether `pattern` (a pointer where `*` stands for any array index) names `pointer`.
    private static func pointer(_ pattern: String, matches pointer: String) -> Bool {
        let wanted = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let actual = pointer.split(separator: "/", omittingEmptySubsequences: false)
        guard wanted.count == actual.count else { return false }
        return zip(wanted, actual).allSatisfy { $0 == $1 || ($0 == "*" && Int($1) != nil) }
    }
}

extension Exchange {
    /// This exchange with its secrets redacted (see ``Redactor``).
    ///
    /// ```swift
    /// let safe = exchange.redacted(using: .default.redactingBodyKeys(["email"]))
    /// ```
    public func redacted(using policy: RedactionPolicy = .default) -> Exchange {
        Redactor(policy).redact(self)
    }
}
