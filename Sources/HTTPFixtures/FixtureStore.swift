import APIProbeShared
public import Foundation

/// A folder of recorded exchanges, `Stubs/` by convention, each stored as `<api>/<name>.json`.
///
/// ```swift
/// let store = try FixtureStore(relativeTo: #filePath)      // the nearest Stubs/ above this test file
/// let search = try store.exchange(named: "recipes/search")
/// ```
public struct FixtureStore: Sendable, Hashable {
    /// The folder that holds the fixtures.
    public var directory: URL

    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The nearest folder named `folder` in the ancestors of a source file.
    ///
    /// - Parameters:
    ///   - filePath: pass `#filePath` from a test file.
    ///   - folder: the folder's name, `Stubs` by default.
    /// - Throws: ``InputError`` when no ancestor holds such a folder.
    public init(relativeTo filePath: StaticString = #filePath, folder: String = "Stubs") throws(InputError) {
        let path = "\(filePath)"
        guard let found = Self.findAncestorFolder(named: folder, from: URL(fileURLWithPath: path)) else {
            throw InputError(
                file: path, position: .file, expected: "a folder named \(folder) in one of its parent folders",
                found: "none")
        }
        self.init(directory: found)
    }

    /// Walks up from `start` and returns the first `<ancestor>/<name>` that is a folder.
    public static func findAncestorFolder(named name: String, from start: URL) -> URL? {
        var current = start.deletingLastPathComponent()
        while true {
            let candidate = current.appendingPathComponent(name, isDirectory: true)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue
            {
                return candidate
            }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }

    /// The file of a fixture: `recipes/search` is `<directory>/recipes/search.json`.
    public func url(for name: String) -> URL {
        directory.appendingPathComponent(Self.fileName(for: name))
    }

    /// A fixture's file below the store: `recipes/search` → `recipes/search.json`.
    static func fileName(for name: String) -> String {
        name.hasSuffix(".json") ? name : name + ".json"
    }

    /// The path used in messages: relative to the current folder when the store is below it.
    package func displayPath(for url: URL) -> String {
        APIProbeShared.displayPath(url)
    }

    /// Reads one fixture.
    public func exchange(named name: String) throws(InputError) -> Exchange {
        try Exchange.load(from: url(for: name), displayName: APIProbeShared.displayPath(url(for: name)))
    }

    /// The names of every fixture below the store (`recipes/search`, …), sorted; below `api` only when given.
    public func names(in api: String? = nil) -> [String] {
        let root = api.map { directory.appendingPathComponent($0, isDirectory: true) } ?? directory
        guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        let base = directory.standardizedFileURL.path
        var names: [String] = []
        for case let url as URL in enumerator where url.pathExtension == "json" {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            names.append(String(path.dropFirst(base.count + 1).dropLast(".json".count)))
        }
        return names.sorted()
    }

    /// The folder that holds an API's scenarios: `<api>/scenarios/<scenario>/<fixture>.json`.
    public static let scenariosFolder = "scenarios"

    /// The scenario a fixture belongs to: the folder below the first `scenarios` folder of its name
    /// (`recipes/scenarios/outage/search` belongs to `outage`); `nil` for a fixture served in every scenario.
    ///
    /// A scenario's fixtures are served over the others only while it is active (`stubAll(from:in:scenario:)` in
    /// HTTPStubs, `apiprobe serve --scenario` and its admin API), so that one folder holds the usual answers and,
    /// beside them, the few that differ in an outage, an empty account or a new user's first launch.
    public static func scenario(ofFixture name: String) -> String? {
        splitScenario(ofFixture: name)?.scenario
    }

    /// A scenario's fixture name split into its scenario and the name it stands in for:
    /// `recipes/scenarios/empty/search` → (`empty`, `recipes/search`); `nil` for a fixture of no scenario.
    static func splitScenario(ofFixture name: String) -> (scenario: String, standsFor: String)? {
        var parts = name.split(separator: "/", omittingEmptySubsequences: true)
        guard let index = parts.firstIndex(of: Substring(scenariosFolder)), index + 2 < parts.count else { return nil }
        let scenario = String(parts[index + 1])
        parts.removeSubrange(index...(index + 1))
        return (scenario, parts.joined(separator: "/"))
    }

    /// The scenarios below the store (below `api` when given), sorted.
    public func scenarioNames(in api: String? = nil) -> [String] {
        Self.scenarioNames(among: names(in: api))
    }

    /// The scenarios the fixtures named `names` belong to, sorted.
    package static func scenarioNames(among names: some Sequence<String>) -> [String] {
        Array(Set(names.compactMap(scenario(ofFixture:)))).sorted()
    }

    /// Writes one fixture atomically; an unchanged exchange leaves the file byte-identical.
    ///
    /// - Returns: whether the file's bytes changed.
    @discardableResult
    public func write(_ exchange: Exchange, named name: String) throws(InputError) -> Bool {
        let target = url(for: name)
        return try AtomicFile.writeIfChanged(
            exchange.encoded(), to: target, displayName: APIProbeShared.displayPath(target), inside: directory)
    }

}

extension Exchange {
    /// Reads a fixture file.
    ///
    /// - Parameters:
    ///   - url: the fixture file.
    ///   - displayName: the name used in errors; the file's path when `nil`.
    public static func load(from url: URL, displayName: String? = nil) throws(InputError) -> Exchange {
        let name = displayName ?? url.path
        return try Exchange(decoding: read(url, displayName: name), file: name)
    }

    /// A fixture file's bytes; an unreadable or missing file is a ``InputError`` naming it.
    static func read(_ url: URL, displayName name: String) throws(InputError) -> Data {
        try InputError.contents(of: url, displayName: name, expected: "a readable fixture file")
    }

    /// Writes the fixture file atomically (a temporary file in the same folder, then a rename).
    public func write(to url: URL) throws(InputError) {
        try AtomicFile.write(encoded(), to: url, displayName: url.path)
    }
}
