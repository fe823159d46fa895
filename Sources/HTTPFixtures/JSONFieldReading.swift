package import Foundation

/// Reading an imported JSON document (a HAR file, a Postman collection) field by field: each error names the
/// file, the JSON Pointer of the field and what was expected there.
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

    package func required(_ object: JSONValue, _ key: String, in pointer: String) throws(InputError) -> JSONValue {
        if case .object = object, let value = object[key] { return value }
        throw fail("\(pointer)/\(key)", "a \"\(key)\" field", "nothing")
    }

    package func object(_ value: JSONValue, at pointer: String) throws(InputError) -> JSONValue {
        guard case .object = value else { throw fail(pointer, "an object", value.briefDescription) }
        return value
    }

    package func array(_ value: JSONValue, at pointer: String) throws(InputError) -> [JSONValue] {
        guard case .array(let items) = value else { throw fail(pointer, "an array", value.briefDescription) }
        return items
    }
}
