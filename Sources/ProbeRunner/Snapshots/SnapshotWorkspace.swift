import APIProbeShared
package import FixtureImport
package import Foundation
package import HTTPFixtures
package import JSONSchemaValidation
package import JSONShape

/// The fixtures of `Stubs/` grouped by endpoint (HTTPFixtures' one rule), and the `Snapshots/` beside them.
package struct SnapshotWorkspace {
    package struct Endpoint {
        /// `<api>/<endpoint>`, the snapshot's name.
        package var key: String
        /// The 2xx JSON bodies' bytes, with their files.
        var samples: [(json: Data, file: String)]
        /// Its fixtures that are not samples, with the reason.
        var skipped: [String] = []
        var sampleCount: Int { samples.count }

        /// The snapshot these samples give over `previous` (JSONShape's one rule, shared with `record` and
        /// ContractTesting).
        func snapshot(previous: SchemaSnapshot?, recordingEnums: Bool = false) throws(InputError)
            -> SchemaSnapshot
        {
            try SchemaSnapshot(samples: samples, previous: previous, recordingEnums: recordingEnums)
        }
    }

    let store: FixtureStore
    let snapshotsDirectory: URL
    let snapshotsArgument: String
    package private(set) var endpoints: [Endpoint] = []
    /// Fixtures that are not samples, with the reason: `Stubs/recipes/missing.json: status 404`.
    package private(set) var skipped: [String] = []
    /// Whether ``select(_:)`` kept a part: snapshots outside it are not orphans.
    package private(set) var isSelection = false

    /// - Parameters:
    ///   - stubs: the folder of fixtures.
    ///   - snapshots: the folder of snapshots.
    ///   - snapshotsLabel: how messages write the snapshots folder (the argument as the user typed it, by
    ///     default; `Snapshots` for a folder the demo made).
    package init(stubs: String, snapshots: String, snapshotsLabel: String? = nil) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: stubs, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw InputError(
                file: stubs,
                position: .file,
                expected: "a folder of fixtures",
                found: isDirectory.boolValue ? "a file" : "no such folder"
            )
        }
        store = FixtureStore(directory: URL(fileURLWithPath: stubs, isDirectory: true))
        snapshotsDirectory = URL(fileURLWithPath: snapshots, isDirectory: true).standardizedFileURL
        snapshotsArgument = snapshotsLabel ?? snapshots
        for endpoint in try store.endpoints() {
            skipped += endpoint.skipped
            endpoints.append(
                Endpoint(
                    key: endpoint.name, samples: endpoint.samples.map { ($0.json, $0.file) },
                    skipped: endpoint.skipped))
        }
    }

    /// Keeps only the endpoints one of `selections` selects (`--only`): a name (`adyen`, `adyen/getStore`,
    /// `getStore`: whole components of `<api>/<endpoint>`), or a path prefix or template with or without a
    /// method, matched against the request of the endpoint's first fixture, with or without the base paths of
    /// the `operations.json` beside its snapshot.
    ///
    /// - Throws: `InputError` for a selection that selects no endpoint, or a fixture that cannot be read.
    package mutating func select(_ selections: [ImportSelection]) throws(InputError) {
        guard !selections.isEmpty else { return }
        var used = Set<ImportSelection>()
        var kept: [Endpoint] = []
        var basePaths: [String: [String]] = [:]
        var firstFixture: [String: String] = [:]
        if selections.contains(where: { !$0.isFolder }) {
            for name in store.names() where firstFixture[FixtureStore.endpointName(ofFixture: name)] == nil {
                firstFixture[FixtureStore.endpointName(ofFixture: name)] = name
            }
        }
        for endpoint in endpoints {
            let components = endpoint.key.split(separator: "/").map(String.init)
            let request = try firstFixture[endpoint.key].map { name throws(InputError) in
                try store.exchange(named: name).request
            }
            let api = components.dropLast().joined(separator: "/")
            if basePaths[api] == nil {
                let url = snapshotsDirectory.appendingPathComponent(api).appendingPathComponent(OperationsFile.fileName)
                basePaths[api] = (try? OperationsFile.read(url, displayName: url.path))?.basePaths ?? []
            }
            let chosen = selections.filter { selection in
                if selection.isFolder { return selection.selects(method: "", url: "", folders: components) }
                guard let request else { return false }
                return selection.selects(method: request.method, url: request.url, basePaths: basePaths[api] ?? [])
            }
            used.formUnion(chosen)
            if !chosen.isEmpty { kept.append(endpoint) }
        }
        for selection in selections where !used.contains(selection) {
            throw InputError(
                file: store.directory.path, position: .file,
                expected:
                    "an endpoint that --only \(selection) selects (an endpoint name such as api/name, a path prefix or a template)",
                found: "none of \(endpoints.count) endpoints")
        }
        endpoints = kept
        skipped = kept.flatMap(\.skipped)
        isSelection = true
    }

    /// A snapshot, usage manifest or sample file's bytes; a missing or unreadable file, or a folder, is a
    /// `InputError` naming it.
    package static func read(_ path: String) throws(InputError) -> Data {
        try InputError.contents(of: URL(fileURLWithPath: path), displayName: path)
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
    func existingSnapshot(for key: String) throws(InputError) -> SchemaSnapshot? {
        let url = snapshotURL(for: key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try SchemaSnapshot(
            decoding: Self.read(url.path), file: snapshotPath(for: key), folder: url.deletingLastPathComponent())
    }

    /// The usage manifest beside an endpoint's snapshot, when there is one.
    package func usage(for key: String) throws(InputError) -> UsageManifest? {
        try UsageManifest.inFolder(snapshotsDirectory, label: snapshotsArgument, endpoint: key)
    }

    /// Snapshots whose endpoint has no fixture, as paths. A snapshot that `openapi import` wrote from a spec
    /// (listed in the `operations.json` beside it) is not an orphan: it comes from the spec, not from fixtures.
    func orphanedSnapshots() -> [String] {
        if isSelection { return [] }
        let keys = Set(endpoints.map(\.key))
        let (candidates, specDerived) = snapshotKeys()
        return candidates.filter { !keys.contains($0) && !specDerived.contains($0) }.map(snapshotPath(for:)).sorted()
    }

    /// Every snapshot's key (`api/name`), and those an `operations.json` lists (written from a spec).
    func snapshotKeys() -> (all: [String], specDerived: Set<String>) {
        guard let enumerator = FileManager.default.enumerator(at: snapshotsDirectory, includingPropertiesForKeys: nil)
        else { return ([], []) }
        let base = snapshotsDirectory.path
        var candidates: [String] = []
        var specDerived = Set<String>()
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            let relative = String(path.dropFirst(base.count + 1))
            if url.lastPathComponent.hasSuffix(".schema.json") {
                candidates.append(String(relative.dropLast(".schema.json".count)))
            } else if url.lastPathComponent == OperationsFile.fileName {
                let folder = relative.dropLast(OperationsFile.fileName.count)
                specDerived.formUnion(Self.specSnapshots(inOperationsFile: url).map { folder + $0 })
            }
        }
        return (candidates, specDerived)
    }

    /// The snapshot names (`searchRecipes`, without `.schema.json`) an operations file lists, when
    /// `openapi import` wrote it; none for any other file.
    static func specSnapshots(inOperationsFile url: URL) -> [String] {
        guard let file = try? OperationsFile.read(url, displayName: url.path) else { return [] }
        return file.operations.flatMap(\.snapshots).filter { $0.hasSuffix(".schema.json") }
            .map { String($0.dropLast(".schema.json".count)) }
    }
}

