import Foundation
import HTTPFixtures
import JSONShape

/// The fixtures of `Stubs/` grouped by endpoint (HTTPFixtures' one rule), and the `Snapshots/` beside them.
struct SnapshotWorkspace {
    struct Endpoint {
        /// `<api>/<endpoint>`, the snapshot's name.
        var key: String
        /// The 2xx JSON bodies, serialized, with their files.
        var samples: [(json: Data, file: String)]
        var sampleCount: Int { samples.count }

        /// The snapshot these samples give over `previous` (JSONShape's one rule, shared with `record` and
        /// ContractTesting).
        func snapshot(previous: SchemaSnapshot?, recordingEnums: Bool = false) throws(JSONShapeError)
            -> SchemaSnapshot
        {
            try SchemaSnapshot(samples: samples, previous: previous, recordingEnums: recordingEnums)
        }
    }

    let store: FixtureStore
    let snapshotsDirectory: URL
    let snapshotsArgument: String
    private(set) var endpoints: [Endpoint] = []
    /// Fixtures that are not samples, with the reason: `Stubs/recipes/missing.json: status 404`.
    private(set) var skipped: [String] = []

    init(stubs: String, snapshots: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: stubs, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FixtureError(
                file: stubs,
                position: .file,
                expected: "a folder of fixtures",
                found: isDirectory.boolValue ? "a file" : "no such folder"
            )
        }
        store = FixtureStore(directory: URL(fileURLWithPath: stubs, isDirectory: true))
        snapshotsDirectory = URL(fileURLWithPath: snapshots, isDirectory: true).standardizedFileURL
        snapshotsArgument = snapshots
        for endpoint in try store.endpoints() {
            skipped += endpoint.skipped
            endpoints.append(
                Endpoint(key: endpoint.name, samples: endpoint.samples.map { ($0.body.serialized(), $0.file) }))
        }
    }

    func snapshotURL(for key: String) -> URL {
        snapshotsDirectory.appendingPathComponent(key + ".schema.json")
    }

    /// The snapshot's path as the user wrote the folder: `Snapshots/recipes/search.schema.json`.
    func snapshotPath(for key: String) -> String {
        let base = snapshotsArgument.hasSuffix("/") ? String(snapshotsArgument.dropLast()) : snapshotsArgument
        return "\(base)/\(key).schema.json"
    }

    /// The snapshot of an endpoint, or `nil` when there is none.
    func existingSnapshot(for key: String) throws(JSONShapeError) -> SchemaSnapshot? {
        let url = snapshotURL(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try SchemaSnapshot(decoding: SchemaInput.read(url.path), file: snapshotPath(for: key))
    }

    /// The usage manifest beside an endpoint's snapshot, when there is one.
    func usage(for key: String) throws(JSONShapeError) -> UsageManifest? {
        let url = snapshotsDirectory.appendingPathComponent(key + ".usage.json")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let base = snapshotsArgument.hasSuffix("/") ? String(snapshotsArgument.dropLast()) : snapshotsArgument
        return try UsageManifest(decoding: SchemaInput.read(url.path), file: "\(base)/\(key).usage.json")
    }

    /// Snapshots whose endpoint has no fixture, as paths.
    func orphanedSnapshots() -> [String] {
        let keys = Set(endpoints.map(\.key))
        guard let enumerator = FileManager.default.enumerator(at: snapshotsDirectory, includingPropertiesForKeys: nil)
        else { return [] }
        let base = snapshotsDirectory.path
        var orphans: [String] = []
        for case let url as URL in enumerator where url.lastPathComponent.hasSuffix(".schema.json") {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            let key = String(path.dropFirst(base.count + 1).dropLast(".schema.json".count))
            if !keys.contains(key) { orphans.append(snapshotPath(for: key)) }
        }
        return orphans.sorted()
    }
}
