import APIProbeShared
public import Foundation
public import HTTPFixtures

/// The JSON paths an app's models read while decoding an endpoint's responses.
///
/// Stored as `Snapshots/<api>/<name>.usage.json`:
/// ```json
/// {"apiprobeVersion": "0.1.0", "optional": ["/recipes/*/image_url"], "paths": ["/count", "/recipes", "/recipes/*/image_url", "/recipes/*/title"]}
/// ```
/// Paths are JSON Pointers with `*` for any array item, sorted and unique. `optional` lists the paths every
/// model reads as optional (`decodeIfPresent`, a property of `Optional` type), and is left out when there are
/// none. Given to the diff, it ranks a change at a path no model reads as `info`, and a property that
/// `became-optional` as `info` where the models already accept its absence.
///
/// ```swift
/// let usage = UsageManifest(paths: ["/recipes/*/title", "/recipes/*/image_url"], optionalPaths: ["/recipes/*/image_url"])
/// usage.isRead("/recipes")                          // true: a path below it was read
/// usage.isRead("/recipes/*/social_rank")            // false
/// usage.readsOptionally("/recipes/*/image_url")     // true
/// ```
public struct UsageManifest: Sendable, Hashable {
    /// The apiprobe version that wrote the manifest.
    public var apiprobeVersion: String
    /// The paths read, sorted and unique.
    public private(set) var paths: [String]
    /// The paths every model reads as optional, sorted and unique: a subset of ``paths``.
    public private(set) var optionalPaths: [String]
    private var segments: [[Substring]]
    private var optionalSegments: [[Substring]]

    /// A manifest of `paths`, sorted and made unique.
    ///
    /// - Parameters:
    ///   - paths: the JSON Pointers read, with `*` for any array item.
    ///   - optionalPaths: those of `paths` that every model reads as optional; others are ignored.
    ///   - apiprobeVersion: the version that wrote the manifest; this apiprobe's when `nil`.
    public init(
        paths: some Sequence<String>, optionalPaths: some Sequence<String> = [String](), apiprobeVersion: String? = nil
    ) {
        self.apiprobeVersion = apiprobeVersion ?? APIProbeShared.apiprobeVersion
        let read = Set(paths)
        self.paths = read.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.optionalPaths = read.intersection(optionalPaths).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.segments = self.paths.map(Self.split)
        self.optionalSegments = self.optionalPaths.map(Self.split)
    }

    public static func == (lhs: UsageManifest, rhs: UsageManifest) -> Bool {
        lhs.apiprobeVersion == rhs.apiprobeVersion && lhs.paths == rhs.paths && lhs.optionalPaths == rhs.optionalPaths
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(apiprobeVersion)
        hasher.combine(paths)
        hasher.combine(optionalPaths)
    }

    private static func split(_ pointer: String) -> [Substring] {
        pointer.isEmpty ? [] : Array(pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// Whether the tokens of `wanted` match the first tokens of `read`, a `*` on either side matching any one.
    private static func matches(_ wanted: [Substring], prefixOf read: [Substring]) -> Bool {
        read.count >= wanted.count && !zip(wanted, read).contains { $0 != $1 && $0 != "*" && $1 != "*" }
    }

    /// Whether `path`, or any path below it, was read. A `*` on either side matches any one token.
    ///
    /// - Complexity: O(*n*) in the number of paths.
    public func isRead(_ path: String) -> Bool {
        let wanted = Self.split(path)
        return segments.contains { Self.matches(wanted, prefixOf: $0) }
    }

    /// Whether every model reads `path` as optional, so that its absence breaks none of them. A `*` on either
    /// side matches any one token.
    public func readsOptionally(_ path: String) -> Bool {
        let wanted = Self.split(path)
        return optionalSegments.contains { $0.count == wanted.count && Self.matches(wanted, prefixOf: $0) }
    }

    /// The file's bytes: sorted keys, two-space indent, trailing newline; `optional` only when there is one.
    public func encoded() -> Data {
        var members: [(key: String, value: JSONValue)] = [("apiprobeVersion", .string(apiprobeVersion))]
        if !optionalPaths.isEmpty { members.append(("optional", .array(optionalPaths.map(JSONValue.string)))) }
        members.append(("paths", .array(paths.map(JSONValue.string))))
        return JSONValue.object(members).fileData
    }

    /// The manifest of `endpoint` (`recipes/search`) in a snapshots folder, `<folder>/<endpoint>.usage.json`, or
    /// `nil` when there is none: the one lookup of `snapshot check`, `contract export` and the demo.
    ///
    /// - Parameter label: how messages write the folder (`Snapshots`).
    /// - Throws: ``InputError`` naming `<label>/<endpoint>.usage.json` for a file that cannot be read.
    package static func inFolder(_ folder: URL, label: String, endpoint: String) throws(InputError) -> UsageManifest? {
        let url = folder.appendingPathComponent(endpoint + ".usage.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let shown = "\(label.hasSuffix("/") ? String(label.dropLast()) : label)/\(endpoint).usage.json"
        return try UsageManifest(decoding: try InputError.contents(of: url, displayName: shown), file: shown)
    }

    /// Reads a manifest file.
    ///
    /// - Throws: `InputError` with line and column, or the JSON Pointer of a wrong value.
    public init(decoding data: Data, file: String = "<input>") throws(InputError) {
        let tree = try JSONValue(parsing: data, file: file, maximumDepth: 2_048)
        guard case .object = tree else {
            throw InputError(
                file: file,
                position: .jsonPointer(""),
                expected: "an object with \"paths\"",
                found: tree.briefDescription
            )
        }
        var version = APIProbeShared.apiprobeVersion
        if let value = tree["apiprobeVersion"] {
            guard case .string(let text) = value else {
                throw InputError(
                    file: file,
                    position: .jsonPointer("/apiprobeVersion"),
                    expected: "a version string",
                    found: value.briefDescription
                )
            }
            version = text
        }
        guard let paths = try Self.pointers(tree["paths"], at: "/paths", file: file) else {
            throw InputError(
                file: file,
                position: .jsonPointer("/paths"),
                expected: "an array of JSON Pointers",
                found: "nothing"
            )
        }
        let optional = try Self.pointers(tree["optional"], at: "/optional", file: file) ?? []
        if let stray = optional.first(where: { !paths.contains($0) }), let index = optional.firstIndex(of: stray) {
            throw InputError(
                file: file,
                position: .jsonPointer("/optional/\(index)"),
                expected: "a path also listed in \"paths\"",
                found: "\"\(stray)\""
            )
        }
        self.init(paths: paths, optionalPaths: optional, apiprobeVersion: version)
    }

    /// The JSON Pointers of the array at `place`; `nil` when there is no such member.
    private static func pointers(_ list: JSONValue?, at place: String, file: String) throws(InputError)
        -> [String]?
    {
        guard let list else { return nil }
        guard case .array(let items) = list else {
            throw InputError(
                file: file,
                position: .jsonPointer(place),
                expected: "an array of JSON Pointers",
                found: list.briefDescription
            )
        }
        var paths: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let path) = item, path.isEmpty || path.hasPrefix("/") else {
                throw InputError(
                    file: file,
                    position: .jsonPointer("\(place)/\(index)"),
                    expected: "a JSON Pointer (\"\" or starting with \"/\")",
                    found: item.briefDescription
                )
            }
            paths.append(path)
        }
        return paths
    }
}
