import HTTPFixtures

/// JSON Schema's equality of instances (`const`, `enum`, `uniqueItems`): numbers by mathematical value (`1` equals
/// `1.0`), strings and member names code point by code point (Swift's `==` would call `"é"` and `"e\u{301}"`
/// equal), objects without regard to member order, arrays item by item.
enum InstanceEquality {
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return numbersEqual(x, y)
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            let left = lastMembers(x)
            let right = lastMembers(y)
            guard left.count == right.count else { return false }
            for (name, value) in left {
                guard let other = right[name], equal(value, other) else { return false }
            }
            return true
        default: return false
        }
    }

    /// Two number literals as values: the same text, the same `Double` unless that rounds, or else exactly.
    static func numbersEqual(_ x: String, _ y: String) -> Bool {
        if x == y { return true }
        guard let a = Double(x), let b = Double(y) else { return false }
        if a != b { return false }
        guard let exactA = ExactNumber(x), let exactB = ExactNumber(y) else { return true }
        return exactA == exactB
    }

    /// An object's members by name; a repeated name keeps its last value, as ``JSONValue/subscript(_:)`` reads it.
    private static func lastMembers(_ members: [(key: String, value: JSONValue)]) -> [MemberName: JSONValue] {
        var result: [MemberName: JSONValue] = [:]
        result.reserveCapacity(members.count)
        for member in members { result[MemberName(member.key)] = member.value }
        return result
    }

    /// A hash that agrees with ``equal(_:_:)``: equal instances hash alike.
    static func hash(_ value: JSONValue, into hasher: inout Hasher) {
        switch value {
        case .null: hasher.combine(0 as UInt8)
        case .bool(let flag): hasher.combine(flag ? 1 : 2 as UInt8)
        case .number(let literal):
            hasher.combine(3 as UInt8)
            // Equal numbers have one exact form; numbers beyond it hash by their Double.
            if let exact = ExactNumber(literal) { hasher.combine(exact) } else { hasher.combine(Double(literal) ?? 0) }
        case .string(let text):
            hasher.combine(4 as UInt8)
            hasher.combine(MemberName(text))
        case .array(let items):
            hasher.combine(5 as UInt8)
            hasher.combine(items.count)
            for item in items { hash(item, into: &hasher) }
        case .object(let members):
            // Order-free: the members' hashes are added up.
            hasher.combine(6 as UInt8)
            var sum = 0
            for (name, member) in lastMembers(members) {
                var inner = Hasher()
                inner.combine(name)
                hash(member, into: &inner)
                sum &+= inner.finalize()
            }
            hasher.combine(sum)
        }
    }
}

/// A member name or string compared by its code points (its UTF-8 bytes), not by Unicode canonical equivalence.
struct MemberName: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (a: MemberName, b: MemberName) -> Bool { a.text.utf8.elementsEqual(b.text.utf8) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// An instance hashed and compared as JSON Schema does, for `uniqueItems` over many items.
struct HashableInstance: Hashable {
    let value: JSONValue

    static func == (a: HashableInstance, b: HashableInstance) -> Bool { InstanceEquality.equal(a.value, b.value) }
    func hash(into hasher: inout Hasher) { InstanceEquality.hash(value, into: &hasher) }
}
