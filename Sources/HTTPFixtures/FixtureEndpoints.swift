import APIProbeShared
package import Foundation

/// One endpoint's fixtures: `recipes/search.json` and its variants `recipes/search.<variant>.json`.
///
/// This is the one rule by which every part of apiprobe groups fixtures into endpoints (`snapshot update`
/// and `check`, `record --snapshots`, ContractTesting's `.everyFixture(of:)` and its snapshot match): an
/// endpoint is a fixture's name up to the first `.` of its last component, and its samples are the 2xx
/// responses with a JSON body.
package struct FixtureEndpoint: Sendable {
    /// `recipes/search`: the snapshot's name.
    package var name: String
    /// The fixtures that are samples, in name order.
    package var samples: [FixtureSample]
    /// The fixtures that are not samples, with the reason: `Stubs/recipes/missing.json: status 404`.
    package var skipped: [String]
    /// Every fixture name of the endpoint, samples or not.
    package var fixtureNames: [String]
}

/// A 2xx JSON response of a fixture.
package struct FixtureSample: Sendable {
    /// The fixture's name, `recipes/search.page2`.
    var name: String
    /// The fixture's path as shown in messages.
    package var file: String
    /// The response body's bytes, as the fixture file holds them (checked as JSON, not built into a tree).
    package var json: Data
}

extension FixtureStore {
    /// The endpoint a fixture belongs to: `recipes/search.page2` → `recipes/search`, `search` → `search`. A
    /// scenario's fixture is a sample of the same endpoint as the fixture it stands in for:
    /// `recipes/scenarios/empty/search` → `recipes/search` (see ``scenario(ofFixture:)``).
    package static func endpointName(ofFixture name: String) -> String {
        var base = name.hasSuffix(".json") ? String(name.dropLast(5)) : name
        if let split = splitScenario(ofFixture: base) { base = split.standsFor }
        let slash = base.lastIndex(of: "/")
        let folder = slash.map { String(base[...$0]) } ?? ""
        let last = slash.map { String(base[base.index(after: $0)...]) } ?? base
        let endpoint = last.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return folder + endpoint
    }

    /// The endpoint name of an operation (its `operationId`, or any name from outside): a safe file name whose
    /// dots, which separate an endpoint from its variants (`search.page2`), become `_`: `orders.create` →
    /// `orders_create`. The one rule by which `openapi import` names snapshots and `import --spec` and
    /// `serve --spec --proxy` name fixtures, so that ``endpointName(ofFixture:)`` gives it back unchanged and two
    /// operations never become one endpoint.
    package static func endpointName(ofOperation id: String) -> String {
        SafePath.fileName(id, fallback: "operation").replacingOccurrences(of: ".", with: "_")
    }

    /// Every endpoint of the store (of the folder `api` only, when given), sorted by name.
    ///
    /// - Throws: ``InputError`` for the first fixture that cannot be read, naming its file and place: an
    ///   unreadable fixture is never skipped silently.
    package func endpoints(in api: String? = nil) throws(InputError) -> [FixtureEndpoint] {
        var groups: [String: [String]] = [:]
        for name in names(in: api) {
            groups[Self.endpointName(ofFixture: name), default: []].append(name)
        }
        // Read on all cores: on an API of 500 endpoints, reading the fixtures is most of `snapshot check`.
        let store = self
        let shown = FolderDisplayPath(directory)
        return try groups.sorted { $0.key < $1.key }.parallelMap { group throws(InputError) in
            try store.endpoint(group.key, fixtures: group.value, shown: shown)
        }
    }

    /// The endpoint `name` (`recipes/search`) with its fixtures; one with no fixture has no samples.
    ///
    /// - Throws: ``InputError`` for a fixture that cannot be read.
    package func endpoint(named name: String) throws(InputError) -> FixtureEndpoint {
        // Only the endpoint's own folder is listed (not the whole store, once per endpoint: on an API of 500
        // endpoints that listing was most of a contract suite's time).
        let slash = name.lastIndex(of: "/")
        let folder = slash.map { String(name[..<$0]) }
        let url = folder.map { directory.appendingPathComponent($0, isDirectory: true) } ?? directory
        let base = slash.map { String(name[name.index(after: $0)...]) } ?? name
        let prefix = base + "."  // `search.json` and `search.page2.json` alike
        // The endpoint's folder, and each scenario's beside it (`scenarios/<name>/`).
        var folders = [(folder.map { $0 + "/" } ?? "", url)]
        let scenarios = url.appendingPathComponent(Self.scenariosFolder, isDirectory: true)
        for scenario in ((try? FileManager.default.contentsOfDirectory(atPath: scenarios.path)) ?? []).sorted() {
            folders.append(
                (
                    (folder.map { $0 + "/" } ?? "") + "\(Self.scenariosFolder)/\(scenario)/",
                    scenarios.appendingPathComponent(scenario, isDirectory: true)
                ))
        }
        var fixtures: [String] = []
        for (relative, location) in folders {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: location.path)) ?? []
            for entry in entries where entry.hasPrefix(prefix) && entry.hasSuffix(".json") {
                let fixture = relative + String(entry.dropLast(".json".count))
                if Self.endpointName(ofFixture: fixture) == name { fixtures.append(fixture) }
            }
        }
        return try endpoint(name, fixtures: fixtures, shown: FolderDisplayPath(directory))
    }

    private func endpoint(_ name: String, fixtures: [String], shown: FolderDisplayPath) throws(InputError)
        -> FixtureEndpoint
    {
        var result = FixtureEndpoint(name: name, samples: [], skipped: [], fixtureNames: fixtures)
        for fixture in fixtures.sorted() {
            let url = url(for: fixture)
            let file = shown.path(Self.fileName(for: fixture))
            let (status, body) = try Exchange.responseSample(
                decoding: Exchange.read(url, displayName: file), file: file)
            guard (200..<300).contains(status) else {
                result.skipped.append("\(file): status \(status)")
                continue
            }
            guard let body else {
                result.skipped.append("\(file): no JSON body")
                continue
            }
            result.samples.append(FixtureSample(name: fixture, file: file, json: body))
        }
        return result
    }
}
