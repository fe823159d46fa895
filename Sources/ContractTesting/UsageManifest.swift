import APIProbeShared
public import Foundation
import HTTPFixtures
import JSONShape

/// A model whose reading of an endpoint's responses goes into a usage manifest.
///
/// ```swift
/// expectUsageManifest(for: "recipes/search", models: .decoding(SearchResponse.self), .decoding([Recipe].self, at: "/recipes"))
/// ```
public struct ModelUsage {
    let name: String
    let record: (Sample, JSONDecoder) -> Result<ObservedReading, ContractSourceError>

    /// `type` decoded from each response of the endpoint, at `pointer` inside the body.
    public static func decoding<T: Decodable>(_ type: T.Type, at pointer: String = "") -> ModelUsage {
        ModelUsage(name: String(describing: type)) { sample, decoder in
            var read: Set<[PathToken]> = []
            var reading = ObservedReading()
            for decoded in decodeEach(T.self, from: sample, at: pointer, decoder: decoder, recording: true) {
                switch decoded.result {
                case .failure(let failure):
                    return .failure(ContractSourceError(message: "\(T.self) does not decode \(failure.headline)"))
                case .success:
                    guard let log = decoded.log else {
                        return .failure(
                            ContractSourceError(
                                message: "\(sample.file): \(T.self) decodes, but apiprobe could not observe its reading"
                            ))
                    }
                    // What the model reads, and what it would read from items of the arrays that were empty.
                    read.formUnion(log.read)
                    reading.optional.formUnion(log.optionalProbes.keys.lazy.map(\.generalizedPointer))
                    reading.required.formUnion(log.required.lazy.map(\.generalizedPointer))
                    if let value = sample.document.value(at: decoded.base.pointer) {
                        read.formUnion(
                            log.demandUnderEmptyArrays(T.self, from: value, path: decoded.base, using: decoder))
                    }
                }
            }
            reading.paths = Set(read.map(\.generalizedPointer)).subtracting([""])
            return .success(reading)
        }
    }
}

/// What models read from an endpoint's responses: every path, and how each member was asked for.
struct ObservedReading {
    var paths: Set<String> = []
    /// Members some model asked for with `decodeIfPresent`.
    var optional: Set<String> = []
    /// Members some model asked for with `decode`.
    var required: Set<String> = []

    mutating func formUnion(_ other: ObservedReading) {
        paths.formUnion(other.paths)
        optional.formUnion(other.optional)
        required.formUnion(other.required)
    }

    /// The manifest: a path is optional when every model that reads it reads it as optional.
    var manifest: UsageManifest {
        UsageManifest(paths: paths, optionalPaths: optional.subtracting(required))
    }
}

/// The pure verifier behind ``expectUsageManifest(for:models:decoder:record:in:snapshots:fileID:filePath:line:column:)-(_,ModelUsage...,_,_,_,_,_,_,_,_)``:
/// the JSON paths every model reads from every 2xx JSON fixture of the endpoint, observed while decoding.
///
/// - Returns: the sorted paths (`*` for array items), or the failure messages.
public func observedUsage(
    for endpoint: String,
    models: [ModelUsage],
    decoder: JSONDecoder? = nil,
    in store: FixtureStore? = nil,
    filePath: StaticString = #filePath
) -> Result<[String], ContractSourceError> {
    observedReading(for: endpoint, models: models, decoder: decoder, in: store, filePath: filePath).map {
        $0.paths.sorted()
    }
}

/// What ``observedUsage(for:models:decoder:in:filePath:)`` observes, with how each member was asked for.
func observedReading(
    for endpoint: String,
    models: [ModelUsage],
    decoder: JSONDecoder?,
    in store: FixtureStore?,
    filePath: StaticString
) -> Result<ObservedReading, ContractSourceError> {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let samples: [Sample]
    do {
        samples = try ContractSource.everyFixture(of: endpoint, in: store).samples(filePath: filePath)
    } catch {
        return .failure(ContractSourceError(message: error.message))
    }
    var reading = ObservedReading()
    var failures: [String] = []
    for model in models {
        for sample in samples {
            switch model.record(sample, decoder) {
            case .success(let read): reading.formUnion(read)
            case .failure(let error): failures.append(error.message)
            }
        }
    }
    // expectDecoding reports the whole failure; here one line says the manifest was not measured.
    guard failures.isEmpty else {
        return .failure(
            ContractSourceError(
                message: "usage of \(endpoint) skipped: \(failures.joined(separator: "; ")) (expectDecoding says why)"))
    }
    return .success(reading)
}

