import Foundation
import HTTPFixtures
import JSONSchemaValidation
import JSONShape

/// The seam through which schema snapshots are made and compared; ``JSONShapeSnapshotEngine`` implements it.
protocol SchemaSnapshotEngine: Sendable {
    /// The snapshot file's bytes for these samples over the snapshot they replace (deterministic; two-space
    /// indent, sorted keys, trailing newline).
    func makeSnapshot(of samples: [Sample], previous: Data?, at url: URL) throws -> Data
    /// The changes from the committed snapshot to the samples that fail the check, one line each;
    /// empty when the snapshot holds.
    ///
    /// - Parameters:
    ///   - url: where the snapshot is; a usage manifest `<name>.usage.json` beside it is honoured.
    ///   - file: the snapshot's name in messages.
    /// - Throws: when the committed snapshot cannot be read (with the file and place).
    func failingChanges(from snapshot: Data, at url: URL, file: String, to samples: [Sample]) throws -> [String]
}

/// The engine used by ``expectSnapshotMatch(_:named:record:snapshots:fileID:filePath:line:column:)``.
let schemaSnapshotEngine: any SchemaSnapshotEngine = JSONShapeSnapshotEngine()

/// Snapshots made with JSONShape's one rule (`SchemaSnapshot(samples:previous:)`), the one `apiprobe
/// snapshot update` and `record --snapshots` use, so the three write byte-identical files.
struct JSONShapeSnapshotEngine: SchemaSnapshotEngine {
    func makeSnapshot(of samples: [Sample], previous: Data?, at url: URL) throws -> Data {
        let old = previous.flatMap { try? SchemaSnapshot(decoding: $0, folder: url.deletingLastPathComponent()) }
        return try SchemaSnapshot(samples: samples.map { ($0.bytes, $0.file) }, previous: old).encoded()
    }

    /// The samples must conform to the snapshot: a type, `null` or format it does not allow, or a required
    /// property missing, fails; optional properties left out and properties it does not list do not (a
    /// response is one sample, not the whole schema). Changes at paths no model reads (the usage manifest
    /// `<name>.usage.json` beside the snapshot) are information.
    func failingChanges(from snapshot: Data, at url: URL, file: String, to samples: [Sample]) throws -> [String] {
        let committed = try SchemaSnapshot(decoding: snapshot, file: file, folder: url.deletingLastPathComponent())
        let usage = try usageManifest(besideSnapshot: url, file: file)
        let inferred = try SchemaSnapshot(
            samples: samples.map { ($0.bytes, file) }, previous: committed
        ).shape
        let diff = SchemaDiff(conformanceOf: inferred, to: committed.shape, usage: usage)
        // Every keyword a person added to the snapshot (`pattern`, `maximum`, `additionalProperties: false`, …) is
        // enforced by the one JSON Schema validator, as `apiprobe snapshot check` enforces it.
        let schema = try SchemaFile.compile(
            try JSONValue(parsing: snapshot, file: file), at: url, displayName: file,
            inside: url.deletingLastPathComponent())
        let violations = try SchemaFile.violations(
            of: samples.map { ($0.bytes, $0.file) }, against: schema, ignoring: SchemaSnapshot.writtenKeywords)
        return diff.changes.filter { $0.severity == .breaking }.map { "breaking: \($0.summary)" }
            + violations.map { "violation: \($0.sample): \($0)" }
    }

    private func usageManifest(besideSnapshot url: URL, file: String) throws -> UsageManifest? {
        let suffix = ".schema.json"
        guard url.lastPathComponent.hasSuffix(suffix) else { return nil }
        let name = String(url.lastPathComponent.dropLast(suffix.count)) + ".usage.json"
        let manifest = url.deletingLastPathComponent().appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: manifest.path) else { return nil }
        let shown = file.hasSuffix(suffix) ? String(file.dropLast(suffix.count)) + ".usage.json" : manifest.path
        return try UsageManifest(decoding: data, file: shown)
    }
}
