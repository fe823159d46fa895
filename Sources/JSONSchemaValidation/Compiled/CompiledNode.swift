import APIProbeShared
import Foundation
import HTTPFixtures

/// One subschema, compiled: its keywords in evaluation order, each with what it needs resolved (references to
/// node numbers, patterns compiled, bounds read).
struct CompiledNode: Sendable {
    enum Kind: Sendable {
        /// `true`, or an object schema whose keywords all pass anything.
        case alwaysValid
        /// `false`.
        case alwaysInvalid
        case keywords
    }

    var kind: Kind
    var keywords: KeywordList
    /// The schema resource (an `$id`, or a document) the subschema belongs to: the dynamic scope is made of these.
    var resource: Int
    /// Where the subschema is: its resource's URI and a JSON Pointer fragment, for `absoluteKeywordLocation`.
    var absoluteLocation: String
    /// Whether a keyword of this node reads what other keywords evaluated (`unevaluatedProperties`/`Items`).
    var readsEvaluated: Bool
    /// The node a `$ref` that is this node's only keyword leads to (-1 when it has others): the fast path goes
    /// there directly.
    var forward = -1
    /// Whether every keyword is an assertion on the instance itself (no subschema, no annotation): the fast path
    /// checks such a node without the machinery of subschemas.
    var isLeaf = false
    /// A leaf's assertions gathered, when they can be (see ``LeafPlan``).
    var leafPlan: Ref<LeafPlan>?
    /// An object node's keywords gathered, when they can be (see ``ObjectPlan``).
    var objectPlan: Ref<ObjectPlan>?
    /// What the keywords refer to; kept alive by every node of the compile.
    let storage: KeywordStorage
}

// MARK: Storage

/// What the compiled keywords of one compile refer to: objects, and memory of their own (node numbers, names as
/// bytes, the keyword lists). Keywords are plain values that point into it, so that evaluation copies them without
/// reference counting. Freed with the last node that holds it; a ``CompiledSchema`` holds its nodes, and an
/// evaluation holds its compiled schema.
final class KeywordStorage: Sendable {
    private let objects = Locked<[AnyObject]>([])
    private let memory = Locked<[UnsafeMutableRawPointer]>([])

    init() {}

    deinit {
        memory.withLock { blocks in for block in blocks { block.deallocate() } }
    }

    /// `object`, held here, referred to without counting.
    func hold<Object: AnyObject & Sendable>(_ object: Object) -> Held<Object> {
        objects.withLock { $0.append(object) }
        return Held(object)
    }

    /// A copy of `values` in memory of its own (trivial values only).
    func buffer<Element: BitwiseCopyable>(_ values: [Element]) -> UnsafeBufferPointer<Element> {
        let block = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(values.count, 1))
        _ = block.initialize(from: values)
        memory.withLock { $0.append(UnsafeMutableRawPointer(block.baseAddress!)) }
        return UnsafeBufferPointer(rebasing: block[0..<values.count])
    }
}

/// An object a compiled keyword refers to without counting: its ``KeywordStorage`` keeps it alive.
struct Held<Object: AnyObject & Sendable>: @unchecked Sendable {
    private let reference: Unmanaged<Object>

    fileprivate init(_ object: Object) { reference = .passUnretained(object) }

    /// Calls `body` with the object, not retained.
    @inline(__always)
    func with<Result>(_ body: (Object) -> Result) -> Result { reference._withUnsafeGuaranteedRef(body) }

    /// The object (retained), for the paths that are not hot.
    var object: Object { reference.takeUnretainedValue() }
}

/// A plain value in the storage, referred to by its address (keywords stay small and count no reference).
struct Ref<Value>: @unchecked Sendable {
    let pointer: UnsafePointer<Value>

    @inline(__always)
    var value: Value { pointer.pointee }
}

extension KeywordStorage {
    /// `value`, kept here.
    func store<Value: BitwiseCopyable>(_ value: Value) -> Ref<Value> {
        Ref(pointer: buffer([value]).baseAddress!)
    }
}

/// A node's keywords, in the storage.
struct KeywordList: RandomAccessCollection, @unchecked Sendable {
    let elements: UnsafeBufferPointer<CompiledKeyword>

    static let empty = KeywordList(elements: UnsafeBufferPointer(start: nil, count: 0))

