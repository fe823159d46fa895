import APIProbeShared
import Foundation
import HTTPFixtures
import JSONSchemaValidation

/// One way a value breaks a schema: where in the value, what kind, and what was expected.
struct SchemaProblem: Sendable, Hashable {
    var pointer: String
    var kind: ViolationKind
    var message: String
}

/// A description's schemas, compiled by the one JSON Schema validator (JSONSchemaValidation) once per direction,
/// all operations together, on first use: `openapi check`, `serve --validate-requests` and `serve --spec` judge
/// with them, every keyword as the standard says.
///
/// OpenAPI 3.1's schemas are JSON Schema 2020-12 (or the document's `jsonSchemaDialect`); 3.0's schema object is
/// read as its own dialect (draft-04's keywords with `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, and
/// `$ref` siblings ignored). `readOnly` properties are not required in requests, `writeOnly` ones in responses.
final class SpecValidators: Sendable {
    private let root: JSONValue
    private let file: String
    private let pointers: [String]
    private let componentPointers: [String]
    private let dialect: Dialect
    private let compiled = Locked<[Key: [String: JSONSchema]]>([:])

    /// One compilation: the direction of the values, and whether `format` asserts.
    private struct Key: Hashable {
        var direction: MessageDirection
        var assertsFormat: Bool
    }

    init(root: JSONValue, file: String, version: String, operations: [SpecOperation]) {
        self.root = root
        self.file = file
        var pointers: [String] = []
        for operation in operations {
            pointers += operation.parameters.compactMap { $0.schema == nil ? nil : $0.schemaPointer }
            if let body = operation.requestBody, body.schema != nil { pointers.append(body.schemaPointer) }
            pointers += operation.responses.compactMap { $0.schema == nil ? nil : $0.schemaPointer }
        }
        self.pointers = Array(Set(pointers)).sorted()
        self.componentPointers = SchemaLocations.all(in: root)
        if version.hasPrefix("3.0.") {
            dialect = .openAPI30
        } else {
            dialect = root["jsonSchemaDialect"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) ?? .draft2020_12
        }
    }

    /// What a reference to another file gets told.
    static let unreadableReferenceAdvice = "external references are not read; bundle the description into one file"

    /// The compiled schema at `pointer` for values travelling in `direction`.
    ///
    /// - Throws: ``InputError`` naming the description and the place, for a schema that is not one.
    func schema(at pointer: String, direction: MessageDirection, assertsFormat: Bool = true) throws(InputError)
        -> JSONSchema?
    {
        let key = Key(direction: direction, assertsFormat: assertsFormat)
        if let schemas = compiled.withLock({ $0[key] }) { return schemas[pointer] }
        var options = SchemaOptions()
        options.assertsFormat = assertsFormat
        options.defaultDialect = dialect
        options.direction = direction
        // OpenAPIKit has checked the description's structure; the schemas' own errors (a bad pattern, a reference
        // that leads nowhere) are the compiler's.
        options.checksAgainstMetaschema = false
        options.acceptsAnnexBPatterns = true  // said as a note of the description (OpenAPISpec.notes)
        options.baseURI = "apiprobe:///openapi.json"
        options.unreadableReferenceAdvice = Self.unreadableReferenceAdvice
        let list: [JSONSchema]
        do {
            list = try JSONSchema.compile(
                document: root, pointers: pointers, indexing: componentPointers, options: options)
        } catch {
            throw error.file.isEmpty ? error.inFile(file) : error
        }
        let schemas = Dictionary(uniqueKeysWithValues: zip(pointers, list))
        compiled.withLock { $0[key] = schemas }
        return schemas[pointer]
    }

    /// The ways `value` breaks the schema at `pointer`: each at its JSON Pointer in the value (a missing or
    /// undeclared property's own pointer), with the keyword as its kind (`type`, `required`, `enum`, `additional`
    /// and `format` keep the names `openapi check --format json` has always used).
    func problems(
        of value: JSONValue, against pointer: String, direction: MessageDirection, assertsFormat: Bool = true
    ) throws(InputError) -> [SchemaProblem] {
        guard let schema = try schema(at: pointer, direction: direction, assertsFormat: assertsFormat) else {
            return []
        }
        let errors: [JSONSchemaValidation.ValidationError]
        do {
            errors = try schema.validate(value)
        } catch {
            return [
                SchemaProblem(
                    pointer: error.instanceLocation, kind: ViolationKind(rawValue: "limit"), message: error.message)
            ]
        }
        let problems = errors.map { error in
            var place = error.instanceLocation
            if let property = error.property { place += "/" + JSONPointer.escape(property) }
            return SchemaProblem(pointer: place, kind: Self.kind(of: error.keyword), message: error.message)
        }
        // By place in the value (stable: a `oneOf`'s own problem stays before its closest alternative's reasons).
        return problems.enumerated().sorted { a, b in
            a.element.pointer == b.element.pointer
                ? a.offset < b.offset : a.element.pointer.utf8.lexicographicallyPrecedes(b.element.pointer.utf8)
        }.map(\.element)
    }

    /// The violation kind of a keyword.
    static func kind(of keyword: String) -> ViolationKind {
        switch keyword {
        case "type", "false": return .type
        case "required", "dependentRequired", "dependencies": return .required
        case "enum", "const": return .enum
        case "additionalProperties", "unevaluatedProperties": return .additional
        case "format": return .format
        default: return ViolationKind(rawValue: keyword)
        }
    }
}
