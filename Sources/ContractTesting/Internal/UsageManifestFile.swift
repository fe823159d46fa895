import APIProbeShared
import Foundation
import HTTPFixtures

/// The usage manifest file format.
///
/// `Snapshots/<api>/<name>.usage.json`:
///
/// ```json
/// {
///   "apiprobeVersion": "0.1.0",
///   "paths": [
///     "/recipes",
///     "/recipes/*/title"
///   ]
/// }
/// ```
///
/// Two-space indent, sorted keys, trailing newline. JSONShape's `UsageManifest` reads and writes the same
/// format; this small codec stands in for it inside ContractTesting.
struct UsageManifestFile: Equatable {
    var paths: [String]
    var version: String = apiprobeVersion

    init(paths: some Sequence<String>, version: String = apiprobeVersion) {
        self.paths = Array(Set(paths)).sorted()
        self.version = version
    }

    func encoded() -> Data {
        let value = JSONValue.object([
            (key: "apiprobeVersion", value: .string(version)),
            (key: "paths", value: .array(paths.map { .string($0) })),
        ])
        return value.serialized(pretty: true, sortedKeys: true) + Data("\n".utf8)
    }

    init(decoding data: Data, file: String) throws(FixtureError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw FixtureError(
                file: file, position: .lineColumn(line: error.line, column: error.column), expected: error.expected,
                found: error.found)
        }
        guard case .object = value else {
            throw FixtureError(
                file: file, position: .jsonPointer(""), expected: "an object", found: value.briefDescription)
        }
        guard case .array(let items)? = value["paths"] else {
            throw FixtureError(
                file: file, position: .jsonPointer("/paths"), expected: "an array of JSON Pointers",
                found: value["paths"]?.briefDescription ?? "nothing")
        }
        var paths: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let path) = item, path.isEmpty || path.hasPrefix("/") else {
                throw FixtureError(
                    file: file, position: .jsonPointer("/paths/\(index)"), expected: "a JSON Pointer string",
                    found: item.briefDescription)
            }
            paths.append(path)
        }
        var version = apiprobeVersion
        if case .string(let text)? = value["apiprobeVersion"] { version = text }
        self.init(paths: paths, version: version)
    }
}