    var startIndex: Int { 0 }
    var endIndex: Int { elements.count }

    @inline(__always)
    subscript(position: Int) -> CompiledKeyword { elements[position] }
}

/// Node numbers (`allOf`, `anyOf`, `oneOf`, `prefixItems`), in the storage: one pointer, to the count and then
/// the numbers (keywords stay small).
struct NodeList: @unchecked Sendable {
    private let base: UnsafePointer<Int>

    init(_ numbers: [Int], storage: KeywordStorage) {
        base = storage.buffer([numbers.count] + numbers).baseAddress!
    }

    var numbers: UnsafeBufferPointer<Int> { UnsafeBufferPointer(start: base + 1, count: base[0]) }
}

/// Boxes for the keywords' values that are not plain.
final class Box<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The spellings of the keywords that several keywords compile to, for locations and messages.
enum KeywordSpelling: UInt8, Sendable {
    case reference
    case items
    case additionalItems
    case prefixItems
    case dependentRequired
    case dependentSchemas
    case dependencies

    var text: String {
        switch self {
        case .reference: return "$ref"
        case .items: return "items"
        case .additionalItems: return "additionalItems"
        case .prefixItems: return "prefixItems"
        case .dependentRequired: return "dependentRequired"
        case .dependentSchemas: return "dependentSchemas"
        case .dependencies: return "dependencies"
        }
    }
}

// MARK: Values of keywords

/// A number bound (`minimum: 10`), read both ways: `Double` for speed, exactly where `Double` cannot decide.
struct NumberBound: Sendable {
    let double: Double
    private let details: Held<Box<(literal: String, exact: ExactNumber?, integer: Int?)>>

    init?(_ value: JSONValue, storage: KeywordStorage) {
        guard case .number(let literal) = value, let double = Double(literal) else { return nil }
        self.double = double
        details = storage.hold(Box((literal, ExactNumber(literal), NumberLiteral.smallInteger(literal))))
    }

    var literal: String { details.object.value.literal }
    var exact: ExactNumber? { details.object.value.exact }
    /// The bound when it is an integer of at most 15 digits (exact both as `Int` and as `Double`).
    var integer: Int? { details.with { $0.value.integer } }

    /// The order of an instance's number literal against the bound: -1, 0 or 1.
    @inline(__always)
    func compare(instance literal: String) -> Int {
        guard let value = NumberLiteral.double(literal) else { return 0 }
        if value < double { return -1 }
        if value > double { return 1 }
        // Rounding is monotonic, so unequal Doubles decide; equal ones may hide a difference in the digits.
        // Integers of up to 15 digits are exact as Doubles: equal Doubles are equal numbers.
        if NumberLiteral.smallInteger(literal) != nil, integer != nil { return 0 }
        guard let exact, let instance = ExactNumber(literal) else { return 0 }
        return ExactNumber.compare(instance, exact)
    }
}

/// Names (`properties`, `required`, an `enum`'s strings), each once, as UTF-8 bytes in memory of their own, found
/// by a member name or string byte for byte (JSON Schema compares code points, not canonical equivalents).
/// Instances usually list their members in the schema's order, so the name after the last one found is tried
/// first; then the names of the same byte count.
///
/// Plain values (pointers into the storage), so that reading one from the object that holds it counts no reference.
struct NameTable: @unchecked Sendable {
    let count: Int
    /// The byte count and the offset in `bytes` of each name.
    private let lengths: UnsafeBufferPointer<Int>
    private let offsets: UnsafeBufferPointer<Int>
    private let bytes: UnsafeBufferPointer<UInt8>
    /// For more than 16 names: the name indices by byte count, those of count `c` in
    /// `byLength[lengthStarts[c]..<lengthStarts[c + 1]]` (counts of 64 and more share the last bucket).
    private let lengthStarts: UnsafeBufferPointer<Int>
    private let byLength: UnsafeBufferPointer<Int>

