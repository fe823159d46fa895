import Foundation
import HTTPFixtures

/// The seam through which schema snapshots are made and compared; JSONShape implements it.
///
/// To wire JSONShape in: add a type conforming to this protocol (infer + merge the samples, encode the
/// snapshot with the deterministic JSON Schema codec; decode the committed snapshot, diff it against the
/// samples' shape, return the breaking changes as lines `breaking: <path>: <kind> (<before> → <after>)`,
/// honouring the usage manifest beside the snapshot when there is one) and return it from
/// `schemaSnapshotEngine` below.
protocol SchemaSnapshotEngine: Sendable {
    /// The snapshot file's bytes for these samples (deterministic; two-space indent, sorted keys, trailing newline).
    func makeSnapshot(of samples: [JSONValue]) throws -> Data
    /// The changes from the committed snapshot to the samples that fail the check, one line each;
    /// empty when the snapshot holds.
    ///
    /// - Throws: when the committed snapshot cannot be read (with the file and place).
    func failingChanges(from snapshot: Data, file: String, to samples: [JSONValue]) throws -> [String]
}

/// The engine used by ``expectSnapshotMatch(_:named:record:fileID:filePath:line:column:)``; `nil` until
/// JSONShape is wired in.
let schemaSnapshotEngine: (any SchemaSnapshotEngine)? = nil
