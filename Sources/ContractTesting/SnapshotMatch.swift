import APIProbeShared
public import Foundation
import HTTPFixtures

/// Checks that the responses of an endpoint still match its schema snapshot,
/// `Snapshots/<endpoint>.schema.json`, applying the record mode (see ``RecordMode``).
///
/// The schema is inferred from every 2xx JSON fixture of the endpoint (or from the documents of
/// `source`) and compared with the committed snapshot; a breaking change fails.
///
/// ```swift
/// expectSnapshotMatch(.everyFixture(of: "recipes/search"))
/// ```
/// ```
/// Snapshots/recipes/search.schema.json does not match:
///   breaking: /recipes/*/social_rank removed: was number
/// If the change is intended, re-run with APIPROBE_RECORD=failed and commit the file.
/// ```
public func expectSnapshotMatch(
    _ source: ContractSource,
    named name: String? = nil,
    record: RecordMode? = nil,
    snapshots: URL? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    report(
        verifySnapshotMatch(source, named: name, record: record, snapshots: snapshots, filePath: filePath),
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// The pure verifier behind ``expectSnapshotMatch(_:named:record:snapshots:fileID:filePath:line:column:)``
/// (it writes the snapshot when the record mode says so).
public func verifySnapshotMatch(
    _ source: ContractSource,
    named name: String? = nil,
    record: RecordMode? = nil,
    snapshots: URL? = nil,
    filePath: StaticString = #filePath
) -> ContractVerification {
    ContractVerification(
        failure: verifySnapshotMatch(
            source, named: name, record: record, snapshots: snapshots, engine: schemaSnapshotEngine,
            filePath: filePath))
}

func verifySnapshotMatch(
    _ source: ContractSource,
    named name: String?,
    record: RecordMode?,
    snapshots: URL?,
    engine: any SchemaSnapshotEngine,
    filePath: StaticString
) -> String? {
    let mode: RecordMode
    do {
        mode = try RecordMode.resolve(argument: record)
    } catch {
        return error.description
    }
    guard let snapshotName = name ?? source.endpointName else {
        return "expectSnapshotMatch: expected a snapshot name (named:) for an exchange or bytes, found none"
    }
    let samples: [Sample]
    do {
        samples = try source.samples(filePath: filePath)
    } catch {
        return error.message
    }
    guard let folder = snapshots ?? snapshotsFolder(relativeTo: filePath) else {
        return "\(filePath): expected a folder named Snapshots or Stubs in one of its parent folders, found none"
    }
    let url = folder.appendingPathComponent(snapshotName + ".schema.json")
    let fresh: Data
    do {
        fresh = try engine.makeSnapshot(
            of: samples, previous: FileManager.default.contents(atPath: url.path), at: url)
    } catch {
        return "\(samples.map(\.file).joined(separator: ", ")): cannot infer a schema: \(error)"
    }
    return verifyFileSnapshot(at: url, fresh: fresh, mode: mode, argument: record, kind: "schema snapshot") {
        existing in
        try engine.failingChanges(from: existing, at: url, file: displayPath(url), to: samples)
    }
}