    /// The table of `names` (a repeated name once).
    init(_ names: [String], storage: KeywordStorage) {
        var unique: [[UInt8]] = []
        for name in names where !unique.contains(where: { $0.elementsEqual(name.utf8) }) {
            unique.append(Array(name.utf8))
        }
        count = unique.count
        lengths = storage.buffer(unique.map(\.count))
        var offsets: [Int] = []
        var all: [UInt8] = []
        for name in unique {
            offsets.append(all.count)
            all += name
        }
        self.offsets = storage.buffer(offsets)
        bytes = storage.buffer(all)
        let buckets = 65
        var starts = [Int](repeating: 0, count: buckets + 1)
        for name in unique { starts[min(name.count, buckets - 1) + 1] += 1 }
        for bucket in 0..<buckets { starts[bucket + 1] += starts[bucket] }
        var next = starts
        var order = [Int](repeating: 0, count: unique.count)
        for (index, name) in unique.enumerated() {
            let bucket = min(name.count, buckets - 1)
            order[next[bucket]] = index
            next[bucket] += 1
        }
        lengthStarts = storage.buffer(starts)
        byLength = storage.buffer(order)
    }

    /// The name at `index`, for messages.
    func name(at index: Int) -> String {
        String(
            decoding: UnsafeBufferPointer(rebasing: bytes[offsets[index]..<(offsets[index] + lengths[index])]),
            as: UTF8.self)
    }

    /// The index of the name with the bytes of `key`, trying `hint` first; `nil` when there is none.
    @inline(__always)
    func index(of key: String, hint: Int) -> Int? {
        if let found = key.utf8.withContiguousStorageIfAvailable({ index(ofBytes: $0, hint: hint) }) { return found }
        return Array(key.utf8).withUnsafeBufferPointer { index(ofBytes: $0, hint: hint) }
    }

    @inline(__always)
    private func matches(_ index: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lengths[index] == key.count else { return false }
        guard key.count > 0, let keyBase = key.baseAddress else { return true }
        return Self.equal(UnsafeRawPointer(bytes.baseAddress! + offsets[index]), UnsafeRawPointer(keyBase), key.count)
    }

    /// Whether `count` bytes at `a` and `b` are equal: by words, the last one overlapping (names are short; a call
    /// of `memcmp` costs more than the comparison).
    @inline(__always)
    static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        func word<Word: FixedWidthInteger>(_ offset: Int, _: Word.Type) -> Bool {
            a.loadUnaligned(fromByteOffset: offset, as: Word.self)
                == b.loadUnaligned(fromByteOffset: offset, as: Word.self)
        }
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                if !word(offset, UInt64.self) { return false }
                offset += 8
            }
            return word(count - 8, UInt64.self)
        }
        if count >= 4 { return word(0, UInt32.self) && word(count - 4, UInt32.self) }
        if count >= 2 { return word(0, UInt16.self) && word(count - 2, UInt16.self) }
        return count == 0 || word(0, UInt8.self)
    }

    func index(ofBytes key: UnsafeBufferPointer<UInt8>, hint: Int) -> Int? {
        if hint < count, matches(hint, key) { return hint }
        if count <= 16 {
            for index in 0..<count where matches(index, key) { return index }
            return nil
        }
        let bucket = min(key.count, 64)
        for position in lengthStarts[bucket]..<lengthStarts[bucket + 1] where matches(byLength[position], key) {
            return byLength[position]
        }
        return nil
    }
}

/// `properties`: the names with their nodes.
struct PropertyTable: Sendable {
    let names: NameTable
    let nodes: NodeList

    init(_ entries: [(name: String, node: Int)], storage: KeywordStorage) {
        names = NameTable(entries.map(\.name), storage: storage)
        // A repeated name has one node (a JSON object's last member of that name is read).
        var numbers = [Int](repeating: 0, count: names.count)
        for (name, node) in entries { numbers[names.index(of: name, hint: 0)!] = node }
        nodes = NodeList(numbers, storage: storage)
    }
}

/// `required`: the names, once each, and the list as written (for messages, in order).
///
/// When the node's `properties` (of at most 64 names) name every required one, the members are looked up in that
/// table instead, once for both keywords: `properties` then reads what `required` found.
struct RequiredNames: Sendable {
    let names: NameTable
    /// The index in `names` of each name as written.
    let written: NodeList
    /// The node's `properties`, and the bits of the required names' indices in it.
    let properties: Ref<PropertyTable>?
    let propertyMask: UInt64
    /// The index in `properties` of each of `names`.
    let propertyIndices: NodeList?