/// What `apiprobe snapshot check` found: per endpoint, the snapshot matched, drifted, is missing, or there was
/// nothing to compare; the changes of all endpoints as one report.
package struct SnapshotCheckResult: Sendable {
    package enum Outcome: Sendable {
        /// The snapshot holds over this many samples.
        case matched(samples: Int)
        /// The changes from the snapshot to the samples.
        case drifted([SchemaChange])
        /// No snapshot for an endpoint with samples.
        case missing
        /// No 2xx JSON sample.
        case noSamples
    }

    package var endpoints: [(key: String, file: String, outcome: Outcome)] = []
    /// Where a fixture breaks its snapshot as written: every keyword a person added (`pattern`, `maximum`,
    /// `additionalProperties: false`, …), judged by the JSON Schema validator. The keywords the snapshot writer
    /// itself writes (`type`, `required`, `enum`, `format`) are judged by the drift report instead, with the usage
    /// manifest's ranking, so that no change is reported twice.
    package var violations: [SnapshotViolation] = []
    /// Keywords of the snapshots that their dialect does not define (a typo such as `maxLenght`): ignored, as the
    /// standard says, and counted.
    package var ignoredKeywords: [(file: String, keyword: IgnoredKeyword)] = []
    package var skipped: [String] = []
    package var orphans: [String] = []
    /// Every change, each with the snapshot file it was found in.
    package var report = SchemaDiff(changes: [])
    package var missing: [String] {
        endpoints.compactMap { if case .missing = $0.outcome { return $0.file } else { return nil } }
    }
    /// Breaking drift or a missing snapshot: the check fails (exit status 1).
    package var failed: Bool { report.hasBreakingChanges || !missing.isEmpty || !violations.isEmpty }
}

