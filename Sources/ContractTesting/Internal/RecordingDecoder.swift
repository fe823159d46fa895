import Foundation
import HTTPFixtures

/// What a model read while it decoded one JSON document.
final class ReadLog {
    /// Concrete paths of every value the model decoded or opened a container on.
    var read: Set<[PathToken]> = []
    /// Paths whose whole subtree was handed to `JSONDecoder` (dates, data, URLs, numbers, strings…).
    var consumed: Set<[PathToken]> = []
    /// `decodeIfPresent` calls: concrete path → whether a non-null value was there.
    var optionalProbes: [[PathToken]: Bool] = [:]
    /// Concrete paths of members read with `decode` (or `decodeNil`): a model that needs them there.
    var required: Set<[PathToken]> = []
    /// Whether the document had an array with no items (see `demandUnderEmptyArrays`).
    var hasEmptyArrays = false
    /// Whether an empty array is decoded as holding one phantom item (the usage pass under empty arrays).
    var decodesPhantomItems = false

    func markRead(_ path: [PathToken]) {
        var prefix = path
        while !prefix.isEmpty {
            guard read.insert(prefix).inserted else { break }
            prefix.removeLast()
        }
    }
}

/// Types that `JSONDecoder` decodes itself instead of calling their `init(from:)`, or whose reading
/// depends on its strategies: the recording decoder hands these to the real `JSONDecoder`.
private func isLeafType(_ type: Any.Type) -> Bool {
    type == Bool.self || type == String.self || type == Double.self || type == Float.self
        || type == Int.self || type == Int8.self || type == Int16.self || type == Int32.self || type == Int64.self
        || type == UInt.self || type == UInt8.self || type == UInt16.self || type == UInt32.self || type == UInt64.self
        || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
}

/// `[String: Value]`: JSONDecoder decodes its keys verbatim, without the key decoding strategy.
private protocol StringKeyedDictionaryMarker {}
extension Dictionary: StringKeyedDictionaryMarker where Key == String, Value: Decodable {}

/// A `Decoder` over a parsed document that behaves like `JSONDecoder` with the same strategies and
/// records every JSON path the model reads.
///
/// Leaves (numbers, strings, Booleans, dates, data, URLs, decimals) are decoded by the caller's own
/// `JSONDecoder` from the leaf's JSON text, so every value strategy is honoured exactly; keys are
/// matched with the decoder's `keyDecodingStrategy` the way `JSONDecoder` matches them.
struct RecordingDecoder: Decoder {
    let value: JSONValue
    let path: [PathToken]
    let codingPath: [any CodingKey]
    let jsonDecoder: JSONDecoder
    let log: ReadLog
    var verbatimKeys = false
    var userInfo: [CodingUserInfoKey: Any] { jsonDecoder.userInfo.mapValues { $0 as Any } }

    init(
        value: JSONValue, path: [PathToken], codingPath: [any CodingKey], jsonDecoder: JSONDecoder, log: ReadLog,
        verbatimKeys: Bool = false
    ) {
        self.value = value
        self.path = path
        self.codingPath = codingPath
        self.jsonDecoder = jsonDecoder
        self.log = log
        self.verbatimKeys = verbatimKeys
    }

    /// Decodes `type` from the document, recording what it reads.
    static func decode<T: Decodable>(
        _ type: T.Type, from value: JSONValue, path: [PathToken], using decoder: JSONDecoder, log: ReadLog
    ) throws -> T {
        let root = RecordingDecoder(value: value, path: path, codingPath: [], jsonDecoder: decoder, log: log)
        return try root.unbox(type, from: value, path: path, codingPath: [])
    }

    func unbox<T: Decodable>(_ type: T.Type, from value: JSONValue, path: [PathToken], codingPath: [any CodingKey])
        throws -> T
    {
        log.markRead(path)
        if isLeafType(type) {
            log.consumed.insert(path)
            // Strings, Booleans and plain numbers are read straight from the parsed value: a JSONDecoder call
            // per leaf made the recording pass several times slower than decoding. Anything else (dates,
            // data, URLs, decimals, non-conforming floats, a value that does not fit) goes to the caller's own
            // JSONDecoder, so its strategies and its errors are exactly JSONDecoder's.
            if let direct = Self.directLeaf(type, from: value) { return direct }
            do {
                return try jsonDecoder.decode(type, from: value.serialized())
            } catch let error as DecodingError {
                throw error.prefixed(with: codingPath)
            }
        }
        let child = RecordingDecoder(
            value: value, path: path, codingPath: codingPath, jsonDecoder: jsonDecoder, log: log,
            verbatimKeys: type is any StringKeyedDictionaryMarker.Type
        )
        return try T(from: child)
    }

