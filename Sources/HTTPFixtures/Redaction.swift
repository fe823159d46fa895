import APIProbeShared
package import Foundation

/// What to redact from an exchange before it touches disk.
///
/// The default policy redacts credentials wherever HTTP usually carries them: the `Authorization`,
/// `Proxy-Authorization`, `Cookie`, `Set-Cookie` and `Set-Cookie2` headers and any header whose name says it
/// holds a key, token, secret, session, password or auth value (`X-API-Key`, `X-Auth-Key`,
/// `Ocp-Apim-Subscription-Key`, `X-Auth-Token`, …; never the `Access-Control-*` headers); URL user-info
/// (`user:pass@`); query parameters and URL fragment parameters such as `api_key`, `key`, `token`,
/// `access_token`, `client_secret`, `password` and `sig`/`signature` (in the URL, in the URLs of `Referer`,
/// `Location`, `Content-Location`, `Link` and `Refresh` headers, and in form-encoded bodies); and JSON body members named `password`, `token`, `apiKey`,
/// `accessToken`, `refresh_token`, `id_token`, `client_secret`, `secret`, `jwt` or `privateKey`, in any case
/// and with or without `_` and `-` (`access_token`, `accessToken` and `Access-Token` are one name).
///
/// A ``Redactor`` also masks the *values* it found that way wherever else they occur (an API's echo of
/// the request's credentials, an HTML page, a multipart form), so a secret named once is masked everywhere.
/// Add the fields of your API:
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
            "authorization", "proxy-authorization", "cookie", "set-cookie", "set-cookie2", "x-api-key", "api-key",
            "apikey", "x-auth-key", "ocp-apim-subscription-key", "x-amz-security-token", "x-goog-api-key",
            "x-csrf-token", "x-xsrf-token",
        ],
        queryParameters: [
            "api_key", "apikey", "api-key", "key", "token", "access_token", "refresh_token", "id_token", "auth",
            "client_secret", "password", "passwd", "pwd", "secret", "sig", "signature", "session", "sessionid",
            "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        ],
        sensitiveWords: ["token", "secret", "password", "api-key", "api_key", "apikey", "credential", "signature"],
        bodyKeys: [
            "password", "passwd", "token", "apiKey", "access_token", "refresh_token", "id_token", "client_secret",
            "secret", "jwt", "privateKey", "authorization", "cookie",
        ]
    )

    /// Words that make a header name sensitive beside ``sensitiveWords`` (too broad for query parameters,
    /// where `keyword` or `sessions` are ordinary).
    static let headerWords = ["key", "session", "auth"]

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

    /// `accessToken`, `access_token`, `Access-Token` → `accesstoken`: how body keys and parameter names compare.
    static func normalizedName(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }

    /// Whether a header holds a credential: a listed name, or a name with a sensitive word in it, except the
    /// CORS `Access-Control-*` headers (`Access-Control-Allow-Credentials: true` is no secret).
    package func isSensitiveHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        if headerNames.contains(lower) { return true }
        guard !lower.hasPrefix("access-control-"), !sensitiveWords.isEmpty else { return false }
        let normalized = Self.normalizedName(lower)
        return sensitiveWords.contains(where: { lower.contains($0) || normalized.contains(Self.normalizedName($0)) })
            || Self.headerWords.contains(where: { lower.contains($0) })
    }

    /// Whether a query, fragment or form parameter holds a credential.
    package func isSensitiveParameter(_ name: String) -> Bool {
        let lower = name.lowercased()
        let normalized = Self.normalizedName(lower)
        return queryParameters.contains(lower)
            || queryParameters.contains(where: { Self.normalizedName($0) == normalized })
            || sensitiveWords.contains(where: { lower.contains($0) || normalized.contains(Self.normalizedName($0)) })
    }

    /// Whether a JSON body member (or a multipart field) holds a credential, its name compared normalised.
    package func isSensitiveBodyKey(_ name: String) -> Bool {
        let normalized = Self.normalizedName(name)
        return bodyKeys.contains(where: { Self.normalizedName($0) == normalized })
    }
}

