import APIProbeShared
import Foundation
import HTTPFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fixture's response filled from the request it answers (`"template": true` in its metadata), the same in the
/// stubs and in `apiprobe serve`.
///
/// Placeholders, in the body's strings (a JSON body), the text (a text body) and the header values:
///
/// | placeholder | value |
/// |---|---|
/// | `{{request.method}}` | `GET` |
/// | `{{request.path}}` | the path, decoded (`/api/recipes/42`) |
/// | `{{request.path.id}}` | the path parameter `id` of the fixture's `match.path` template, decoded |
/// | `{{request.query.q}}` | the first value of the query item `q`, decoded |
/// | `{{request.header.X-Trace}}` | the header's value (name in any case; repeats joined with `, `) |
/// | `{{request.cookie.session}}` | the cookie's value |
/// | `{{request.body/items/0/sku}}` | the JSON body's value at a JSON Pointer (`{{request.body}}`: all of it) |
/// | `{{request.id}}` | the request's number among those the stub set answered since it was made or reset (1, 2, …) |
///
/// In a JSON body, a string that is exactly one body placeholder becomes that JSON value (a number stays a number);
/// elsewhere a value is inserted as text (a JSON value as its compact JSON). A placeholder whose value the request
/// does not have becomes empty text, and `null` where it stands alone in a JSON body. Text between `{{` and `}}`
/// that is none of these is left as it is, so a typo shows in the answer. Everything is deterministic: the same
/// requests in the same order get the same answers.
enum ResponseTemplate {
    static func fill(_ response: StubResponse, of exchange: Exchange, from request: StubRequest, number: Int)
        -> StubResponse
    {
        let values = Values(request: request, exchange: exchange, number: number)
        var filled = response
        filled.headers = HeaderFields(
            response.headers.map { HeaderFields.Field(name: $0.name, value: substitute(in: $0.value, values)) })
        switch exchange.response.body {
        case .json(let value)?:
            filled.body = fill(value, values).serialized()
        case .text(let text)?:
            filled.body = Data(substitute(in: text, values).utf8)
        case .binary?, nil:
            break
        }
        return filled
    }

    /// What the placeholders of one request stand for.
    struct Values {
        let request: StubRequest
        let exchange: Exchange
        let number: Int
        /// The request's body as JSON, parsed once when a placeholder asks for it.
        let json: JSONValue?

        init(request: StubRequest, exchange: Exchange, number: Int) {
            self.request = request
            self.exchange = exchange
            self.number = number
            json = request.body.flatMap { try? JSONValue(parsing: $0) }
        }

        /// The value of a placeholder's inside (`request.query.q`): text, or a JSON value for a body pointer;
        /// `.some(nil)` when the request has none; `nil` when it is no placeholder.
        func value(of name: String) -> Filled?? {
            guard name.hasPrefix("request.") || name.hasPrefix("request/") || name == "request.body" else { return nil }
            let rest = name.dropFirst("request".count)
            if rest == ".method" { return .text(request.method) }
            if rest == ".path" { return .text(request.path) }
            if rest == ".id" { return .text(String(number)) }
            if rest == ".body" {
                return json.map(Filled.json) ?? request.body.map { .text(String(decoding: $0, as: UTF8.self)) }
            }
            if rest.hasPrefix(".body/") {
                let pointer = String(rest.dropFirst(".body".count))
                guard JSONPointer.tokens(of: pointer) != nil else { return nil }
                return .some(json?.value(at: pointer).map(Filled.json))
            }
            // `request.<part>.<name>`: a path parameter, a query item, a header, a cookie.
            let parts = rest.dropFirst().split(separator: ".", maxSplits: 1)
            guard parts.count == 2, !parts[1].isEmpty else { return nil }
            let key = String(parts[1])
            switch parts[0] {
            case "path":
                guard let template = exchange.metadata.match?.path else { return .some(nil) }
                let values = PathTemplate.match(template: template, segments: PathTemplate.segments(request.path))?.0
                return .some(values?[key].map(Filled.text))
            case "query": return .some(request.queryItems.first { $0.name == key }.map { .text($0.value ?? "") })
            case "header": return .some(request.header(key).map(Filled.text))
            case "cookie":
                return .some(RequestMatcher.cookies(of: request).first { $0.name == key }.map { .text($0.value) })
            default: return nil
            }
        }
    }

    enum Filled {
        case text(String)
        case json(JSONValue)

        var text: String {
            switch self {
            case .text(let text): return text
            case .json(.string(let text)): return text
            case .json(let value): return String(decoding: value.serialized(), as: UTF8.self)
            }
        }
    }

    static func fill(_ value: JSONValue, _ values: Values) -> JSONValue {
        switch value {
        case .string(let text):
            guard text.contains("{{") else { return value }
            // A string that is one placeholder of the body is replaced by the JSON value itself.
            if text.hasPrefix("{{"), text.hasSuffix("}}"), text.dropFirst(2).dropLast(2).firstIndex(of: "}") == nil {
                let name = String(text.dropFirst(2).dropLast(2)).trimmingCharacters(in: .whitespaces)
                if name.hasPrefix("request.body"), let found = values.value(of: name) {
                    switch found {
                    case .json(let json)?: return json
                    case .text(let text)?: return .string(text)
                    case nil: return .null
                    }
                }
            }
            return .string(substitute(in: text, values))
        case .array(let items):
            return .array(items.map { fill($0, values) })
        case .object(let members):
            return .object(members.map { ($0.key, fill($0.value, values)) })
        default:
            return value
        }
    }

    /// `text` with each placeholder replaced by its value as text.
    static func substitute(in text: String, _ values: Values) -> String {
        guard text.contains("{{") else { return text }
        var output = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            output += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                rest = rest[open.lowerBound...]
                break
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let found = values.value(of: name) {
                output += found?.text ?? ""
            } else {
                output += rest[open.lowerBound..<close.upperBound]
            }
            rest = rest[close.upperBound...]
        }
        return output + rest
    }
}
