/// The mutable shape that streaming inference merges each value into, in place: nodes and property slots in
/// flat arrays, addressed by index.
///
/// Indices rather than objects: reading a value touches only plain values in arrays the reader owns while it
/// reads, so no reference is counted and no exclusivity is checked per value (with a tree of objects, that
/// bookkeeping was over a third of the reading time).
///
/// Property presence is counted rather than intersected: a property is required when it was present in
/// every object seen (`presentCount == objectCount`).
struct ShapeStore {
    struct Node: BitwiseCopyable {
        var types: JSONTypes = []
        /// The format every string so far fits: an index into ``StringFormat/all``; ``noFormat`` for none.
        var format: UInt8 = ShapeStore.noFormat
        var items: Int32 = -1
        var objectCount = 0
        /// Property slots in first-seen order (a list through ``Slot/next``): the usual key order, tried first.
        var firstSlot: Int32 = -1
        var lastSlot: Int32 = -1
        var mapValue: Int32 = -1
    }

    struct Slot: BitwiseCopyable {
        /// The key as it appears in the input (escapes included) and its closing quote, at `keyStart` in
        /// ``keyBytes``: compared in place to skip scanning and hashing it.
        var keyStart: Int
        var keyLength: Int
        var node: Int32
        var next: Int32 = -1
        var presentCount = 0
        /// The object in which this property was last counted, so a repeated key counts once.
        var stamp = -1
        var isDynamicKey: Bool
    }

    static let noFormat = UInt8.max
    static let root: Int32 = 0

    var nodes = PlainArray<Node>()
    var slots = PlainArray<Slot>()
    /// Each node's distinct strings; `nil` when enums are not tracked or there were too many. (Apart from
    /// ``Node``, which holds plain values only, so that reading one copies no reference.)
    var enumSets: [Set<String>?] = []
    /// The decoded key of each slot.
    var keys: [String] = []
    /// Each slot's raw key and closing quote, then eight zero bytes, so that eight bytes can be read from any
    /// key's start.
    var keyBytes = [UInt8](repeating: 0, count: 8)
    /// Each node's slots by key, for keys out of the usual order.
    var lookups: [[String: Int32]] = []
    /// Counts the objects read, so a slot knows whether it was counted in the current one.
    var stamp = 0
    let tracksEnums: Bool

    init(tracksEnums: Bool) {
        self.tracksEnums = tracksEnums
        _ = addNode()
    }

    /// A store with no nodes, standing in while an inference's own store is being read into.
    private init() { tracksEnums = false }
    static let placeholder = ShapeStore()

    /// A store whose root holds `shape`, to merge more values into.
    init(_ shape: ShapeNode, options: InferenceOptions) {
        self.tracksEnums = options.detectsEnums
        _ = add(shape, options: options)
    }

    mutating func addNode() -> Int32 {
        nodes.append(Node())
        enumSets.append(tracksEnums ? [] : nil)
        lookups.append([:])
        return Int32(nodes.count - 1)
    }

    /// Adds `type` to the types of `node`; a type already there costs no write (and so no uniqueness check).
    @inline(__always) mutating func addType(at node: Int32, _ type: JSONTypes) {
        if !nodes[Int(node)].types.contains(type) { nodes[Int(node)].types.insert(type) }
    }

    /// Gives this copy of the store storage of its own (a copy of an inference shares it until then): called
    /// before each document is read into it.
    mutating func makeUnique() {
        nodes.makeUnique()
        slots.makeUnique()
    }

    /// The node that the items of array node `node` merge into.
    @inline(__always) mutating func itemsNode(of node: Int32) -> Int32 {
        let items = nodes[Int(node)].items
        if items >= 0 { return items }
        let created = addNode()
        nodes[Int(node)].items = created
        return created
    }

    /// A new property slot of `node`, last in its order, whose value merges into `child`.
    mutating func addSlot(to node: Int32, key: String, raw: UnsafeBufferPointer<UInt8>, child: Int32) -> Int32 {
        let index = Int32(slots.count)
        var text = key
        let isDynamic = text.withUTF8 { isDynamicKeyText($0) }
        let start = keyBytes.count - 8
        slots.append(Slot(keyStart: start, keyLength: raw.count + 1, node: child, isDynamicKey: isDynamic))
        keyBytes.replaceSubrange(start..., with: raw)
        keyBytes.append(UInt8(ascii: "\""))
        keyBytes.append(contentsOf: repeatElement(0, count: 8))
        keys.append(key)
        lookups[Int(node)][key] = index
        let last = nodes[Int(node)].lastSlot
        if last >= 0 { slots[Int(last)].next = index } else { nodes[Int(node)].firstSlot = index }
        nodes[Int(node)].lastSlot = index
        return index
    }

