import Foundation
import HTTPFixtures

/// Why a model could not be decoded from a response body; the one `InputError` of HTTPFixtures, at the JSON Pointer
/// of the failing value (for a missing key: of the object that lacks it), naming the fixture file or another name for
/// the body (`response body of GET https://…`).
///
/// ```
/// Stubs/recipes/search.json: /recipes/3/social_rank: expected Double, found string "99.9"
/// Stubs/recipes/get.json: /recipe: expected key "social_rank" (socialRank), found an object without it (keys: publisher, rank, title)
/// ```
@available(*, deprecated, renamed: "InputError")
public typealias DecodingFailure = InputError

extension InputError {
    /// A failure at a JSON Pointer in a body.
    init(file: String, pointer: String, expected: String, found: String) {
        self.init(file: file, position: .jsonPointer(pointer), expected: expected, found: found)
    }

    /// The failure in brief, without what was found: for the checks that only say a document did not decode.
    var headline: String {
        "\(file): \(position): expected \(expected)"
    }
}

extension InputError {
    /// Renders any `DecodingError` against the document it came from, naming JSON keys (not Swift keys).
    ///
    /// - Parameters:
    ///   - error: the error `JSONDecoder` threw while decoding the value at `base`.
    ///   - document: the whole body.
    ///   - base: the JSON Pointer the model was decoded at (`""` for the whole body).
    ///   - file: the name used in the message.
    ///   - decoder: the decoder that threw, for its key strategy.
    static func make(from error: DecodingError, document: JSONValue, base: String, file: String, decoder: JSONDecoder)
        -> InputError
    {
        let converter = KeyConverter(strategy: decoder.keyDecodingStrategy)
        let baseValue = document.value(at: base) ?? document
        let baseTokens = pathTokens(of: base, in: document) ?? []

        func resolve(_ codingPath: [any CodingKey]) -> (tokens: [PathToken], value: JSONValue?, rest: [any CodingKey]) {
            var tokens = baseTokens
            var current: JSONValue? = baseValue
            var walked: [any CodingKey] = []
            for (offset, key) in codingPath.enumerated() {
                switch current {
                case .object(let members)?:
                    let match =
                        members.first { converter.modelName(forJSONKey: $0.key, codingPath: walked) == key.stringValue }
                        ?? members.first { $0.key == key.stringValue }
                    guard let match else { return (tokens, nil, Array(codingPath[offset...])) }
                    tokens.append(.key(match.key))
                    current = match.value
                case .array(let items)?:
                    guard let index = key.intValue, items.indices.contains(index) else {
                        return (tokens, nil, Array(codingPath[offset...]))
                    }
                    tokens.append(.index(index))
                    current = items[index]
                default:
                    return (tokens, nil, Array(codingPath[offset...]))
                }
                walked.append(key)
            }
            return (tokens, current, [])
        }

        func unresolvedSuffix(_ rest: [any CodingKey]) -> String {
            rest.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
        }

        switch error {
        case .typeMismatch(let type, let context):
            let (tokens, value, rest) = resolve(context.codingPath)
            let found = value?.briefDescription ?? "nothing at \(unresolvedSuffix(rest))"
            return InputError(file: file, pointer: tokens.pointer, expected: typeName(type), found: found)

        case .valueNotFound(let type, let context):
            let (tokens, value, rest) = resolve(context.codingPath)
            let found: String
            if let value {
                found = value.briefDescription
            } else if context.debugDescription.contains("at end") {
                found = "the end of the array"
            } else {
                found = "nothing at \(unresolvedSuffix(rest))"
            }
            return InputError(file: file, pointer: tokens.pointer, expected: typeName(type), found: found)

        case .keyNotFound(let key, let context):
            let (tokens, value, _) = resolve(context.codingPath)
            let jsonKey =
                key.intValue.map { "item \($0)" } ?? "key \"\(converter.likelyJSONKey(forModelKey: key.stringValue))\""
            let swiftNote =
                converter.likelyJSONKey(forModelKey: key.stringValue) == key.stringValue ? "" : " (\(key.stringValue))"
            let found: String
            switch value {
            case .object(let members)?:
                if let jsonKey = KeySuggestion.conversionMismatch(
                    modelKey: key.stringValue, among: members.map(\.key), strategy: decoder.keyDecodingStrategy)
                {
                    // The key is there; the strategy turns it into another name than the model's.
                    let name = KeyConverter.convertFromSnakeCase(jsonKey)
                    return InputError(
                        file: file, pointer: tokens.pointer,
                        expected: "a key that .convertFromSnakeCase turns into \"\(key.stringValue)\"",
                        found:
                            "\"\(jsonKey)\", which it turns into \"\(name)\": name the property \(name), or give it a CodingKey"
                    )
                }
                let wanted = converter.likelyJSONKey(forModelKey: key.stringValue)
                found =
                    members.isEmpty
                    ? "an empty object"
                    : "an object without it"
                        + KeySuggestion.hint(
                            for: wanted, among: members.map(\.key), strategy: decoder.keyDecodingStrategy)
            case .array(let items)?:
                found = "an array of \(items.count)"
            case let other?:
                found = other.briefDescription
            case nil:
                found = "nothing"
            }
            return InputError(file: file, pointer: tokens.pointer, expected: jsonKey + swiftNote, found: found)

        case .dataCorrupted(let context):
            let (tokens, value, _) = resolve(context.codingPath)
            let found = value?.briefDescription ?? "nothing"
            return InputError(
                file: file, pointer: tokens.pointer, expected: expectation(from: context.debugDescription), found: found
            )

        @unknown default:
            return InputError(file: file, pointer: base, expected: "a decodable value", found: "\(error)")
        }
    }

