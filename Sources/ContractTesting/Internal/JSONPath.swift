import Foundation
import HTTPFixtures

/// One step of a path into a JSON document: an object member or an array item.
enum PathToken: Hashable, Sendable {
    case key(String)
    case index(Int)
}

extension Array where Element == PathToken {
    /// The JSON Pointer (RFC 6901) of this path: `/recipes/3/social_rank`.
    var pointer: String {
        map { token in
            switch token {
            case .key(let key): return "/" + JSONValue.escapePointerToken(key)
            case .index(let index): return "/\(index)"
            }
        }.joined()
    }

    /// The pointer with `*` for every array item: `/recipes/*/social_rank`.
    var generalizedPointer: String {
        map { token in
            switch token {
            case .key(let key): return "/" + JSONValue.escapePointerToken(key)
            case .index: return "/*"
            }
        }.joined()
    }
}

/// The tokens of a JSON Pointer: `/recipes/3` → `recipes`, `3` (array indices are resolved against `value`).
func pathTokens(of pointer: String, in value: JSONValue) -> [PathToken]? {
    guard !pointer.isEmpty else { return [] }
    guard pointer.hasPrefix("/") else { return nil }
    var tokens: [PathToken] = []
    var current = value
    for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
        let token = JSONValue.unescapePointerToken(raw)
        switch current {
        case .object:
            guard let next = current[token] else { return nil }
            tokens.append(.key(token))
            current = next
        case .array(let items):
            guard let index = Int(token), items.indices.contains(index) else { return nil }
            tokens.append(.index(index))
            current = items[index]
        default:
            return nil
        }
    }
    return tokens
}
