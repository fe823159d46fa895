import APIProbeShared
import HTTPFixtures

/// Where an OpenAPI document holds schemas: every `components/schemas` entry, and every `schema` member of a
/// parameter, header or media type, wherever those are (paths, webhooks, components). Not below a schema: the
/// schemas inside one are its own.
///
/// One answer for every reader: OpenAPIKit checks the document's structure with each schema set aside (its typed
/// model refuses valid 2020-12 schemas: `true`, `$anchor`, `$dynamicRef`), the JSON Schema metaschema checks the
/// schemas, and the validator indexes their `$id`s and anchors.
enum SchemaLocations {
    /// The JSON Pointers of the document's schemas, in document order.
    static func all(in root: JSONValue) -> [String] {
        var found: [String] = []
        _ = visit(root, at: "", replacing: false, into: &found)
        return found
    }

    /// Every `pattern` (and `patternProperties` name) of the schemas at `pointers` and the subschemas inside them,
    /// with its JSON Pointer, in document order.
    static func patterns(in root: JSONValue, at pointers: [String]) -> [(pointer: String, pattern: String)] {
        var found: [(pointer: String, pattern: String)] = []
        func walk(_ schema: JSONValue, _ pointer: String, depth: Int) {
            guard depth < 512, case .object(let members) = schema else { return }
            for (key, value) in members {
                let here = pointer + "/" + JSONPointer.escape(key)
                switch key {
                case "pattern":
                    if case .string(let text) = value { found.append((here, text)) }
                case "patternProperties":
                    guard case .object(let entries) = value else { continue }
                    for (name, subschema) in entries {
                        let entry = here + "/" + JSONPointer.escape(name)
                        found.append((entry, name))
                        walk(subschema, entry, depth: depth + 1)
                    }
                case "properties", "$defs", "definitions", "dependentSchemas":
                    guard case .object(let entries) = value else { continue }
                    for (name, subschema) in entries {
                        walk(subschema, here + "/" + JSONPointer.escape(name), depth: depth + 1)
                    }
                case "allOf", "anyOf", "oneOf", "prefixItems":
                    guard case .array(let list) = value else { continue }
                    for (index, subschema) in list.enumerated() {
                        walk(subschema, here + "/\(index)", depth: depth + 1)
                    }
                case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
                    "unevaluatedItems", "unevaluatedProperties", "additionalItems":
                    if case .array(let list) = value {
                        for (index, subschema) in list.enumerated() {
                            walk(subschema, here + "/\(index)", depth: depth + 1)
                        }
                    } else {
                        walk(value, here, depth: depth + 1)
                    }
                default:
                    continue
                }
            }
        }
        for pointer in pointers {
            if let schema = root.value(at: pointer) { walk(schema, pointer, depth: 0) }
        }
        return found
    }

    /// The document with every schema replaced by `{}`, for a reader that checks only the rest.
    static func settingSchemasAside(in root: JSONValue) -> JSONValue {
        var found: [String] = []
        return visit(root, at: "", replacing: true, into: &found)
    }

    /// Walks the document's structure (never a schema's inside), collecting each schema's pointer and, when
    /// `replacing`, returning the document with each schema as `{}`.
    private static func visit(
        _ value: JSONValue, at pointer: String, replacing: Bool, into found: inout [String]
    ) -> JSONValue {
        switch value {
        case .object(var members):
            for index in members.indices {
                let key = members[index].key
                let here = pointer + "/" + JSONPointer.escape(key)
                let isComponentSchemas = pointer == "/components" && key == "schemas"
                if key == "schema" || isComponentSchemas {
                    if isComponentSchemas, case .object(var schemas) = members[index].value {
                        for entry in schemas.indices {
                            found.append(here + "/" + JSONPointer.escape(schemas[entry].key))
                            if replacing { schemas[entry].value = .object([]) }
                        }
                        if replacing { members[index].value = .object(schemas) }
                    } else if !isComponentSchemas {
                        found.append(here)
                        if replacing { members[index].value = .object([]) }
                    }
                    continue
                }
                // Examples are values, not schemas; vendor extensions are the vendor's.
                if key == "example" || key == "examples" || key.hasPrefix("x-") { continue }
                members[index].value = visit(
                    members[index].value, at: here, replacing: replacing, into: &found)
            }
            return .object(members)
        case .array(var items):
            for index in items.indices {
                items[index] = visit(items[index], at: "\(pointer)/\(index)", replacing: replacing, into: &found)
            }
            return .array(items)
        default:
            return value
        }
    }
}