    /// `Swift.Double` → `Double`, `Array<Recipe>` → `[Recipe]`-like names, `Dictionary<String, Any>` → `object`.
    static func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "an object" }
        if type == [Any].self { return "an array" }
        return String(describing: type)
    }

    /// Turns a `dataCorrupted` description into an expectation: `Expected date string to be ISO8601-formatted.` →
    /// `date string to be ISO8601-formatted`.
    static func expectation(from debugDescription: String) -> String {
        var text = debugDescription.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".") { text.removeLast() }
        if text.lowercased().hasPrefix("expected ") { return String(text.dropFirst("expected ".count)) }
        return text.isEmpty ? "a valid value" : "a valid value (\(text))"
    }
}

/// What to say about a key the model wants and the object lacks: the closest keys first, a hint when the JSON
/// spells the key in another case convention, and a listing short enough to read on a 90-key object.
enum KeySuggestion {
    /// How many keys an object may have before only the closest are listed.
    static let listedInFull = 12
    /// How many of the closest keys a long listing shows.
    static let listedClosest = 8

    /// `; did you mean "rank"? (keys: publisher, rank, title)`, or the case-convention hint.
    /// Under `.convertFromSnakeCase`, the JSON key that the strategy turns into a name differing from
    /// `modelKey` only in case (`node_id` → `nodeId` for a property `nodeID`), if there is one.
    static func conversionMismatch(
        modelKey: String, among keys: [String], strategy: JSONDecoder.KeyDecodingStrategy
    ) -> String? {
        guard case .convertFromSnakeCase = strategy else { return nil }
        return keys.sorted().first { key in
            let name = KeyConverter.convertFromSnakeCase(key)
            return name != modelKey && name.lowercased() == modelKey.lowercased()
        }
    }

    static func hint(for wanted: String, among keys: [String], strategy: JSONDecoder.KeyDecodingStrategy) -> String {
        let ranked = keys.map { (key: $0, distance: distance(wanted, $0)) }
            .sorted { ($0.distance, $0.key) < ($1.distance, $1.key) }
        var text = ""
        if let sameWord = keys.first(where: { normalized($0) == normalized(wanted) }) {
            if case .useDefaultKeys = strategy, sameWord.contains("_"), !wanted.contains("_") {
                text = "; the JSON uses snake_case (\"\(sameWord)\"): did you mean to use .convertFromSnakeCase?"
            } else {
                text =
                    "; did you mean \"\(sameWord)\"? (the same word, spelled in another case or with other separators)"
            }
        } else if let closest = ranked.first(where: { isClose(wanted, $0.key, distance: $0.distance) }) {
            text = "; did you mean \"\(closest.key)\"?"
        }
        if keys.count <= listedInFull {
            return text + " (keys: \(keys.sorted().joined(separator: ", ")))"
        }
        let shown = ranked.prefix(listedClosest).map(\.key)
        return text + " (closest keys: \(shown.joined(separator: ", ")), and \(keys.count - shown.count) more)"
    }

    /// Lowercased, without `_` and `-`: `node_id`, `nodeId` and `NodeID` are one word.
    static func normalized(_ key: String) -> String {
        String(key.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }

    /// Close enough to suggest: a few edits apart (a third of the shorter name), one name inside the other, or
    /// a short name that is a whole word of the other (`id` in `storeId` or `store_id`: a key renamed with a
    /// prefix).
    static func isClose(_ a: String, _ b: String, distance: Int) -> Bool {
        let shorter = min(a.count, b.count)
        if distance <= max(1, shorter / 3) { return true }
        let (x, y) = (normalized(a), normalized(b))
        if shorter >= 4 && (x.contains(y) || y.contains(x)) { return true }
        let (short, long) = a.count <= b.count ? (words(a), words(b)) : (words(b), words(a))
        guard !short.isEmpty, long.count > short.count else { return false }
        return long.suffix(short.count).elementsEqual(short) || long.prefix(short.count).elementsEqual(short)
    }

    /// The words of a key, lowercased: `storeId` → `store`, `id`; `store_id` and `StoreID` likewise.
    static func words(_ key: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in key {
            if character == "_" || character == "-" || character == " " || character == "." {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                if let previous, character.isUppercase, previous.isLowercase || previous.isNumber, !current.isEmpty {
                    words.append(current)
                    current = ""
                }
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }
    }

    /// The Levenshtein distance between two names.
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
