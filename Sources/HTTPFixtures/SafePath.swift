package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File names made from outside input (a HAR entry's method and host, a config's API and endpoint names),
/// and the check that a file lands inside the folder it was meant for.
package enum SafePath {
    /// The longest file name made, in UTF-8 bytes: well under the 255 of common file systems, with room for
    /// a `-2` suffix and `.json`.
    static let maximumNameLength = 120

    /// `raw` reduced to one safe file name: percent-escapes decoded (so `%2e%2e` is `..`), path separators,
    /// control characters and characters that are not portable replaced by `_`, leading dots dropped (no
    /// `..`, no hidden file), cut to ``maximumNameLength`` bytes; `fallback` when nothing is left.
    ///
    /// ```swift
    /// SafePath.fileName("..", fallback: "unknown-host")     // "unknown-host"
    /// SafePath.fileName("get/../../x", fallback: "entry")   // "get_.._.._x"
    /// ```
    package static func fileName(_ raw: String, fallback: String) -> String {
        var decoded = raw
        // Decode until stable, so `%252e` cannot survive as `%2e` and decode later.
        for _ in 0..<3 {
            guard let next = decoded.removingPercentEncoding, next != decoded else { break }
            decoded = next
        }
        var name = ""
        for scalar in decoded.unicodeScalars {
            switch scalar {
            case "/", "\\", ":", "*", "?", "\"", "<", ">", "|", "%":
                name += "_"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                name += "_"
            case _ where scalar.properties.isWhitespace && scalar != " ":
                name += "_"
            default:
                name.unicodeScalars.append(scalar)
            }
        }
        name = String(name.drop(while: { $0 == "." || $0 == " " }))
        while name.hasSuffix(".") || name.hasSuffix(" ") { name.removeLast() }
        while name.utf8.count > maximumNameLength { name.removeLast() }
        return name.isEmpty ? fallback : name
    }

    /// A relative path of safe names (`recipes/search`): each `/`-separated part made safe by ``fileName(_:fallback:)``.
    static func relativePath(_ raw: String, fallback: String) -> String {
        raw.split(separator: "/", omittingEmptySubsequences: true)
            .map { fileName(String($0), fallback: fallback) }
            .joined(separator: "/")
            .nonEmpty ?? fallback
    }

    /// Whether `url` is inside `folder` (below it, not the folder itself). Symbolic links in `folder` and in
    /// the existing ancestors of `url` are resolved; a link at `url` itself is not (the writer looks at it).
    package static func isInside(_ url: URL, folder: URL) -> Bool {
        let base = resolved(folder.standardizedFileURL.path)
        let standardized = url.standardizedFileURL.path
        let parent = resolved((standardized as NSString).deletingLastPathComponent)
        let path = (parent as NSString).appendingPathComponent((standardized as NSString).lastPathComponent)
        return path.hasPrefix(base == "/" ? "/" : base + "/") && path != base
    }

    /// The path with the symbolic links of its longest existing ancestor resolved.
    static func resolved(_ standardized: String) -> String {
        var existing = standardized
        var rest: [String] = []
        while !existing.isEmpty, existing != "/", !FileManager.default.fileExists(atPath: existing) {
            rest.insert((existing as NSString).lastPathComponent, at: 0)
            existing = (existing as NSString).deletingLastPathComponent
        }
        let real = (existing.isEmpty ? "/" : existing).withCString { pointer -> String? in
            guard let result = realpath(pointer, nil) else { return nil }
            defer { free(result) }
            return String(cString: result)
        }
        var path = real ?? existing
        for part in rest { path = (path as NSString).appendingPathComponent(part) }
        return path
    }
}

extension String {
    fileprivate var nonEmpty: String? { isEmpty ? nil : self }
}
