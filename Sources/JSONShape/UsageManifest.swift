import APIProbeShared
public import Foundation

/// The JSON paths an app's models read while decoding an endpoint's responses.
///
/// Stored as `Snapshots/<api>/<name>.usage.json`:
/// ```json
/// {"apiprobeVersion": "0.1.0", "paths": ["/count", "/recipes", "/recipes/*/title"]}
/// ```
/// Paths are JSON Pointers with `*` for any array item, sorted and unique. Given to the diff, it ranks a
/// change at a path no model reads as `info`.
///
/// ```swift
/// let usage = UsageManifest(paths: ["/recipes/*/title"])
/// usage.isRead("/recipes")              // true: a path below it was read
/// usage.isRead("/recipes/*/social_rank") // false
/// ```
public struct UsageManifest: Sendable, Hashable {
    /// The apiprobe version that wrote the manifest.
    public var apiprobeVersion: String
    /// The paths read, sorted and unique.
    public private(set) var paths: [String]
    private var segments: [[Substring]]

    /// A manifest of `paths`, sorted and made unique.
    ///
    /// - Parameters:
    ///   - paths: the JSON Pointers read, with `*` for any array item.
    ///   - apiprobeVersion: the version that wrote the manifest; this apiprobe's when `nil`.
    public init(paths: some Sequence<String>, apiprobeVersion: String? = nil) {
        self.apiprobeVersion = apiprobeVersion ?? APIProbeShared.apiprobeVersion
        self.paths = Set(paths).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        self.segments = self.paths.map(Self.split)
    }

    public static func == (lhs: UsageManifest, rhs: UsageManifest) -> Bool {
        lhs.apiprobeVersion == rhs.apiprobeVersion && lhs.paths == rhs.paths
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(apiprobeVersion)
        hasher.combine(paths)
    }

    private static func split(_ pointer: String) -> [Substring] {
        pointer.isEmpty ? [] : Array(pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
    }

    /// Whether `path`, or any path below it, was read. A `*` on either side matches any one token.
    ///
    /// - Complexity: O(*n*) in the number of paths.
    public func isRead(_ path: String) -> Bool {
        let wanted = Self.split(path)
        return segments.contains { read in
            guard read.count >= wanted.count else { return false }
            for (a, b) in zip(wanted, read) where a != b && a != "*" && b != "*" { return false }
            return true
        }
    }

    /// The file's bytes: sorted keys, two-space indent, trailing newline.
    public func encoded() -> Data {
        Data(
            JSONTree.object([
                ("apiprobeVersion", .string(apiprobeVersion)),
                ("paths", .array(paths.map(JSONTree.string))),
            ]).fileBytes
        )
    }

    /// Reads a manifest file.
    ///
    /// - Throws: ``JSONShapeError`` with line and column, or the JSON Pointer of a wrong value.
    public init(decoding data: Data, file: String = "<input>") throws(JSONShapeError) {
        let tree = try JSONTree.parse(data, file: file)
        guard case .object = tree else {
            throw JSONShapeError(
                file: file,
                location: .jsonPointer(""),
                expected: "an object with \"paths\"",
                found: tree.typeDescription
            )
        }
        var version = APIProbeShared.apiprobeVersion
        if let value = tree["apiprobeVersion"] {
            guard case .string(let text) = value else {
                throw JSONShapeError(
                    file: file,
                    location: .jsonPointer("/apiprobeVersion"),
                    expected: "a version string",
                    found: value.typeDescription
                )
            }
            version = text
        }
        guard let list = tree["paths"] else {
            throw JSONShapeError(
                file: file,
                location: .jsonPointer("/paths"),
                expected: "an array of JSON Pointers",
                found: "nothing"
            )
        }
        guard case .array(let items) = list else {
            throw JSONShapeError(
                file: file,
                location: .jsonPointer("/paths"),
                expected: "an array of JSON Pointers",
                found: list.typeDescription
            )
        }
        var paths: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let path) = item, path.isEmpty || path.hasPrefix("/") else {
                throw JSONShapeError(
                    file: file,
                    location: .jsonPointer("/paths/\(index)"),
                    expected: "a JSON Pointer (\"\" or starting with \"/\")",
                    found: item.typeDescription
                )
            }
            paths.append(path)
        }
        self.init(paths: paths, apiprobeVersion: version)
    }
}
