import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

/// `addSample(contentsOf:)` streams one document through a sliding window: every token may straddle a chunk
/// boundary, and the result and the errors must be those of reading the whole document at once.
@Suite(.temporaryFolder)
struct StreamedDocumentTests {
    /// Tiny chunks put a boundary inside nearly every key, string, escape, number and literal.
    static let chunkSizes = [64, 97, 1_000, 1 << 20]

    private func withFile<R>(_ bytes: [UInt8], _ body: (URL) throws -> R) throws -> R {
        let url = try TemporaryFolder.make("streamed").appendingPathComponent("document.json")
        try Data(bytes).write(to: url)
        return try body(url)
    }

    private func streamed(_ url: URL, chunkSize: Int, enums: Bool = false) throws -> ShapeNode {
        var inference = ShapeInference(options: InferenceOptions(detectsEnums: enums))
        try inference.addSample(contentsOf: url, file: "big.json", chunkSize: chunkSize)
        #expect(inference.sampleCount == 1)
        return inference.shape
    }

    @Test func aStreamedDocumentHasTheShapeOfTheWholeDocument() throws {
        let seed = seedFromEnvironment()
        var random = RandomJSON(seed: seed)
        // One large document: an array of random values, with line breaks and indentation between them, and
        // strings longer than any chunk (escapes and multi-byte characters included).
        var parts: [String] = []
        for index in 0..<400 { parts.append(index % 50 == 0 ? "\n    " + random.document() : random.document()) }
        let long = String(repeating: "caf\\u00e9 \\\"quoted\\\" ünïcødé 😀 ", count: 200)
        parts.append(#"{"long": "\#(long)", "when": "2026-11-22T18:00:00Z"}"#)
        let text = "[\n" + parts.joined(separator: ",\n  ") + "\n]\n"
        let whole = try ShapeNode.infer(from: Data(text.utf8), options: InferenceOptions(detectsEnums: true))
        try withFile(Array(text.utf8)) { url in
            for size in Self.chunkSizes {
                let shape = try streamed(url, chunkSize: size, enums: true)
                #expect(shape == whole, "chunk size \(size), seed \(seed) (APIPROBE_SEED replays it)")
            }
        }
    }

    @Test(arguments: [
        ("{\"a\": 1,}", 1, 9, "a string key"),
        ("[1, 2", 1, 6, "',' or ']'"),
        ("{\n  \"a\": tru\n}", 2, 8, "a JSON value"),
        ("\"abc", 1, 5, "'\"' closing the string"),
        ("[01]", 1, 3, "',' or ']'"),
        ("{} {}", 1, 4, "the end of the document"),
        ("[1.]", 1, 4, "a digit after '.'"),
        ("[nul]", 1, 2, "a JSON value"),
        ("\"\\x\"", 1, 3, "an escape (\\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t or \\u)"),
    ])
    func errorsFarIntoAStreamedFileNameTheirLineAndColumn(
        input: String, line: Int, column: Int, expected: String
    ) throws {
        // 300 lines of padding push the error past several windows: dropped lines still count.
        let padding = String(repeating: "    \n", count: 300)
        let text = padding + input
        let inMemory = #expect(throws: InputError.self) {
            _ = try ShapeNode.infer(from: Data(text.utf8), file: "big.json")
        }
        #expect(inMemory?.position == .lineColumn(line: 300 + line, column: column))
        try withFile(Array(text.utf8)) { url in
            for size in Self.chunkSizes {
                let error = #expect(throws: InputError.self, "chunk size \(size)") {
                    _ = try streamed(url, chunkSize: size)
                }
                #expect(error == inMemory, "chunk size \(size)")
                #expect(error?.expected == expected)
            }
        }
    }

    @Test func invalidUTF8AtAWindowsEdgeIsAnErrorAtItsPlace() throws {
        // A four-byte sequence cut short, placed so that it straddles the first 64-byte window.
        for offset in 58..<66 {
            let bytes =
                Array("[\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: offset) + [0xF0, 0x9F, 0x98]
                + Array("\"]".utf8)
            try withFile(bytes) { url in
                let error = #expect(throws: InputError.self) { _ = try streamed(url, chunkSize: 64) }
                #expect(error?.position == .lineColumn(line: 1, column: offset + 3), "offset \(offset)")
                #expect(error?.found == "byte 0xF0")
            }
        }
    }

    @Test func aMissingFileOrAFolderIsNamed() throws {
        let folder = try TemporaryFolder.url
        var inference = ShapeInference()
        let missing = #expect(throws: InputError.self) {
            try inference.addSample(contentsOf: folder.appendingPathComponent("no-such-\(UUID()).json"), file: "x.json")
        }
        #expect(missing?.description == "x.json: expected a readable file, found no such file")
        let isFolder = #expect(throws: InputError.self) {
            try inference.addSample(contentsOf: folder, file: "tmp")
        }
        #expect(isFolder?.description == "tmp: expected a readable file, found a folder")
        #expect(inference.sampleCount == 0)
    }
}

/// `addSamples` reads parts of the samples on several threads and merges the parts' shapes in order.
struct ConcurrentSamplesTests {
    @Test func samplesReadConcurrentlyGiveTheShapeOfReadingThemInOrder() throws {
        let seed = seedFromEnvironment()
        var random = RandomJSON(seed: seed)
        for round in 0..<20 {
            let samples = (0..<(8 + round * 7)).map { index in
                (json: Data(random.document().utf8), file: "sample-\(index).json")
            }
            let options = InferenceOptions(detectsEnums: round % 2 == 0, maximumEnumValues: 4, maximumProperties: 8)
            var inOrder = ShapeInference(options: options)
            for sample in samples { try inOrder.addSample(sample.json, file: sample.file) }
            for concurrency in [2, 3, 8] {
                var concurrent = ShapeInference(options: options)
                try concurrent.addSamples(samples, maximumConcurrency: concurrency)
                #expect(concurrent.shape == inOrder.shape, "seed \(seed), round \(round), \(concurrency) threads")
                #expect(concurrent.shape.orderedPropertyNames == inOrder.shape.orderedPropertyNames)
                #expect(concurrent.sampleCount == samples.count)
            }
        }
    }

    @Test func theFirstBadSampleInOrderIsReported() throws {
        var samples = (0..<40).map { (json: Data(#"{"id": \#($0)}"#.utf8), file: "ok-\($0).json") }
        // Two bad samples in different parts: the earlier one is reported, as reading in order would.
        samples[5] = (Data(#"{"id": }"#.utf8), "first-bad.json")
        samples[35] = (Data("[".utf8), "second-bad.json")
        var inference = ShapeInference()
        let error = #expect(throws: InputError.self) {
            try inference.addSamples(samples, maximumConcurrency: 4)
        }
        #expect(error?.description == "first-bad.json:1:8: expected a JSON value, found '}'")
    }
}

/// APIProbeShared's `parallelMap`: `map`'s result, and the first error in order.
struct ParallelMapTests {
    struct Odd: Error, Equatable { var value: Int }

    @Test func parallelMapKeepsTheOrderAndThrowsTheFirstErrorInOrder() throws {
        let numbers = Array(0..<1_000)
        #expect(numbers.parallelMap { $0 * 2 } == numbers.map { $0 * 2 })
        let error = #expect(throws: Odd.self) {
            _ = try numbers.parallelMap { value throws(Odd) -> Int in
                if value == 901 || value == 7 { throw Odd(value: value) }
                return value
            }
        }
        #expect(error == Odd(value: 7))
        #expect([Int]().parallelMap { $0 } == [])
    }
}
