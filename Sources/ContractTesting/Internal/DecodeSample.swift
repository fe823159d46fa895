import APIProbeShared
import Foundation
import HTTPFixtures

/// The result of decoding one sample: the value or a readable failure, and what the model read.
struct DecodedSample<T> {
    var sample: Sample
    var result: Result<T, InputError>
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
        let failure = InputError(
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
        let failure = InputError.make(
            from: located, document: sample.document, base: pointer, file: sample.file, decoder: decoder)
        return DecodedSample(sample: sample, result: .failure(failure), log: nil, base: base)
    } catch {
        let failure = InputError(
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

/// Decodes `type` at every place `pointer` names in the sample: a pointer with `*` tokens (`/*/user`, the
/// paths every message prints) stands for each item of the array there, so one call decodes every item.
///
/// A `*` over something that is not an array is a failure naming the place; over an empty array it names
/// nothing to decode.
func decodeEach<T: Decodable>(
    _ type: T.Type,
    from sample: Sample,
    at pointer: String,
    decoder: JSONDecoder,
    recording: Bool
) -> [DecodedSample<T>] {
    guard pointer.split(separator: "/", omittingEmptySubsequences: false).contains("*") else {
        return [decodeSample(type, from: sample, at: pointer, decoder: decoder, recording: recording)]
    }
    switch expandWildcards(in: pointer, over: sample.document) {
    case .success(let pointers):
        return pointers.map { decodeSample(type, from: sample, at: $0, decoder: decoder, recording: recording) }
    case .failure(let failure):
        let located = failure.inFile(sample.file)
        return [DecodedSample(sample: sample, result: .failure(located), log: nil, base: [])]
    }
}

/// The concrete pointers a pointer with `*` tokens names in `document`, in document order.
func expandWildcards(in pointer: String, over document: JSONValue) -> Result<[String], InputError> {
    guard let tokens = JSONPointer.tokens(of: pointer) else {
        return .failure(
            InputError(file: "", pointer: pointer, expected: "a JSON Pointer starting with /", found: pointer))
    }
    var places: [(pointer: String, value: JSONValue)] = [("", document)]
    for token in tokens {
        var next: [(pointer: String, value: JSONValue)] = []
        for place in places {
            switch place.value {
            case .array(let items) where token == "*":
                for (index, item) in items.enumerated() { next.append((place.pointer + "/\(index)", item)) }
            case .object where token != "*" || place.value[token] != nil:
                guard let child = place.value[token] else {
                    return .failure(
                        InputError(
                            file: "", pointer: place.pointer + "/" + JSONPointer.escape(token),
                            expected: "a value to decode from", found: "nothing"))
                }
                next.append((place.pointer + "/" + JSONPointer.escape(token), child))
            case .array(let items):
                guard let index = Int(token), items.indices.contains(index) else {
                    return .failure(
                        InputError(
                            file: "", pointer: place.pointer + "/" + token, expected: "a value to decode from",
                            found: "nothing"))
                }
                next.append((place.pointer + "/" + token, items[index]))
            default:
                return .failure(
                    InputError(
                        file: "", pointer: place.pointer,
                        expected: token == "*" ? "an array for * to range over" : "an object or array",
                        found: place.value.briefDescription))
            }
        }
        places = next
    }
    return .success(places.map(\.pointer))
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