    /// Adds the nodes holding `shape`; returns the top one.
    private mutating func add(_ shape: ShapeNode, options: InferenceOptions) -> Int32 {
        let node = addNode()
        nodes[Int(node)].types = shape.types
        if shape.types.contains(.string) {
            nodes[Int(node)].format = Self.code(shape.format)
            enumSets[Int(node)] = shape.enumValues.map(Set.init)
        }
        if let items = shape.items {
            let child = add(items, options: options)
            nodes[Int(node)].items = child
        }
        if shape.types.contains(.object) {
            nodes[Int(node)].objectCount = 1
            for key in shape.orderedPropertyNames {
                let child = add(shape.properties[key] ?? .empty, options: options)
                // The raw bytes: the key as compact JSON writes it, the form most inputs use.
                let slot = Self.escapedKeyBytes(key).withUnsafeBufferPointer {
                    addSlot(to: node, key: key, raw: $0, child: child)
                }
                slots[Int(slot)].presentCount = shape.required.contains(key) ? 1 : 0
            }
            if let additional = shape.additionalProperties {
                let child = add(additional, options: options)
                nodes[Int(node)].mapValue = child
            }
        }
        return node
    }

    /// A key as compact JSON writes it, for the in-place comparison.
    private static func escapedKeyBytes(_ key: String) -> [UInt8] {
        var out: [UInt8] = []
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default:
                out.append(byte)
            }
        }
        return out
    }

    static func code(_ format: StringFormat?) -> UInt8 {
        guard let format, let index = StringFormat.all.firstIndex(of: format) else { return noFormat }
        return UInt8(index)
    }

    /// The value shape of `node`.
    func shape(of node: Int32) -> ShapeNode {
        let data = nodes[Int(node)]
        var result = ShapeNode(types: data.types)
        if data.types.contains(.string) {
            result.format = data.format == Self.noFormat ? nil : StringFormat.all[Int(data.format)]
            result.enumValues = enumSets[Int(node)]?.sorted()
        }
        if data.items >= 0 { result.items = shape(of: data.items) }
        if data.types.contains(.object) {
            if data.mapValue >= 0 {
                result.additionalProperties = shape(of: data.mapValue)
            } else {
                var properties: [String: ShapeNode] = [:]
                var required = Set<String>()
                var order: [String] = []
                var slot = data.firstSlot
                while slot >= 0 {
                    let entry = slots[Int(slot)]
                    let key = keys[Int(slot)]
                    properties[key] = shape(of: entry.node)
                    if entry.presentCount == data.objectCount { required.insert(key) }
                    order.append(key)
                    slot = entry.next
                }
                result.properties = properties
                result.setFirstSeenKeys(order)
                result.required = required
            }
        }
        return result
    }

    /// Turns record node `node` into a map whose value shape merges every property's shape.
    mutating func collapseToMap(_ node: Int32, options: InferenceOptions) {
        let data = nodes[Int(node)]
        var value = data.mapValue >= 0 ? shape(of: data.mapValue) : .empty
        var slot = data.firstSlot
        while slot >= 0 {
            value.merge(shape(of: slots[Int(slot)].node), options: options)
            slot = slots[Int(slot)].next
        }
        let map = add(value, options: options)
        nodes[Int(node)].mapValue = map
        nodes[Int(node)].firstSlot = -1
        nodes[Int(node)].lastSlot = -1
        lookups[Int(node)] = [:]
    }
}

/// Whether a key looks like data rather than a field name: an integer, a UUID, a date or date-time, or a
/// long hexadecimal id.
func isDynamicKeyText(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
    guard !s.isEmpty else { return false }
    var allDigits = true
    var allHex = true
    var hasDigit = false
    for c in s {
        if !StringFormat.isDigit(c) { allDigits = false } else { hasDigit = true }
        if !StringFormat.isHex(c) { allHex = false }
    }
    if allDigits { return true }
    if allHex && hasDigit && s.count >= 16 { return true }
    if StringFormat.isUUID(s) { return true }
    if s.count >= 10, StringFormat.isDate(s, 0) { return true }
    return false
}
