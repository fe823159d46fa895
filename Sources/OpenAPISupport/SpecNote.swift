import HTTPFixtures

/// A place in a spec and what about it was approximated on the way into a snapshot.
package struct SpecNote: Sendable, Hashable, CustomStringConvertible {
    /// The JSON Pointer of the schema in the spec.
    package var pointer: String
    package var message: String

    init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    package var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
}

extension JSONValue {
    /// A short description of a value for messages: `string "abc"`, `number 1.5`, `object` (HTTPFixtures' one).
    var shortDescription: String { briefDescription }

    /// The members of an object, or `nil`.
    var members: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}

extension JSONValue {
    /// The value as compact JSON text, for messages.
    var serializedText: String { String(decoding: serialized(), as: UTF8.self) }
}
