import Foundation

/// JSON Pointer (RFC 6901) tokens, escaped and unescaped in one place for every module.
package enum JSONPointer {
    /// `a/b~c` → `a~1b~0c`: a member name as one token of a pointer.
    package static func escape(_ token: String) -> String {
        // A byte scan: String.contains(String) goes through Foundation's string search, which was most of the
        // cost of building pointers on a large suite.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// `a~1b~0c` → `a/b~c`.
    package static func unescape(_ token: some StringProtocol) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// The unescaped tokens of a pointer (`/a/b~1c` → `a`, `b/c`); `[]` for the root `""`; `nil` when it is not
    /// a JSON Pointer (RFC 6901): it is neither empty nor starts with `/`, or a `~` is followed by anything but
    /// `0` or `1` (`/a~2b`).
    package static func tokens(of pointer: String) -> [String]? {
        guard !pointer.isEmpty else { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard raw.utf8.contains(UInt8(ascii: "~")) else {
                tokens.append(String(raw))
                continue
            }
            var token = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                    escaping = false
                } else if character == "~" {
                    escaping = true
                } else {
                    token.append(character)
                }
            }
            guard !escaping else { return nil }
            tokens.append(token)
        }
        return tokens
    }
}

/// A glob over JSON Pointers: `*` stands for one token or part of one (`/*/user`, `/*_url`), `**` for any
/// number of tokens (`/**/avatar_url`); other tokens compare exactly. A pattern without `*` is a plain path.
package struct PointerPattern: Sendable, Hashable {
    let text: String
    private let tokens: [String]

    package init(_ text: String) {
        self.text = text
        tokens = JSONPointer.tokens(of: text) ?? [text]
    }

    /// Whether `pointer` (whose `*` tokens stand for array items) matches.
    package func matches(_ pointer: String) -> Bool {
        guard let path = JSONPointer.tokens(of: pointer) else { return false }
        return Self.match(tokens[...], path[...])
    }

    private static func match(_ pattern: ArraySlice<String>, _ path: ArraySlice<String>) -> Bool {
        guard let first = pattern.first else { return path.isEmpty }
        if first == "**" {
            var rest = path
            while true {
                if match(pattern.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard let token = path.first, matchToken(Array(first.utf8)[...], Array(token.utf8)[...]) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// One token against one pattern token, where `*` matches any run of bytes.
    private static func matchToken(_ pattern: ArraySlice<UInt8>, _ token: ArraySlice<UInt8>) -> Bool {
        guard let first = pattern.first else { return token.isEmpty }
        if first == UInt8(ascii: "*") {
            var rest = token
            while true {
                if matchToken(pattern.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        }
        guard token.first == first else { return false }
        return matchToken(pattern.dropFirst(), token.dropFirst())
    }
}