/// Removes secrets from exchanges and from any text, deterministically: the same input always gives the same
/// bytes.
///
/// A redactor works by name and by value. By name, each credential the policy names (a header, a query or
/// fragment parameter, URL user-info, a JSON body member) is replaced by the policy's marker (`REDACTED`).
/// By value, every credential it has met so far, in any exchange it redacted or was shown, is masked
/// wherever else it occurs: inside other strings, in HTML, multipart and other non-JSON bodies, in error
/// messages. Copies of a redactor share what they learned, so one redactor serves a whole run.
///
/// The exchange's `metadata.redactions` lists each place once, in a fixed order: `request.url`,
/// `request.query.key`, `request.headers.Authorization`, `request.form.password`, `request.body/password`,
/// `response.headers.Set-Cookie`, `response.body/user/token`, `response.body/links/1/href` (a value masked inside
/// a string of a JSON body), `response.body` (a value masked in a text or binary body, or a JSON body that is one
/// string).
///
/// ```swift
/// let redactor = Redactor(.default.redactingBodyKeys(["email"]))
/// let safe = redactor.redact(exchange)
/// try FixtureStore(directory: stubs).write(safe, named: "recipes/search")
/// ```
public struct Redactor: Sendable {
    public var policy: RedactionPolicy
    /// The secret values met so far, shared by every copy of this redactor.
    package let secrets: SecretValues
    /// Whether the values this copy learns are kept for the whole run (a config's own credentials) rather than
    /// as credentials met in traffic (see ``SecretValues/maximumLearned``).
    package var keepsLearnedValues = false

    public init(_ policy: RedactionPolicy = .default) {
        self.init(policy, secrets: SecretValues())
    }

    package init(_ policy: RedactionPolicy, secrets: SecretValues) {
        self.policy = policy
        self.secrets = secrets
    }

    /// The exchange with every secret the policy names replaced by the marker, every secret value known to
    /// this redactor (including those the exchange itself holds) masked wherever it occurs, and the places
    /// listed in `metadata.redactions` (added to those already there).
    ///
    /// - Complexity: O(n × k) in the size of the exchange and the number of secret values known.
    public func redact(_ exchange: Exchange) -> Exchange {
        learnSecrets(in: exchange)
        var result = exchange
        var places: [String] = []

        result.request.url = redactURL(exchange.request.url, place: "request", places: &places)
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

    // MARK: Learning secret values

    /// Adds a secret value (a value substituted from the environment, say), masked from now on by
    /// `replacement` (the policy's marker when `nil`). Values shorter than 4 characters are not masked by value.
    /// A value with a replacement (one from the environment) is kept for the run; others are credentials met in
    /// traffic, of which the latest ``SecretValues/maximumLearned`` are kept.
    package func learn(_ value: String, as replacement: String? = nil) {
        guard !value.contains(policy.marker) else { return }
        secrets.add(
            value, replacement: replacement ?? policy.marker, isPermanent: replacement != nil || keepsLearnedValues)
    }

    /// Learns every credential the policy names in `exchange`, on both sides, without changing it.
    package func learnSecrets(in exchange: Exchange) {
        learnURL(exchange.request.url)
        learnHeaders(exchange.request.headers)
        learnBody(exchange.request.body, contentType: exchange.request.header("Content-Type"))
        learnHeaders(exchange.response.headers)
        learnBody(exchange.response.body, contentType: exchange.response.header("Content-Type"))
    }

    /// Learns the credentials of headers: whole values, the credential after an auth scheme (`Bearer x`),
    /// a Basic password, cookie values; and the credentials of the URLs in URL-bearing headers (`Referer`,
    /// `Location`, `Content-Location`, `Link`, `Refresh`).
    package func learnHeaders(_ headers: HeaderFields) {
        for field in headers {
            let lower = field.name.lowercased()
            if policy.isSensitiveHeader(field.name) {
                learnHeaderValue(lower, field.value)
            } else {
                for range in Self.urlRanges(inHeader: lower, value: field.value) {
                    learnURL(String(field.value[range]))
                }
            }
        }
    }

    /// Where the URLs of a URL-bearing header are in its value: all of a `Referer`, `Location` or
    /// `Content-Location`; each `<…>` of a `Link` (RFC 8288); what follows `url=` in a `Refresh`. None for
    /// any other header.
    static func urlRanges(inHeader lowerName: String, value: String) -> [Range<String.Index>] {
        switch lowerName {
        case "referer", "location", "content-location":
            return [value.startIndex..<value.endIndex]
        case "link":
            var ranges: [Range<String.Index>] = []
            var rest = value[...]
            while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
                ranges.append(value.index(after: open)..<close)
                rest = rest[value.index(after: close)...]
            }
            return ranges
        case "refresh":
            guard let marker = value.range(of: "url=", options: .caseInsensitive) else { return [] }
            var range = marker.upperBound..<value.endIndex
            let quotes: Set<Character> = ["'", "\""]
            if let first = value[range].first, quotes.contains(first) {
                range = value.index(after: range.lowerBound)..<range.upperBound
                if let last = value[range].last, last == first {
                    range = range.lowerBound..<value.index(before: range.upperBound)
                }
            }
            return range.isEmpty ? [] : [range]
        default:
            return []
        }
    }

