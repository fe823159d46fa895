import Foundation

/// JSON Pointer (RFC 6901) tokens, escaped and unescaped in one place for every module.
package enum JSONPointer {
    /// `a/b~c` → `a~1b~0c`: a member name as one token of a pointer.
    package static func escape(_ token: String) -> String {
        guard token.contains("~") || token.contains("/") else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// `a~1b~0c` → `a/b~c`.
    package static func unescape(_ token: some StringProtocol) -> String {
        guard token.contains("~") else { return String(token) }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    /// The unescaped tokens of a pointer (`/a/b~1c` → `a`, `b/c`); `[]` for the root `""`; `nil` when the
    /// pointer is neither empty nor starts with `/`.
    package static func tokens(of pointer: String) -> [String]? {
        guard !pointer.isEmpty else { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(unescape)
    }
}
