import Foundation

/// Matching request paths to OpenAPI path templates (`/repos/{owner}/{repo}`): the one rule `openapi check`,
/// `openapi export` and ContractTesting's request conformance share.
package enum PathTemplate {
    /// The path of a URL (percent-encoded, as sent): `https://h/a/b?q=1` → `/a/b`.
    package static func path(of url: String) -> String {
        var rest = Substring(url)
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        if let scheme = rest.range(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        return rest.isEmpty ? "/" : String(rest)
    }

    package static func stripBase(_ path: String, basePaths: [String]) -> String {
        for base in basePaths where path == base || path.hasPrefix(base + "/") {
            let rest = String(path.dropFirst(base.count))
            return rest.isEmpty ? "/" : rest
        }
        return path
    }

    package static func segments(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The path parameters (decoded) and the count of literal segments, when `segments` fit `template`.
    package static func match(template: String, segments: [String]) -> ([String: String], Int)? {
        let parts = Self.segments(template)
        guard parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        var literals = 0
        for (part, segment) in zip(parts, segments) {
            if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
                values[String(part.dropFirst().dropLast())] = segment.removingPercentEncoding ?? segment
            } else if part.contains("{") {
                // A segment mixing text and a parameter (`{id}.json`): a prefix and suffix must match.
                guard let open = part.firstIndex(of: "{"), let close = part.firstIndex(of: "}"), open < close else {
                    return nil
                }
                let prefix = part[..<open]
                let suffix = part[part.index(after: close)...]
                guard segment.hasPrefix(prefix), segment.hasSuffix(suffix),
                    segment.count >= prefix.count + suffix.count
                else { return nil }
                let value = segment.dropFirst(prefix.count).dropLast(suffix.count)
                values[String(part[part.index(after: open)..<close])] =
                    String(value).removingPercentEncoding ?? String(value)
            } else {
                guard part == segment || part == (segment.removingPercentEncoding ?? segment) else { return nil }
                literals += 1
            }
        }
        return (values, literals)
    }
}