/// A fixture that breaks its snapshot as written.
package struct SnapshotViolation: Sendable, Hashable {
    /// The fixture, as a path (`Stubs/recipes/search.json`).
    package var fixture: String
    /// The snapshot, as a path (`Snapshots/recipes/search.schema.json`).
    package var snapshot: String
    package var error: JSONSchemaValidation.ValidationError
}

/// What `apiprobe snapshot update` did (or, in a dry run, would do) for each endpoint.
package struct SnapshotUpdateResult: Sendable {
    package enum Action: Sendable {
        case same, created, updated, replacedUnreadable, noSamples
    }

    package struct Entry: Sendable {
        package var key: String
        package var file: String
        package var action: Action
        /// The changes from the snapshot it replaces.
        package var changes: [SchemaChange] = []
        /// The sample counts before and after, when they differ.
        package var samples: (before: Int, after: Int)?
    }

    package var entries: [Entry] = []
    package var skipped: [String] = []
    package var orphans: [String] = []
    package var written = 0
}

extension SnapshotWorkspace {
    /// Compares every endpoint's samples with its snapshot (the one rule: `SchemaSnapshot(samples:previous:)`);
    /// a usage manifest beside a snapshot ranks changes at unread paths as info.
    ///
    /// - Throws: `InputError` for a snapshot or usage manifest that cannot be read, naming its file.
    package func check() throws(InputError) -> SnapshotCheckResult {
        var result = SnapshotCheckResult(skipped: skipped)
        var changes: [SchemaChange] = []
        // Each endpoint on its own core (reading its snapshot, inferring, diffing), then gathered in order.
        let workspace = self
        // A snapshot written from a spec says what the API may send: the samples are checked for conformance to
        // it (a property the spec makes optional and no sample has is no removal), not for drift from it.
        let specDerived = snapshotKeys().specDerived
        // `nil`: no samples, or no snapshot (told apart below by the sample count).
        let compared = try endpoints.parallelMap {
            endpoint throws(InputError) -> (SchemaDiff, [SnapshotViolation], [IgnoredKeyword])? in
            guard endpoint.sampleCount > 0, let old = try workspace.existingSnapshot(for: endpoint.key) else {
                return nil
            }
            let inferred = try endpoint.snapshot(previous: old).shape
            let usage = try workspace.usage(for: endpoint.key)
            let (violations, ignored) = try workspace.violations(of: endpoint)
            if specDerived.contains(endpoint.key) {
                return (SchemaDiff(conformanceOf: inferred, to: old.shape, usage: usage), violations, ignored)
            }
            return (SchemaDiff(from: old.shape, to: inferred, usage: usage), violations, ignored)
        }
        for (endpoint, outcome) in zip(endpoints, compared) {
            let diff = outcome?.0
            if let outcome {
                result.violations += outcome.1
                result.ignoredKeywords += outcome.2.map { (snapshotPath(for: endpoint.key), $0) }
            }
            let file = snapshotPath(for: endpoint.key)
            guard endpoint.sampleCount > 0 else {
                result.endpoints.append((endpoint.key, file, .noSamples))
                continue
            }
            guard let diff else {
                result.endpoints.append((endpoint.key, file, .missing))
                continue
            }
            if diff.changes.isEmpty && !result.violations.contains(where: { $0.snapshot == file }) {
                result.endpoints.append((endpoint.key, file, .matched(samples: endpoint.sampleCount)))
            } else {
                result.endpoints.append((endpoint.key, file, .drifted(diff.changes)))
                changes += diff.changes.map { change in
                    var located = change
                    located.file = file
                    return located
                }
            }
        }
        result.orphans = orphanedSnapshots()
        result.report = SchemaDiff(changes: changes)
        return result
    }

