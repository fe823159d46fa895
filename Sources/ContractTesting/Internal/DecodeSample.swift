import Foundation
import HTTPFixtures

/// The result of decoding one sample: the value or a readable failure, and what the model read.
struct DecodedSample<T> {
    var sample: Sample
    var result: Result<T, DecodingFailure>
    /// What the model read, when the recording pass ran and agreed with `JSONDecoder`.
    var log: ReadLog?
    /// The tokens of the pointer the model was decoded at.
    var base: [PathToken]
}

/// Decodes `type` from `sample` at `pointer` with the real `JSONDecoder` (the value and any error are
/// JSONDecoder's own), then, when `recording`, decodes it again with the recording decoder to observe
/// the JSON paths the model reads.
func decodeSample<T: Decodable>(
    _ type: T.Type,
    from sample: Sample,
    at pointer: String,
    decoder: JSONDecoder,
    recording: Bool
) -> DecodedSample<T> {
    guard let base = pathTokens(of: pointer, in: sample.document), let value = sample.document.value(at: pointer) else {
        let failure = DecodingFailure(
            file: sample.file, pointer: pointer, expected: "a value to decode \(T.self) from",
            found: pointer.hasPrefix("/") || pointer.isEmpty ? "nothing" : "a pointer that does not start with /"
        )
        return DecodedSample(sample: sample, result: .failure(failure), log: nil, base: [])
    }
    let decoded: T
    do {
        decoded = try decoder.decode(type, from: value.serialized())
    } catch let error as DecodingError {
        // JSONDecoder leaves some coding paths empty (a date that fails its strategy, for one); the
        // recording decoder hands each leaf to the same JSONDecoder at a known path, so its error says where.
        var located = error
        do {
            _ = try RecordingDecoder.decode(type, from: value, path: base, using: decoder, log: ReadLog())
        } catch let recorded as DecodingError
            where recorded.sameCase(as: error) && recorded.codingPathLength > error.codingPathLength
        {
            located = recorded
        } catch {}
        let failure = DecodingFailure.make(
            from: located, document: sample.document, base: pointer, file: sample.file, decoder: decoder)
        return DecodedSample(sample: sample, result: .failure(failure), log: nil, base: base)
    } catch {
        let failure = DecodingFailure(
            file: sample.file, pointer: pointer, expected: "\(T.self)", found: "an error: \(error)")
        return DecodedSample(sample: sample, result: .failure(failure), log: nil, base: base)
    }
    var log: ReadLog?
    if recording {
        let recorded = ReadLog()
        if (try? RecordingDecoder.decode(type, from: value, path: base, using: decoder, log: recorded)) != nil {
            log = recorded
        }
    }
    return DecodedSample(sample: sample, result: .success(decoded), log: log, base: base)
}

extension DecodingError {
    var codingPathLength: Int {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            return context.codingPath.count
        @unknown default:
            return 0
        }
    }

    func sameCase(as other: DecodingError) -> Bool {
        switch (self, other) {
        case (.typeMismatch, .typeMismatch), (.valueNotFound, .valueNotFound), (.keyNotFound, .keyNotFound),
            (.dataCorrupted, .dataCorrupted):
            return true
        default:
            return false
        }
    }
}
