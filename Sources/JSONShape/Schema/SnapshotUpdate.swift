public import Foundation
public import HTTPFixtures

extension SchemaSnapshot {
    /// The snapshot of an endpoint from its samples, given the snapshot it replaces: the one rule by which
    /// `apiprobe snapshot update`, `apiprobe record --snapshots` and ContractTesting's record modes write
    /// snapshots, so the three write byte-identical files from the same fixtures.
    ///
    /// Enums are never invented by inference: a string field is written with `enum` only where `previous`
    /// has one (its values then follow the samples), or everywhere inference finds few distinct values when
    /// `recordingEnums` asks for it (`apiprobe snapshot update --enums`).
    ///
    /// ```swift
    /// let old = try? SchemaSnapshot(decoding: Data(contentsOf: url))
    /// let new = try SchemaSnapshot(samples: bodies.map { ($0, "Stubs/recipes/search.json") }, previous: old)
    /// if new.encoded() != (try? Data(contentsOf: url)) { /* write it */ }
    /// ```
    ///
    /// - Parameters:
    ///   - samples: each sample's JSON bytes and the file to name in errors.
    ///   - previous: the snapshot being replaced, if any.
    ///   - recordingEnums: write an enum wherever inference finds few distinct string values.
    /// - Throws: `InputError` for a sample that is not JSON, naming its file and place.
    public init(
        samples: some Sequence<(json: Data, file: String)>,
        previous: SchemaSnapshot?,
        recordingEnums: Bool = false
    ) throws(InputError) {
        var inference = ShapeInference(options: InferenceOptions(detectsEnums: true))
        try inference.addSamples(Array(samples))
        let shape = inference.shape
        self.init(
            shape: recordingEnums ? shape : shape.keepingEnums(presentIn: previous?.shape ?? .empty),
            sampleCount: inference.sampleCount)
    }
}