/// Checks the usage manifest of an endpoint, `Snapshots/<endpoint>.usage.json`: the JSON paths the
/// app's models read, observed while each model decodes every 2xx JSON fixture of the endpoint.
///
/// `apiprobe snapshot check` ranks drift at a path no model reads as information. The record mode
/// (argument, scope, `APIPROBE_RECORD`; see ``RecordMode``) decides whether a missing or changed
/// manifest is written; writes are atomic.
///
/// ```swift
/// @Test func searchUsage() {
///     expectUsageManifest(for: "recipes/search", models: .decoding(SearchResponse.self))
/// }
/// ```
/// ```
/// Snapshots/recipes/search.usage.json does not match:
///   + /recipes/*/publisher_url
/// ```
public func expectUsageManifest(
    for endpoint: String,
    models: ModelUsage...,
    decoder: JSONDecoder? = nil,
    record: RecordMode? = nil,
    in store: FixtureStore? = nil,
    snapshots: URL? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    expectUsageManifest(
        for: endpoint, models: Array(models), decoder: decoder, record: record, in: store, snapshots: snapshots,
        fileID: fileID, filePath: filePath, line: line, column: column)
}

/// Checks the usage manifest of an endpoint for models given as an array (the variadic form's twin).
public func expectUsageManifest(
    for endpoint: String,
    models: [ModelUsage],
    decoder: JSONDecoder? = nil,
    record: RecordMode? = nil,
    in store: FixtureStore? = nil,
    snapshots: URL? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    report(
        verifyUsageManifest(
            for: endpoint, models: models, decoder: decoder, record: record, in: store, snapshots: snapshots,
            filePath: filePath),
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// The pure verifier behind ``expectUsageManifest(for:models:decoder:record:in:snapshots:fileID:filePath:line:column:)-(_,ModelUsage...,_,_,_,_,_,_,_,_)``,
/// for models given one by one (the array form's twin).
public func verifyUsageManifest(
    for endpoint: String,
    models: ModelUsage...,
    decoder: JSONDecoder? = nil,
    record: RecordMode? = nil,
    in store: FixtureStore? = nil,
    snapshots: URL? = nil,
    filePath: StaticString = #filePath
) -> ContractVerification {
    verifyUsageManifest(
        for: endpoint, models: models, decoder: decoder, record: record, in: store, snapshots: snapshots,
        filePath: filePath)
}

/// The pure verifier behind ``expectUsageManifest(for:models:decoder:record:in:snapshots:fileID:filePath:line:column:)-(_,ModelUsage...,_,_,_,_,_,_,_,_)``
/// (it writes the manifest when the record mode says so).
public func verifyUsageManifest(
    for endpoint: String,
    models: [ModelUsage],
    decoder: JSONDecoder? = nil,
    record: RecordMode? = nil,
    in store: FixtureStore? = nil,
    snapshots: URL? = nil,
    filePath: StaticString = #filePath
) -> ContractVerification {
    ContractVerification(
        failure: usageManifestProblem(
            for: endpoint, models: models, decoder: decoder, record: record, in: store, snapshots: snapshots,
            filePath: filePath))
}

/// What does not hold of the endpoint's usage manifest, or `nil`.
private func usageManifestProblem(
    for endpoint: String,
    models: [ModelUsage],
    decoder: JSONDecoder?,
    record: RecordMode?,
    in store: FixtureStore?,
    snapshots: URL?,
    filePath: StaticString
) -> String? {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let mode: RecordMode
    do {
        mode = try RecordMode.resolve(argument: record)
    } catch {
        return error.description
    }
    let fresh: UsageManifest
    switch observedReading(for: endpoint, models: models, decoder: decoder, in: store, filePath: filePath) {
    case .success(let observed): fresh = observed.manifest
    case .failure(let error): return error.message
    }
    guard let folder = snapshots ?? snapshotsFolder(relativeTo: filePath) else {
        return "\(filePath): expected a folder named Snapshots or Stubs in one of its parent folders, found none"
    }
    let url = folder.appendingPathComponent(endpoint + ".usage.json")
    return verifyFileSnapshot(
        at: url, fresh: fresh.encoded(), mode: mode, argument: record, kind: "usage manifest"
    ) { existing in
        let committed = try UsageManifest(decoding: existing, file: displayPath(url))
        let added = Set(fresh.paths).subtracting(committed.paths).sorted().map { "+ \($0)" }
        let removed = Set(committed.paths).subtracting(fresh.paths).sorted().map { "- \($0)" }
        let nowOptional = Set(fresh.optionalPaths).subtracting(committed.optionalPaths).sorted()
            .map { "+ \($0) (read as optional)" }
        let noLongerOptional = Set(committed.optionalPaths).subtracting(fresh.optionalPaths).sorted()
            .filter { fresh.paths.contains($0) }.map { "- \($0) (read as optional)" }
        return removed + added + noLongerOptional + nowOptional
    }
}
