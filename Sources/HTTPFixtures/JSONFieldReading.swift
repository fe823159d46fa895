import APIProbeShared
package import Foundation

/// Reading a JSON document field by field: each error names the file, the JSON Pointer of the field, what was
/// expected there and what was found. The one such reader: fixtures (`Exchange`), HAR files and Postman
/// collections, the probe runner's alert outbox.
package protocol JSONFieldReading {
    /// The file's name in errors.
    var file: String { get }
}

extension JSONFieldReading {
    /// The document, or the line and column of its syntax error.
    package func parse(_ data: Data) throws(InputError) -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            throw error.inFile(file)
        }
    }

    package func fail(_ pointer: String, _ expected: String, _ found: String) -> InputError {
        InputError(file: file, position: .jsonPointer(pointer), expected: expected, found: found)
    }

    /// `object[key]`; an error at `pointer/key` when it is missing (`expected`: a "key" field, unless given).
    package func required(
        _ object: JSONValue, _ key: String, in pointer: String, expected: String? = nil
    ) throws(InputError) -> JSONValue {
        if case .object = object, let value = object[key] { return value }
        throw fail("\(pointer)/\(JSONPointer.escape(key))", expected ?? "a \"\(key)\" field", "nothing")
    }

    package func object(_ value: JSONValue, at pointer: String, expected: String = "an object") throws(InputError)
        -> JSONValue
    {
        guard case .object = value else { throw fail(pointer, expected, value.briefDescription) }
        return value
    }

    package func array(_ value: JSONValue, at pointer: String, expected: String = "an array") throws(InputError)
        -> [JSONValue]
    {
        guard case .array(let items) = value else { throw fail(pointer, expected, value.briefDescription) }
        return items
    }

    package func string(_ value: JSONValue, at pointer: String, expected: String = "a string") throws(InputError)
        -> String
    {
        guard case .string(let text) = value else { throw fail(pointer, expected, value.briefDescription) }
        return text
    }

    package func integer(_ value: JSONValue, at pointer: String, expected: String = "an integer") throws(InputError)
        -> Int
    {
        guard case .number(let literal) = value, let number = Int(literal) else {
            throw fail(pointer, expected, value.briefDescription)
        }
        return number
    }
}

/// A ``JSONFieldReading`` for a file with nothing else to carry.
package struct JSONFieldReader: JSONFieldReading {
    package let file: String

    package init(file: String) { self.file = file }
}
