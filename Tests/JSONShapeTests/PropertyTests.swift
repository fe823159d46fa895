import APIProbeShared
import Foundation
import HTTPFixtures
import JSONShape
import Testing

/// Property-style tests over random documents from a seeded generator; the seed is printed (replay with
/// `APIPROBE_SEED=<seed> swift test --filter PropertyTests`).
struct PropertyTests {
    /// The reader re-checks only the format a field has so far; the result must be what detecting every
    /// sample's format says (a format is kept only when every string fits it), escapes resolved first.
    @Test func theInferredFormatIsTheOneEverySampleFits() throws {
        let seed = seedFromEnvironment()
        var rng = SeededGenerator(seed: seed)
        let pool: [(json: String, text: String)] = [
            ("2026-11-22T18:00:00Z", "2026-11-22T18:00:00Z"),
            ("2026-11-22t18:00:00.5+01:00", "2026-11-22t18:00:00.5+01:00"),
            ("2026-11-22", "2026-11-22"), ("2026-13-22", "2026-13-22"), ("1234@ab.io", "1234@ab.io"),
            ("cook@example.com", "cook@example.com"), ("https:\\/\\/example.com\\/a", "https://example.com/a"),
            ("mailto:a@b.c", "mailto:a@b.c"), ("urn:isbn:1", "urn:isbn:1"), ("x:y", "x:y"),
            ("0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10", "0b0e5a4c-93f5-4f0e-9d63-1c1e4e7a2b10"),
            ("0B0E5A4C-93F5-4F0E-9D63-1C1E4E7A2B10", "0B0E5A4C-93F5-4F0E-9D63-1C1E4E7A2B10"),
            ("caf\\u00e9@example.com", "café@example.com"), ("ab", "ab"), ("plain text", "plain text"),
            ("2026-11-22 18:00:00Z", "2026-11-22 18:00:00Z"), ("1e5", "1e5"),
        ]
        for round in 0..<500 {
            let picks = (0..<(1 + Int(rng.next() % 4))).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
            let document = "[" + picks.map { "\"\($0.json)\"" }.joined(separator: ",") + "]"
            let formats = picks.map { StringFormat.detect(in: $0.text) }
            let expected = formats.allSatisfy({ $0 == formats[0] }) ? formats[0] : nil
            let shape = try ShapeNode.infer(from: Data(document.utf8))
            #expect(shape.items?.format == expected, "seed \(seed), round \(round): \(document)")
        }
    }

    @Test func mergeIsAssociativeAndCommutative() throws {
        let seed = seedFromEnvironment()
        print("PropertyTests.mergeIsAssociativeAndCommutative seed: \(seed)")
        var random = RandomJSON(seed: seed)
        for round in 0..<300 {
            let (a, b, c) = (random.document(), random.document(), random.document())
            let options = InferenceOptions(detectsEnums: round % 2 == 0, maximumEnumValues: 3, maximumProperties: 6)
            let sa = try ShapeNode.infer(from: Data(a.utf8), options: options)
            let sb = try ShapeNode.infer(from: Data(b.utf8), options: options)
            let sc = try ShapeNode.infer(from: Data(c.utf8), options: options)
            let left = sa.merging(sb, options: options).merging(sc, options: options)
            let right = sa.merging(sb.merging(sc, options: options), options: options)
            #expect(left == right, "seed \(seed), round \(round): \(a) | \(b) | \(c)")
            #expect(
                sa.merging(sb, options: options) == sb.merging(sa, options: options),
                "seed \(seed), round \(round)"
            )
            #expect(sa.merging(.empty, options: options) == sa)

            var streamed = ShapeInference(options: options)
            for text in [a, b, c] { try streamed.addSample(Data(text.utf8)) }
            #expect(
                streamed.shape == left,
                "streaming differs from merging; seed \(seed), round \(round): \(a) | \(b) | \(c)"
            )
        }
    }

    @Test func snapshotCodecRoundTripsExactly() throws {
        let seed = seedFromEnvironment()
        print("PropertyTests.snapshotCodecRoundTripsExactly seed: \(seed)")
        var random = RandomJSON(seed: seed)
        for round in 0..<300 {
            var inference = ShapeInference(options: InferenceOptions(detectsEnums: round % 2 == 0))
            for _ in 0..<3 { try inference.addSample(Data(random.document().utf8)) }
            let snapshot = SchemaSnapshot(shape: inference.shape, sampleCount: inference.sampleCount)
            let bytes = snapshot.encoded()
            let decoded = try SchemaSnapshot(decoding: bytes)
            #expect(decoded == snapshot, "seed \(seed), round \(round)")
            #expect(decoded.encoded() == bytes, "seed \(seed), round \(round)")
            #expect(SchemaDiff(from: snapshot.shape, to: decoded.shape).changes.isEmpty)
        }
    }
}

/// Damaged input never crashes a reader: it is read, or refused with a positioned error.
struct DamagedInputTests {
    @Test func damagedDocumentsAreReadOrRefused() throws {
        let seed = seedFromEnvironment()
        print("DamagedInputTests.damagedDocumentsAreReadOrRefused seed: \(seed)")
        var random = RandomJSON(seed: seed)
        let schema = SchemaSnapshot(
            shape: try infer(#"{"a": [{"b": "2026-11-22", "c": null}], "m": {"1": 2}}"#), sampleCount: 1)
        let inputs = [Array(schema.encoded()), Array(UsageManifest(paths: ["/a", "/b/*"]).encoded())]
        for round in 0..<500 {
            var bytes = round % 5 == 0 ? inputs[round % 2] : Array(random.document().utf8)
            for _ in 0..<(1 + random.pick(3)) where !bytes.isEmpty {
                switch random.pick(3) {
                case 0: bytes[random.pick(bytes.count)] = UInt8(random.pick(256))
                case 1: bytes.removeSubrange(random.pick(bytes.count)...)
                default: bytes.insert(UInt8(random.pick(128)), at: random.pick(bytes.count))
                }
            }
            let data = Data(bytes)
            // Every refusal is an InputError that names the file and a place in it (a line and column
            // inside the bytes, or a JSON Pointer), and says what was expected and what was found.
            do { _ = try ShapeNode.infer(from: data) } catch { expectPlaced(error, in: bytes) }
            do { _ = try SchemaSnapshot(decoding: data) } catch { expectPlaced(error, in: bytes) }
            do { _ = try UsageManifest(decoding: data) } catch { expectPlaced(error, in: bytes) }
            var lines = ShapeInference()
            do { try lines.addJSONLines(data) } catch { expectPlaced(error, in: bytes) }
        }
    }

    private func expectPlaced(_ error: InputError, in bytes: [UInt8]) {
        #expect(error.file == "<input>")
        #expect(!error.expected.isEmpty && !error.found.isEmpty, "\(error)")
        switch error.position {
        case .lineColumn(let line, let column):
            let lineCount = bytes.count { $0 == UInt8(ascii: "\n") } + 1
            #expect((1...lineCount).contains(line) && column >= 1, "\(error) is outside the input")
        case .jsonPointer(let pointer):
            #expect(pointer.isEmpty || pointer.hasPrefix("/"), "\(error)")
        case .file:
            #expect(bytes.isEmpty || error.expected.contains("JSON"), "\(error) names no place in the input")
        }
        #expect(error.description.hasPrefix("<input>"), "\(error)")
        #expect(error.description.contains(": expected \(error.expected), found \(error.found)"), "\(error)")
    }
}