    private func learnHeaderValue(_ lowerName: String, _ value: String) {
        learn(value)
        if lowerName.contains("cookie") {
            // A Set-Cookie's first segment is the cookie; the rest are its attributes (`Path=/`).
            let cookies = lowerName.hasPrefix("set-cookie") ? value.prefix { $0 != ";" } : Substring(value)
            for pair in HeaderFields.cookiePairs(in: cookies) { learn(pair.value) }
            return
        }
        let words = value.split(separator: " ", maxSplits: 1)
        guard words.count == 2 else { return }
        let credential = String(words[1]).trimmingCharacters(in: .whitespaces)
        learn(credential)
        if words[0].lowercased() == "basic", let decoded = Data(base64Encoded: credential),
            let text = String(data: decoded, encoding: .utf8)
        {
            learn(text)
            if let colon = text.firstIndex(of: ":") { learn(String(text[text.index(after: colon)...])) }
        }
    }

    /// Learns URL user-info (`user:pass`, `pass`) and the values of credential-named query and fragment
    /// parameters (as written and percent-decoded).
    package func learnURL(_ url: String) {
        if let userInfo = Self.userInfoRange(in: url) {
            let info = String(url[userInfo])
            learn(info)
            if let colon = info.firstIndex(of: ":") {
                let password = String(info[info.index(after: colon)...])
                learn(password)
                learn(password.removingPercentEncoding ?? password)
            }
        }
        for (_, value) in sensitivePairs(inURL: url) {
            learn(value)
            learn(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
        }
    }

    /// Learns the credentials of a body: JSON members by name (also in JSON text the reader gave up on, say
    /// nested too deep), form-encoded and multipart fields by name.
    func learnBody(_ body: FixtureBody?, contentType: String?) {
        switch body {
        case .json(let value):
            learnJSON(value, pointer: "", named: false)
        case .text(let text):
            learnText(text, contentType: contentType)
        case .binary(let data):
            if let text = String(data: data, encoding: .utf8) { learnText(text, contentType: contentType) }
        case nil:
            break
        }
    }

    /// Learns the credentials of a received body given as bytes.
    package func learnBody(_ data: Data, contentType: String?) {
        guard !data.isEmpty else { return }
        learnBody(FixtureBody(bytes: data, contentType: contentType), contentType: contentType)
    }

    /// Learns the strings a policy's pointer names (all of its subtree), and those a sensitive member name holds
    /// itself or in an array; an object under a sensitive name (Plaid's `"authorization": {"id": …, "type":
    /// "credit"}`, a resource, not a credential) is searched by name only, so that none of its ordinary words
    /// ("credit") is masked everywhere else, URLs included.
    private func learnJSON(_ value: JSONValue, pointer: String, named: Bool) {
        let pointed = !pointer.isEmpty && policy.bodyPointers.contains(where: { Self.pointer($0, matches: pointer) })
        switch value {
        case .string(let text) where named || pointed:
            learn(text)
        case .object(let members):
            for member in members {
                learnJSON(
                    member.value, pointer: pointer + "/" + JSONPointer.escape(member.key),
                    named: pointed || policy.isSensitiveBodyKey(member.key))
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                learnJSON(item, pointer: "\(pointer)/\(index)", named: named || pointed)
            }
        default:
            break
        }
    }

    private func learnText(_ text: String, contentType: String?) {
        let type = contentType?.lowercased() ?? ""
        if type.contains("x-www-form-urlencoded") {
            for (_, value) in sensitivePairs(text) {
                learn(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
            }
        }
        for match in Self.matches(of: Self.jsonMemberPattern, in: text) where policy.isSensitiveBodyKey(match[1]) {
            learn(match[2])
        }
        if type.contains("multipart/") || text.contains("form-data;") {
            for match in Self.matches(of: Self.multipartFieldPattern, in: text)
            where policy.isSensitiveBodyKey(match[1]) || policy.isSensitiveParameter(match[1]) {
                learn(match[2])
            }
        }
        for url in Self.matches(of: Self.urlPattern, in: text) { learnURL(url[0]) }
    }

    // MARK: Text

    /// `text` with every secret masked: known values, URL user-info, and credential-named parameters of
    /// URLs in it (`?api_key=…`, `#access_token=…`). For messages, reports and any other output.
    package func redact(text: String) -> String {
        var result = secrets.mask(text)
        if result.contains("@") {
            result = Self.replacing(Self.userInfoPattern, in: result) { "\($0[1])\(policy.marker)@" }
        }
        if result.contains("=") {
            result = Self.replacing(Self.parameterPattern, in: result) { match in
                policy.isSensitiveParameter(match[2].removingPercentEncoding ?? match[2])
                    && match[3] != policy.marker ? "\(match[1])\(match[2])=\(policy.marker)" : match[0]
            }
        }
        return result
    }

    /// A URL as it may be shown: user-info replaced by the marker, credential-named query and fragment
    /// parameters masked, known secret values masked; everything else byte for byte. Relative URLs too.
    package func redactURL(_ url: String) -> String {
        var places: [String] = []
        return redactURL(url, place: "", places: &places)
    }

    private func redactURL(_ url: String, place: String, places: inout [String]) -> String {
        var result = url
        if let userInfo = Self.userInfoRange(in: result), !policy.sensitiveWords.isEmpty {
            if result[userInfo] != policy.marker {
                result.replaceSubrange(userInfo, with: policy.marker)
            }
            places.append("\(place).userinfo")
        }
        if let question = result.firstIndex(of: "?") {
            let fragmentStart = result[question...].firstIndex(of: "#") ?? result.endIndex
            let query = result[result.index(after: question)..<fragmentStart]
            let redacted = redactPairs(String(query), place: "\(place).query", places: &places)
            result = String(result[...question]) + redacted + String(result[fragmentStart...])
        }
        if let hash = result.firstIndex(of: "#") {
            let fragment = String(result[result.index(after: hash)...])
            if fragment.contains("=") {
                let redacted = redactPairs(fragment, place: "\(place).fragment", places: &places)
                result = String(result[...hash]) + redacted
            }
        }
        // The scheme and host stay as they are (a host is no credential, and a fixture's URL must stay one).
        var authorityEnd = result.startIndex
        if let scheme = result.range(of: "://") {
            authorityEnd =
                result[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" })
                ?? result.endIndex
        }
        let rest = String(result[authorityEnd...])
        let masked = secrets.mask(rest)
        if masked != rest {
            places.append("\(place).url")
        }
        return String(result[..<authorityEnd]) + masked
    }

    /// The range of `user:pass` in `scheme://user:pass@host/…`, if any.
    static func userInfoRange(in url: String) -> Range<String.Index>? {
        guard let scheme = url.range(of: "://") else { return nil }
        let authorityEnd =
            url[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@"), at > scheme.upperBound else {
            return nil
        }
        return scheme.upperBound..<at
    }

    /// The credential-named `name=value` pairs of a URL's query and fragment.
    private func sensitivePairs(inURL url: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        if let question = url.firstIndex(of: "?") {
            let end = url[question...].firstIndex(of: "#") ?? url.endIndex
            pairs += sensitivePairs(String(url[url.index(after: question)..<end]))
        }
        if let hash = url.firstIndex(of: "#") {
            pairs += sensitivePairs(String(url[url.index(after: hash)...]))
        }
        return pairs
    }

    private func sensitivePairs(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let rawName = String(parts[0])
            let name = rawName.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? rawName
            return policy.isSensitiveParameter(name) ? (name, String(parts[1])) : nil
        }
    }

    // MARK: Headers

    /// Each field redacted in place (a repeated one, each value), order and spelling kept; the places noted in the
    /// order of their names.
    private func redactHeaders(_ headers: HeaderFields, side: String, places: inout [String]) -> HeaderFields {
        var redactedNames: Set<String> = []
        let fields = headers.map { field -> HeaderFields.Field in
            let (name, value) = (field.name, field.value)
            if policy.isSensitiveHeader(name) {
                redactedNames.insert(name)
                return HeaderFields.Field(name: name, value: policy.marker)
            }
            if case let ranges = Self.urlRanges(inHeader: name.lowercased(), value: value), !ranges.isEmpty {
                // Each URL redacted as a request URL is; the text around them (`; rel="next"`) as it came.
                var found: [String] = []
                var redacted = ""
                var last = value.startIndex
                for range in ranges {
                    redacted += value[last..<range.lowerBound]
                    redacted += redactURL(String(value[range]), place: "", places: &found)
                    last = range.upperBound
                }
                redacted += value[last...]
                let masked = secrets.mask(redacted)
                guard !found.isEmpty || masked != redacted else { return field }
                redactedNames.insert(name)
                return HeaderFields.Field(name: name, value: masked)
            }
            let masked = secrets.mask(value)
            guard masked != value else { return field }
            redactedNames.insert(name)
            return HeaderFields.Field(name: name, value: masked)
        }
        places += redactedNames.sorted().map { "\(side).headers.\($0)" }
        return HeaderFields(fields)
    }

    // MARK: Query strings

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

    /// `value` with every member a credential-named key holds masked (by name, as in a fixture's body) and every
    /// secret met so far masked in its strings: for messages that quote a JSON body.
    package func redactingJSON(_ value: JSONValue) -> JSONValue {
        var places: [String] = []
        var masked = false
        return redactJSON(value, pointer: "", places: &places, masked: &masked)
    }

    // MARK: Bodies

    private func redactBody(_ body: FixtureBody?, side: String, contentType: String?, places: inout [String])
        -> FixtureBody?
    {
        switch body {
        case .json(let value):
            var found: [String] = []
            var masked = false
            let redacted = redactJSON(value, pointer: "", places: &found, masked: &masked)
            // Each place by its JSON Pointer, a value masked inside a string too (`response.body/links/1/href`).
            places.append(contentsOf: found.map { "\(side).body\($0)" })
            return .json(redacted)
        case .text(let text):
            var redacted = text
            if contentType?.lowercased().contains("x-www-form-urlencoded") == true {
                redacted = redactPairs(text, place: "\(side).form", places: &places)
            }
            let byName = Self.replacing(Self.jsonMemberPattern, in: redacted) { match in
                policy.isSensitiveBodyKey(match[1]) && match[2] != policy.marker
                    ? match[0].replacingOccurrences(of: "\"\(match[2])\"", with: "\"\(policy.marker)\"") : match[0]
            }
            let masked = redact(text: byName)
            if masked != redacted { places.append("\(side).body") }
            return .text(masked)
        case .binary(let data):
            let masked = secrets.mask(data)
            if masked != data { places.append("\(side).body") }
            return .binary(masked)
        case nil:
            return nil
        }
    }

    /// The value of a member with a sensitive name: a value is the marker, an array keeps its shape with each value
    /// masked, and an object (a resource named like a credential) keeps its shape and is redacted by its own names.
    private func redactNamed(_ value: JSONValue, pointer: String, places: inout [String], masked: inout Bool)
        -> JSONValue
    {
        switch value {
        case .object:
            return redactJSON(value, pointer: pointer, places: &places, masked: &masked)
        case .array(let items):
            return .array(
                items.enumerated().map {
                    redactNamed($0.element, pointer: "\(pointer)/\($0.offset)", places: &places, masked: &masked)
                })
        case .null:
            return value
        default:
            places.append(pointer)
            return .string(policy.marker)
        }
    }

    private func redactJSON(_ value: JSONValue, pointer: String, places: inout [String], masked: inout Bool)
        -> JSONValue
    {
        if !pointer.isEmpty, policy.bodyPointers.contains(where: { Self.pointer($0, matches: pointer) }) {
            places.append(pointer)
            return .string(policy.marker)
        }
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    let path = pointer + "/" + JSONPointer.escape(member.key)
                    if policy.isSensitiveBodyKey(member.key) {
                        return (member.key, redactNamed(member.value, pointer: path, places: &places, masked: &masked))
                    }
                    return (member.key, redactJSON(member.value, pointer: path, places: &places, masked: &masked))
                })
        case .array(let items):
            return .array(
                items.enumerated().map {
                    redactJSON($0.element, pointer: "\(pointer)/\($0.offset)", places: &places, masked: &masked)
                })
        case .string(let text):
            let redacted = redact(text: text)
            if redacted != text {
                masked = true
                places.append(pointer)
            }
            return .string(redacted)
        default:
            return value
        }
    }

    /// Whether `pattern` (a pointer where `*` stands for any array index) names `pointer`.
    private static func pointer(_ pattern: String, matches pointer: String) -> Bool {
        let wanted = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let actual = pointer.split(separator: "/", omittingEmptySubsequences: false)
        guard wanted.count == actual.count else { return false }
        return zip(wanted, actual).allSatisfy { $0 == $1 || ($0 == "*" && Int($1) != nil) }
    }

    // MARK: Patterns

    /// `"name": "value"` in JSON text: 1 the name, 2 the value as written (escapes kept).
    private static let jsonMemberPattern = #""([^"\\]{1,200})"\s*:\s*"((?:[^"\\]|\\.){1,10000})""#
    /// A multipart field: 1 its name, 2 the first line of its value.
    private static let multipartFieldPattern =
        #"form-data;[^\r\n]*?\bname="([^"]{1,200})"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([^\r\n]{1,10000})"#
    /// An absolute URL in text.
    private static let urlPattern = #"[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s"'<>]{1,10000}"#
    /// `scheme://user:pass@`: 1 `scheme://`.
    private static let userInfoPattern = #"([A-Za-z][A-Za-z0-9+.\-]{0,30}://)[^\s/?#@"'<>\\]{1,1000}@"#
    /// `?name=value`, `&name=value`, `#name=value`: 1 the separator, 2 the name, 3 the value. A value stops at a
    /// backslash, so an escaped quote after it (`\"` in JSON and Prometheus text) stays whole.
    private static let parameterPattern = #"([?&#])([A-Za-z0-9_.%\-\[\]]{1,200})=([^&#\s"'<>\\]*)"#

    /// Compiled expressions, compiled once per process.
    private static let compiled = Locked<[String: NSRegularExpression]>([:])

    private static func expression(_ pattern: String) -> NSRegularExpression? {
        compiled.withLock { compiled in
            if let found = compiled[pattern] { return found }
            let made = try? NSRegularExpression(pattern: pattern)
            compiled[pattern] = made
            return made
        }
    }

    /// The capture groups of every match of `pattern` (group 0 is the whole match).
    static func matches(of pattern: String, in text: String) -> [[String]] {
        guard let expression = expression(pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { match in
            (0..<match.numberOfRanges).map { group in
                Range(match.range(at: group), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// `text` with each match of `pattern` replaced by `transform` of its capture groups.
    static func replacing(_ pattern: String, in text: String, _ transform: ([String]) -> String) -> String {
        guard let expression = expression(pattern) else { return text }
        let matches = expression.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else { return text }
        var result = ""
        var cursor = text.startIndex
        for match in matches {
            guard let whole = Range(match.range, in: text) else { continue }
            let groups = (0..<match.numberOfRanges).map { group in
                Range(match.range(at: group), in: text).map { String(text[$0]) } ?? ""
            }
            result += text[cursor..<whole.lowerBound]
            result += transform(groups)
            cursor = whole.upperBound
        }
        result += text[cursor...]
        return result
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
