/// The mutable shape that streaming inference merges each value into, in place.
///
/// Property presence is counted rather than intersected: a property is required when it was present in
/// every object seen (`presentCount == objectCount`).
final class ShapeNode {
    var types: JSONTypes = []
    var format: StringFormat?
    /// Distinct strings seen; `nil` when enums are not tracked or there were too many.
    var enumSet: Set<String>?
    var items: ShapeNode?
    var objectCount = 0
    var slots: [String: PropertySlot] = [:]
    /// Slots in first-seen order: the usual key order of this object, tried first.
    var order: [PropertySlot] = []
    var mapValue: ShapeNode?

    init(tracksEnums: Bool) {
        enumSet = tracksEnums ? [] : nil
    }

    /// A node holding `shape`, to merge more values into.
    init(_ shape: Shape, options: InferenceOptions) {
        types = shape.types
        if shape.types.contains(.string) {
            format = shape.format
            enumSet = shape.enumValues.map(Set.init)
        } else {
            enumSet = options.detectsEnums ? [] : nil
        }
        items = shape.items.map { ShapeNode($0, options: options) }
        if shape.types.contains(.object) {
            objectCount = 1
            for key in shape.orderedPropertyNames {
                let node = ShapeNode(shape.properties[key] ?? .empty, options: options)
                let slot = PropertySlot(key: key, bytes: Array(key.utf8), node: node, index: order.count)
                slot.presentCount = shape.required.contains(key) ? 1 : 0
                slots[key] = slot
                order.append(slot)
            }
            mapValue = shape.additionalProperties.map { ShapeNode($0, options: options) }
        }
    }

    func itemsNode(tracksEnums: Bool) -> ShapeNode {
        if let items { return items }
        let node = ShapeNode(tracksEnums: tracksEnums)
        items = node
        return node
    }

    /// The value shape.
    func shape() -> Shape {
        var result = Shape(types: types)
        if types.contains(.string) {
            result.format = format
            result.enumValues = enumSet?.sorted()
        }
        result.items = items?.shape()
        if types.contains(.object) {
            if let mapValue {
                result.additionalProperties = mapValue.shape()
            } else {
                var properties: [String: Shape] = [:]
                properties.reserveCapacity(order.count)
                var required = Set<String>()
                for slot in order {
                    properties[slot.key] = slot.node.shape()
                    if slot.presentCount == objectCount { required.insert(slot.key) }
                }
                result.properties = properties
                result.setFirstSeenKeys(order.map(\.key))
                result.required = required
            }
        }
        return result
    }

    /// Turns this record into a map whose value shape merges every property's shape.
    func collapseToMap(options: InferenceOptions) {
        var value = mapValue?.shape() ?? .empty
        for slot in order { value.merge(slot.node.shape(), options: options) }
        mapValue = ShapeNode(value, options: options)
        slots = [:]
        order = []
    }
}

/// One property of an object node.
final class PropertySlot {
    let key: String
    /// The key as it appears in the input (escapes included): compared byte for byte to skip hashing.
    let bytes: [UInt8]
    let node: ShapeNode
    let index: Int
    let isDynamicKey: Bool
    var presentCount = 0
    /// The object in which this property was last counted, so a repeated key counts once.
    var stamp = -1

    init(key: String, bytes: [UInt8], node: ShapeNode, index: Int) {
        self.key = key
        self.bytes = bytes
        self.node = node
        self.index = index
        var text = key
        self.isDynamicKey = text.withUTF8 { isDynamicKeyText($0) }
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