    /// Each sample of an endpoint validated against its snapshot as written (the one validator; the writer's own
    /// keywords left to the drift report), and the keywords the snapshot holds that its dialect does not define.
    /// `$ref` to `components.json` beside it reads that file.
    ///
    /// - Throws: `InputError` for a snapshot that is not a schema (file and JSON Pointer), or a sample too deep or
    ///   too slow to judge.
    func violations(of endpoint: Endpoint) throws(InputError) -> ([SnapshotViolation], [IgnoredKeyword]) {
        let file = snapshotPath(for: endpoint.key)
        let schema = try SchemaFile.compile(
            contentsOf: snapshotURL(for: endpoint.key), displayName: file, inside: snapshotsDirectory)
        let found = try SchemaFile.violations(
            of: endpoint.samples, against: schema, ignoring: SchemaSnapshot.writtenKeywords)
        return (
            found.map { SnapshotViolation(fixture: $0.sample, snapshot: file, error: $0.error) }, schema.ignoredKeywords
        )
    }

    /// Writes every endpoint's snapshot from its samples over the one it replaces (an unreadable one is
    /// replaced); an unchanged snapshot keeps its bytes. With `dryRun`, says what it would do and writes nothing.
    ///
    /// - Throws: `InputError` for a sample that is not JSON; `InputError` for a snapshot that cannot be
    ///   written or would land outside the snapshots folder.
    package func update(dryRun: Bool, recordingEnums: Bool) throws -> SnapshotUpdateResult {
        var result = SnapshotUpdateResult(skipped: skipped)
        for endpoint in endpoints {
            let file = snapshotPath(for: endpoint.key)
            guard endpoint.sampleCount > 0 else {
                result.entries.append(.init(key: endpoint.key, file: file, action: .noSamples))
                continue
            }
            let url = snapshotURL(for: endpoint.key)
            let existing = try? Data(contentsOf: url)
            let old = try? existingSnapshot(for: endpoint.key)
            let snapshot = try endpoint.snapshot(previous: old, recordingEnums: recordingEnums)
            let data = snapshot.encoded()
            if existing == data {
                result.entries.append(.init(key: endpoint.key, file: file, action: .same))
                continue
            }
            var entry = SnapshotUpdateResult.Entry(
                key: endpoint.key, file: file,
                action: existing == nil ? .created : old == nil ? .replacedUnreadable : .updated)
            if let old {
                entry.changes = SchemaDiff(from: old.shape, to: snapshot.shape).changes
                if old.sampleCount != snapshot.sampleCount { entry.samples = (old.sampleCount, snapshot.sampleCount) }
            }
            result.entries.append(entry)
            if !dryRun {
                try AtomicFile.write(data, to: url, displayName: file, inside: snapshotsDirectory)
                result.written += 1
            }
        }
        result.orphans = orphanedSnapshots()
        return result
    }
}
