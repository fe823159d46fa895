import Foundation
import HTTPFixtures

// MARK: What a model would read from the items of an array that was empty
//
// A usage manifest lists the paths a model reads while it decodes the fixtures. Under an array that is empty
// in every fixture (`labels: []`) the model reads nothing, so drift there would rank as information although
// the model will read `/*/labels/*/name` the day a label appears. The usage pass therefore decodes once
// more, with one phantom item in each empty array: a value that has every key the model asks for and gives
// each leaf a default. The keys asked for are the model's demand; the values are thrown away, and so is a
// failure (an enum whose raw value is not the default, say): what was asked before it is kept.

extension ReadLog {
    /// Paths (`*` for array items) read from phantom items: the model's demand under empty arrays.
    func demandUnderEmptyArrays<T: Decodable>(
        _ type: T.Type, from value: JSONValue, path: [PathToken], using decoder: JSONDecoder
    ) -> Set<[PathToken]> {
        guard hasEmptyArrays else { return [] }
        let phantomLog = ReadLog()
        phantomLog.decodesPhantomItems = true
        _ = try? RecordingDecoder.decode(type, from: value, path: path, using: decoder, log: phantomLog)
        return phantomLog.read
    }
}

/// How deep phantom items nest inside phantom items (a recursive model ends there).
private let maximumPhantomDepth = 3

extension RecordingDecoder {
    /// A decoder of a phantom item at `path`.
    func phantom(at path: [PathToken], codingPath: [any CodingKey], depth: Int) -> PhantomDecoder {
        PhantomDecoder(
            path: path, codingPath: codingPath, jsonDecoder: jsonDecoder, log: log, depth: depth,
            converter: KeyConverter(strategy: jsonDecoder.keyDecodingStrategy))
    }
}

/// The decoder of a phantom item: every key is there, every leaf has a default, every array one item.
struct PhantomDecoder: Decoder {
    let path: [PathToken]
    let codingPath: [any CodingKey]
    let jsonDecoder: JSONDecoder
    let log: ReadLog
    let depth: Int
    let converter: KeyConverter
    var userInfo: [CodingUserInfoKey: Any] { jsonDecoder.userInfo.mapValues { $0 as Any } }

    func child(_ token: PathToken, _ key: any CodingKey, depth: Int? = nil) -> PhantomDecoder {
        PhantomDecoder(
            path: path + [token], codingPath: codingPath + [key], jsonDecoder: jsonDecoder, log: log,
            depth: depth ?? self.depth, converter: converter)
    }

    /// A default value of `type`: a leaf from the first JSON text the caller's decoder accepts for it, anything
    /// else decoded through a phantom.
    func unbox<T: Decodable>(_ type: T.Type) throws -> T {
        log.markRead(path)
        guard isLeaf(type) else { return try T(from: self) }
        for text in ["0", "false", "\"\"", "\"1970-01-01T00:00:00Z\"", "\"https://example.com\""] {
            if let value = try? jsonDecoder.decode(type, from: Data(text.utf8)) { return value }
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "no default for \(type)"))
    }

    private func isLeaf(_ type: Any.Type) -> Bool {
        type == Bool.self || type == String.self || type == Double.self || type == Float.self || type == Int.self
            || type == Int8.self || type == Int16.self || type == Int32.self || type == Int64.self || type == UInt.self
            || type == UInt8.self || type == UInt16.self || type == UInt32.self || type == UInt64.self
            || type == Date.self || type == Data.self || type == URL.self || type == Decimal.self
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PhantomKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        PhantomUnkeyedContainer(decoder: self, count: depth < maximumPhantomDepth ? 1 : 0)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        PhantomSingleValueContainer(decoder: self)
    }
}

struct PhantomKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: PhantomDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { [] }

    private func child(_ key: any CodingKey) -> PhantomDecoder {
        decoder.child(.key(decoder.converter.likelyJSONKey(forModelKey: key.stringValue)), key)
    }

    func contains(_ key: Key) -> Bool {
        decoder.log.markRead(child(key).path)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.log.markRead(child(key).path)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).unbox(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { child(AnyCodingKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { child(key) }
}

struct PhantomUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: PhantomDecoder
    let count: Int?
    var currentIndex = 0

    init(decoder: PhantomDecoder, count: Int) {
        self.decoder = decoder
        self.count = count
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    private mutating func next() throws -> PhantomDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "a phantom array has one item"))
        }
        defer { currentIndex += 1 }
        return decoder.child(.index(currentIndex), AnyCodingKey(intValue: currentIndex), depth: decoder.depth + 1)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        decoder.log.markRead(decoder.path + [.index(currentIndex)])
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().unbox(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct PhantomSingleValueContainer: SingleValueDecodingContainer {
    let decoder: PhantomDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        decoder.log.markRead(decoder.path)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.unbox(type) }
}
