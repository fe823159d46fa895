import Foundation

/// A URI reference split as RFC 3986 §3 does, resolved against a base as §5.2 says.
///
/// JSON Schema identifies schemas by URI (`$id`, `$ref`, `$schema`), and most are not URLs a browser would load:
/// `urn:uuid:…`, `tag:…`, relative references such as `folder/item.json#/$defs/x`. `Foundation.URL` resolves only
/// hierarchical URLs, so this small type does the RFC's algorithm for all of them.
struct URIReference: Sendable, Hashable, CustomStringConvertible {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?
    var fragment: String?

    /// Splits `text` by RFC 3986 Appendix B's regular expression.
    init(_ text: String) {
        var rest = Substring(text)
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"),
            let first = rest.first, first.isASCII, first.isLetter,
            rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            authority = String(rest[..<end])
            rest = rest[end...]
        }
        path = String(rest)
    }

    private init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Whether the reference has a scheme (it is a URI, not a relative reference).
    var isAbsolute: Bool { scheme != nil }

    /// The reference without its fragment.
    var withoutFragment: URIReference {
        var copy = self
        copy.fragment = nil
        return copy
    }

    /// `reference` resolved against this base (RFC 3986 §5.2.2, strict).
    func resolving(_ reference: URIReference) -> URIReference {
        if let scheme = reference.scheme {
            return URIReference(
                scheme: scheme, authority: reference.authority, path: Self.removeDotSegments(reference.path),
                query: reference.query, fragment: reference.fragment)
        }
        if reference.authority != nil {
            return URIReference(
                scheme: scheme, authority: reference.authority, path: Self.removeDotSegments(reference.path),
                query: reference.query, fragment: reference.fragment)
        }
        if reference.path.isEmpty {
            return URIReference(
                scheme: scheme, authority: authority, path: path, query: reference.query ?? query,
                fragment: reference.fragment)
        }
        let merged: String
        if reference.path.hasPrefix("/") {
            merged = reference.path
        } else if authority != nil, path.isEmpty {
            merged = "/" + reference.path
        } else if let slash = path.lastIndex(of: "/") {
            merged = path[...slash] + reference.path
        } else {
            merged = reference.path
        }
        return URIReference(
            scheme: scheme, authority: authority, path: Self.removeDotSegments(merged), query: reference.query,
            fragment: reference.fragment)
    }

    /// RFC 3986 §5.2.4.
    static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        var absolute = false
        if input.hasPrefix("/") { absolute = true }
        let segments = input.split(separator: "/", omittingEmptySubsequences: false)
        input = ""
        var result: [Substring] = []
        for (index, segment) in segments.enumerated() {
            if index == 0 && absolute { continue }
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { result.append("") }
            case "..":
                if !result.isEmpty { result.removeLast() }
                if isLast { result.append("") }
            default:
                result.append(segment)
            }
        }
        output = result
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }

    var description: String {
        var text = ""
        if let scheme { text += scheme + ":" }
        if let authority { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        return text
    }

    /// The fragment with percent-escapes decoded (`#/definitions/foo%22bar` → `/definitions/foo"bar`).
    var decodedFragment: String? {
        guard let fragment else { return nil }
        return fragment.removingPercentEncoding ?? fragment
    }
}