    init(_ list: [String], storage: KeywordStorage, properties: Ref<PropertyTable>? = nil) {
        names = NameTable(list, storage: storage)
        let table = names
        written = NodeList(list.map { table.index(of: $0, hint: 0)! }, storage: storage)
        var indices: [Int] = []
        if let properties, properties.value.names.count <= 64 {
            for index in 0..<table.count {
                guard let position = properties.value.names.index(of: table.name(at: index), hint: 0) else { break }
                indices.append(position)
            }
        }
        if indices.count == table.count, let properties {
            self.properties = properties
            propertyMask = indices.reduce(0) { $0 | 1 << UInt64($1) }
            propertyIndices = NodeList(indices, storage: storage)
        } else {
            self.properties = nil
            propertyMask = 0
            propertyIndices = nil
        }
    }
}

/// An `enum`: its values, and its strings as a table (only a string equals a string, byte for byte).
struct EnumValues: Sendable {
    let values: Held<Box<[JSONValue]>>
    let strings: NameTable

    init(_ values: [JSONValue], storage: KeywordStorage) {
        self.values = storage.hold(Box(values))
        strings = NameTable(
            values.compactMap { if case .string(let text) = $0 { text } else { nil } }, storage: storage)
    }
}

/// `additionalProperties`: its node, and the names and patterns of the same node's `properties` and
/// `patternProperties`.
struct AdditionalProperties: Sendable {
    let node: Int
    let named: Ref<PropertyTable>?
    /// `nil` for none.
    let patterns: Held<Box<[PatternMatcher]>>?
}

/// JSON types as a set, for `type`.
struct TypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = TypeSet(rawValue: 1 << 0)
    static let boolean = TypeSet(rawValue: 1 << 1)
    static let object = TypeSet(rawValue: 1 << 2)
    static let array = TypeSet(rawValue: 1 << 3)
    static let number = TypeSet(rawValue: 1 << 4)
    static let string = TypeSet(rawValue: 1 << 5)
    static let integer = TypeSet(rawValue: 1 << 6)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init?(name: String) {
        switch name {
        case "null": self = .null
        case "boolean": self = .boolean
        case "object": self = .object
        case "array": self = .array
        case "number": self = .number
        case "string": self = .string
        case "integer": self = .integer
        default: return nil
        }
    }

    /// `string`, `string or null`.
    var names: String {
        let all: [(TypeSet, String)] = [
            (.object, "object"), (.array, "array"), (.string, "string"), (.integer, "integer"), (.number, "number"),
            (.boolean, "boolean"), (.null, "null"),
        ]
        let shown = all.filter { contains($0.0) }.map(\.1)
        return shown.count <= 1 ? shown.joined() : shown.dropLast().joined(separator: ", ") + " or " + shown.last!
    }
}

/// One keyword of a compiled node. Node numbers index ``CompiledSchema/nodes``. Every value is plain (numbers, or
/// references into the node's ``KeywordStorage``), so copying a keyword counts no references.
enum CompiledKeyword: Sendable {
    case type(TypeSet, integerNeedsIntegralLiteral: Bool)
    case enumeration(Ref<EnumValues>)
    case constant(Held<Box<JSONValue>>)
    case multipleOf(NumberBound)
    case maximum(NumberBound)
    case exclusiveMaximum(NumberBound)
    case minimum(NumberBound)
    case exclusiveMinimum(NumberBound)
    case maxLength(Int)
    case minLength(Int)
    case pattern(Held<PatternMatcher>)
    /// `format`: its name, and whether the checker knows it (`int32` and `int64` bound numbers); an unknown
    /// format passes anything.
    case format(Held<Box<String>>, known: Bool)
    case maxItems(Int)
    case minItems(Int)
    case uniqueItems
    case maxProperties(Int)
    case minProperties(Int)
    case required(Ref<RequiredNames>)
    case dependentRequired(Held<Box<[(name: String, required: [String])]>>, keyword: KeywordSpelling)
    case properties(Ref<PropertyTable>)
    case patternProperties(Held<Box<[(matcher: PatternMatcher, node: Int)]>>)
    /// Applies to members that neither `properties` nor `patternProperties` of the same node name.
    case additionalProperties(Ref<AdditionalProperties>)
    case propertyNames(Int)
    case dependentSchemas(Held<Box<[(name: String, node: Int)]>>, keyword: KeywordSpelling)
    /// 2020-12 `prefixItems`, or the array form of `items` before it.
    case prefixItems(NodeList, keyword: KeywordSpelling)
    /// Items from `start` on: 2020-12 `items`, the schema form of `items` before it (start 0), or `additionalItems`
    /// (start: the number of `items` schemas).
    case items(node: Int32, start: Int32, keyword: KeywordSpelling)
    case contains(Held<Box<(node: Int, minimum: Int, maximum: Int?, reportsEvaluated: Bool)>>)
    case allOf(NodeList)
    case anyOf(NodeList)
    case oneOf(NodeList)
    case not(Int)
    /// `if`, `then` and `else` (-1: none).
    case conditional(condition: Int32, then: Int32, else: Int32)
    case reference(Int, keyword: KeywordSpelling)
    /// `$dynamicRef`: the node the reference resolves to statically, and the anchor name to look for in the dynamic
    /// scope when that node itself has such a `$dynamicAnchor`.
    case dynamicReference(initial: Int, anchor: Held<Box<String>>?)
    /// 2019-09 `$recursiveRef`: the initial target, and whether it has `$recursiveAnchor: true`.
    case recursiveReference(initial: Int, targetIsRecursiveAnchor: Bool)
    case unevaluatedProperties(Int)
    case unevaluatedItems(Int)
    /// OpenAPI 3.0 `nullable: true`: `null` passes the type and value keywords of the node.
    case nullable
    /// draft-07's `contentEncoding` (`base64`) and `contentMediaType` (`application/json`) as assertions; later
    /// drafts made them annotations only.
    case content(Held<Box<(encoding: String?, mediaType: String?)>>)

