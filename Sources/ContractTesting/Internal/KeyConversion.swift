import Foundation

/// The key names JSONDecoder would compare against a model's `CodingKey`s, for each of its strategies.
struct KeyConverter {
    let strategy: JSONDecoder.KeyDecodingStrategy

    /// The name the model sees for a JSON key (what JSONDecoder matches against `CodingKey.stringValue`).
    func modelName(forJSONKey jsonKey: String, codingPath: [any CodingKey]) -> String {
        switch strategy {
        case .useDefaultKeys:
            return jsonKey
        case .convertFromSnakeCase:
            return Self.convertFromSnakeCase(jsonKey)
        case .custom(let convert):
            return convert(codingPath + [AnyCodingKey(stringValue: jsonKey)]).stringValue
        @unknown default:
            return jsonKey
        }
    }

    /// The JSON key a model key most likely stands for, for messages about a key that is absent.
    func likelyJSONKey(forModelKey key: String) -> String {
        switch strategy {
        case .convertFromSnakeCase: return Self.convertToSnakeCase(key)
        default: return key
        }
    }

    /// Foundation's `convertFromSnakeCase` algorithm, exactly: leading and trailing underscores kept,
    /// the first word lowercased, later words capitalized (`f2f_url` → `f2fUrl`).
    static func convertFromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let keyRange = firstNonUnderscore...lastNonUnderscore
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)..<key.endIndex]
        let components = key[keyRange].split(separator: "_")
        let joined: String
        if components.count == 1 {
            joined = String(key[keyRange])
        } else {
            joined = ([components[0].lowercased()] + components[1...].map { $0.capitalized }).joined()
        }
        return leading + joined + trailing
    }

    /// Foundation's `convertToSnakeCase` for messages: `socialRank` → `social_rank`.
    static func convertToSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upperCaseRange = key.rangeOfCharacter(from: .uppercaseLetters, options: [], range: searchRange) {
            let untilUpperCase = wordStart..<upperCaseRange.lowerBound
            words.append(untilUpperCase)
            searchRange = upperCaseRange.lowerBound..<searchRange.upperBound
            guard let lowerCaseRange = key.rangeOfCharacter(from: .lowercaseLetters, options: [], range: searchRange)
            else {
                wordStart = searchRange.lowerBound
                break
            }
            let nextCharacterAfterCapital = key.index(after: upperCaseRange.lowerBound)
            if lowerCaseRange.lowerBound == nextCharacterAfterCapital {
                wordStart = upperCaseRange.lowerBound
            } else {
                let beforeLowerIndex = key.index(before: lowerCaseRange.lowerBound)
                words.append(upperCaseRange.lowerBound..<beforeLowerIndex)
                wordStart = beforeLowerIndex
            }
            searchRange = lowerCaseRange.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }
}

/// A coding key made from a string or an index.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