    /// A string, Boolean or number leaf decoded without JSONDecoder, when the value is one it reads the same way.
    static func directLeaf<T>(_ type: T.Type, from value: JSONValue) -> T? {
        switch value {
        case .string(let text) where type == String.self:
            return text as? T
        case .bool(let flag) where type == Bool.self:
            return flag as? T
        case .number(let literal):
            if type == Int.self { return Int(literal) as? T }
            if type == Double.self { return Double(literal) as? T }
            if type == Int64.self { return Int64(literal) as? T }
            if type == Float.self, let double = Double(literal), let float = Float(exactly: double) {
                return float as? T
            }
            if type == UInt.self { return UInt(literal) as? T }
            if type == Int32.self { return Int32(literal) as? T }
            return nil
        default:
            return nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected to decode Dictionary<String, Any> but found \(value.typeName) instead.")
            )
        }
        let converter = KeyConverter(strategy: verbatimKeys ? .useDefaultKeys : jsonDecoder.keyDecodingStrategy)
        var byModelName: [String: (jsonKey: String, value: JSONValue)] = [:]
        for member in members {
            let name = converter.modelName(forJSONKey: member.key, codingPath: codingPath)
            if byModelName[name] == nil { byModelName[name] = (member.key, member.value) }
        }
        return KeyedDecodingContainer(
            RecordingKeyedContainer<Key>(decoder: self, members: byModelName, converter: converter))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else {
            throw DecodingError.typeMismatch(
                [Any].self,
                .init(
                    codingPath: codingPath,
                    debugDescription: "Expected to decode Array<Any> but found \(value.typeName) instead.")
            )
        }
        if items.isEmpty {
            log.hasEmptyArrays = true
            if log.decodesPhantomItems {
                return PhantomUnkeyedContainer(decoder: phantom(at: path, codingPath: codingPath, depth: 0), count: 1)
            }
        }
        return RecordingUnkeyedContainer(decoder: self, items: items)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingleValueContainer(decoder: self)
    }
}

extension DecodingError {
    /// The error with `prefix` in front of its coding path.
    func prefixed(with prefix: [any CodingKey]) -> DecodingError {
        guard !prefix.isEmpty else { return self }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, context.prefixed(with: prefix))
        case .valueNotFound(let type, let context): return .valueNotFound(type, context.prefixed(with: prefix))
        case .keyNotFound(let key, let context): return .keyNotFound(key, context.prefixed(with: prefix))
        case .dataCorrupted(let context): return .dataCorrupted(context.prefixed(with: prefix))
        @unknown default: return self
        }
    }
}

extension DecodingError.Context {
    func prefixed(with prefix: [any CodingKey]) -> DecodingError.Context {
        DecodingError.Context(
            codingPath: prefix + codingPath, debugDescription: debugDescription, underlyingError: underlyingError)
    }
}

struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: RecordingDecoder
    let members: [String: (jsonKey: String, value: JSONValue)]
    let converter: KeyConverter

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        guard let member = members[key.stringValue] else { return false }
        decoder.log.markRead(decoder.path + [.key(member.jsonKey)])
        return true
    }

    private func member(_ key: Key) throws -> (jsonKey: String, value: JSONValue) {
        guard let member = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: codingPath,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
            )
        }
        return member
    }

    /// The path a probe for an absent key is recorded under.
    private func absentPath(_ key: Key) -> [PathToken] {
        decoder.path + [.key(converter.likelyJSONKey(forModelKey: key.stringValue))]
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let member = try member(key)
        decoder.log.markRead(decoder.path + [.key(member.jsonKey)])
        decoder.log.required.insert(decoder.path + [.key(member.jsonKey)])
        return member.value == .null
    }

    func decodeValue<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let member = try member(key)
        let path = decoder.path + [.key(member.jsonKey)]
        decoder.log.required.insert(path)
        if member.value == .null, !(T.self is any ExpressibleByNilLiteral.Type) {
            decoder.log.markRead(path)
            throw DecodingError.valueNotFound(
                type,
                .init(
                    codingPath: codingPath + [key], debugDescription: "Expected \(type) value but found null instead.")
            )
        }
        return try decoder.unbox(type, from: member.value, path: path, codingPath: codingPath + [key])
    }

    func decodeValueIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let member = members[key.stringValue] else {
            let path = absentPath(key)
            if decoder.log.optionalProbes[path] == nil { decoder.log.optionalProbes[path] = false }
            return nil
        }
        let path = decoder.path + [.key(member.jsonKey)]
        decoder.log.markRead(path)
        if member.value == .null {
            if decoder.log.optionalProbes[path] == nil { decoder.log.optionalProbes[path] = false }
            return nil
        }
        decoder.log.optionalProbes[path] = true
        return try decoder.unbox(type, from: member.value, path: path, codingPath: codingPath + [key])
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decodeValue(type, forKey: key) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try decodeValueIfPresent(type, forKey: key)
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try decodeValueIfPresent(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try childDecoder(forKey: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try childDecoder(forKey: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try childDecoder(forKey: AnyCodingKey(stringValue: "super"), modelName: "super")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try childDecoder(forKey: key)
    }

    private func childDecoder(forKey key: any CodingKey, modelName: String? = nil) throws -> RecordingDecoder {
        let name = modelName ?? key.stringValue
        guard let member = members[name] else {
            throw DecodingError.keyNotFound(
                key,
                .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(name)\").")
            )
        }
        let path = decoder.path + [.key(member.jsonKey)]
        decoder.log.markRead(path)
        return RecordingDecoder(
            value: member.value, path: path, codingPath: codingPath + [key], jsonDecoder: decoder.jsonDecoder,
            log: decoder.log)
    }
}

struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: RecordingDecoder
    let items: [JSONValue]
    var currentIndex = 0

    init(decoder: RecordingDecoder, items: [JSONValue]) {
        self.decoder = decoder
        self.items = items
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var indexKey: AnyCodingKey { AnyCodingKey(intValue: currentIndex) }

    private func current<T>(_ type: T.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: codingPath + [indexKey], debugDescription: "Unkeyed container is at end.")
            )
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        let value = try current(Never.self)
        decoder.log.markRead(decoder.path + [.index(currentIndex)])
        if value == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decodeNext<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try current(type)
        let path = decoder.path + [.index(currentIndex)]
        if value == .null, !(T.self is any ExpressibleByNilLiteral.Type) {
            decoder.log.markRead(path)
            throw DecodingError.valueNotFound(
                type,
                .init(codingPath: codingPath + [indexKey], debugDescription: "Expected \(type) but found null instead.")
            )
        }
        let result = try decoder.unbox(type, from: value, path: path, codingPath: codingPath + [indexKey])
        currentIndex += 1
        return result
    }

    mutating func decodeNextIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if isAtEnd { return nil }
        if try decodeNil() { return nil }
        return try decodeNext(type)
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeNext(type) }
    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try decodeNextIfPresent(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try decodeNextIfPresent(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        let child = try nextDecoder()
        return try child.container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let child = try nextDecoder()
        return try child.unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        try nextDecoder()
    }

    private mutating func nextDecoder() throws -> RecordingDecoder {
        let value = try current(Any.self)
        let path = decoder.path + [.index(currentIndex)]
        decoder.log.markRead(path)
        let child = RecordingDecoder(
            value: value, path: path, codingPath: codingPath + [indexKey], jsonDecoder: decoder.jsonDecoder,
            log: decoder.log)
        currentIndex += 1
        return child
    }
}

struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let decoder: RecordingDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.log.markRead(decoder.path)
        return decoder.value == .null
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Bool.Type) throws -> Bool {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: String.Type) throws -> String {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Double.Type) throws -> Double {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Float.Type) throws -> Float {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Int.Type) throws -> Int {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Int8.Type) throws -> Int8 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Int16.Type) throws -> Int16 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Int32.Type) throws -> Int32 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: Int64.Type) throws -> Int64 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: UInt.Type) throws -> UInt {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try decoder.unbox(type, from: decoder.value, path: decoder.path, codingPath: codingPath)
    }
}