    /// Whether the keyword asserts on the instance alone: it evaluates no subschema.
    var isAssertion: Bool {
        switch self {
        case .type, .enumeration, .constant, .multipleOf, .maximum, .exclusiveMaximum, .minimum, .exclusiveMinimum,
            .maxLength, .minLength, .pattern, .format, .maxItems, .minItems, .uniqueItems, .maxProperties,
            .minProperties, .required, .dependentRequired, .nullable, .content:
            return true
        default:
            return false
        }
    }

    /// The keyword as written in the schema, for locations and messages.
    var name: String {
        switch self {
        case .type: return "type"
        case .enumeration: return "enum"
        case .constant: return "const"
        case .multipleOf: return "multipleOf"
        case .maximum: return "maximum"
        case .exclusiveMaximum: return "exclusiveMaximum"
        case .minimum: return "minimum"
        case .exclusiveMinimum: return "exclusiveMinimum"
        case .maxLength: return "maxLength"
        case .minLength: return "minLength"
        case .pattern: return "pattern"
        case .format: return "format"
        case .maxItems: return "maxItems"
        case .minItems: return "minItems"
        case .uniqueItems: return "uniqueItems"
        case .maxProperties: return "maxProperties"
        case .minProperties: return "minProperties"
        case .required: return "required"
        case .dependentRequired(_, let keyword): return keyword.text
        case .properties: return "properties"
        case .patternProperties: return "patternProperties"
        case .additionalProperties: return "additionalProperties"
        case .propertyNames: return "propertyNames"
        case .dependentSchemas(_, let keyword): return keyword.text
        case .prefixItems(_, let keyword): return keyword.text
        case .items(_, _, let keyword): return keyword.text
        case .contains: return "contains"
        case .allOf: return "allOf"
        case .anyOf: return "anyOf"
        case .oneOf: return "oneOf"
        case .not: return "not"
        case .conditional: return "if"
        case .reference(_, let keyword): return keyword.text
        case .dynamicReference: return "$dynamicRef"
        case .recursiveReference: return "$recursiveRef"
        case .unevaluatedProperties: return "unevaluatedProperties"
        case .unevaluatedItems: return "unevaluatedItems"
        case .nullable: return "nullable"
        case .content(let content): return content.object.value.encoding != nil ? "contentEncoding" : "contentMediaType"
        }
    }
}

/// A schema resource: its URI and the dynamic anchors (2020-12) or recursive anchor (2019-09) it declares.
struct CompiledResource: Sendable {
    var uri: String
    var dynamicAnchors: [String: Int]
    /// The resource's root node, when it has `$recursiveAnchor: true`.
    var recursiveAnchor: Int?
}
