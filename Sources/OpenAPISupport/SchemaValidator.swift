import APIProbeShared
import Foundation
import HTTPFixtures
import JSONShape

/// One way a value breaks a schema: where in the value, what kind, and what was expected.
struct SchemaProblem: Sendable, Hashable {
    var pointer: String
    var kind: ViolationKind
    var message: String
}

/// Checks JSON values against OpenAPI schemas as written (not through a shape), so each problem has the exact
/// JSON Pointer of the value (`/recipes/3/title`) and `additionalProperties: false` is enforced.
///
/// `oneOf` is checked as `anyOf` (some alternative fits); the other constraints a snapshot cannot hold
/// (`minimum`, `pattern`, …) are not checked.
struct SchemaValidator {
    static let maximumDepth = 512

    let converter: ShapeConverter

    func problems(of value: JSONValue, against schema: JSONValue, direction: SchemaDirection) -> [SchemaProblem] {
        var problems: [SchemaProblem] = []
        validate(value, schema, at: "", direction, depth: 0, into: &problems)
        return problems
    }

    private func validate(
        _ value: JSONValue, _ schema: JSONValue, at pointer: String, _ direction: SchemaDirection, depth: Int,
        into problems: inout [SchemaProblem]
    ) {
        guard depth <= Self.maximumDepth else { return }
        switch schema {
        case .bool(false):
            problems.append(
                SchemaProblem(
                    pointer: pointer, kind: .type, message: "expected no value, found \(value.shortDescription)"))
            return
        case .object: break
        default: return
        }
        // 3.0's `nullable: true` admits null whatever else the schema says (Stripe writes it beside `anyOf`).
        if value == .null, schema["nullable"]?.boolValue == true { return }
        if let reference = schema["$ref"]?.stringValue,
            let (target, _) = try? converter.resolve(reference, at: "")
        {
            validate(value, target, at: pointer, direction, depth: depth + 1, into: &problems)
        }
        if case .array(let parts)? = schema["allOf"] {
            for part in parts { validate(value, part, at: pointer, direction, depth: depth + 1, into: &problems) }
        }
        for keyword in ["oneOf", "anyOf"] {
            guard case .array(let alternatives)? = schema[keyword], !alternatives.isEmpty else { continue }
            var best: [SchemaProblem]?
            for alternative in alternatives {
                var found: [SchemaProblem] = []
                validate(value, alternative, at: pointer, direction, depth: depth + 1, into: &found)
                if best == nil || found.count < best!.count { best = found }
                if found.isEmpty { break }
            }
            problems += best ?? []
        }

        // Types.
        var types: JSONTypes = []
        if let name = schema["type"]?.stringValue, let type = JSONTypes(name: name) { types = type }
        if case .array(let names)? = schema["type"] {
            for name in names.compactMap(\.stringValue) { if let type = JSONTypes(name: name) { types.insert(type) } }
        }
        let nullable = schema["nullable"]?.boolValue == true
        if nullable, !types.isEmpty { types.insert(.null) }
        if value == .null, nullable { return }
        if !types.isEmpty, !Self.value(value, fits: types) {
            problems.append(
                SchemaProblem(
                    pointer: pointer, kind: .type, message: "expected \(types), found \(value.shortDescription)"))
            return
        }

        // Values.
        var allowed: [JSONValue]?
        if case .array(let values)? = schema["enum"] { allowed = values }
        if let constant = schema["const"] { allowed = [constant] }
        if let allowed, !allowed.contains(value) {
            let shown = allowed.prefix(8).map { $0.serializedText }.joined(separator: ", ")
            problems.append(
                SchemaProblem(
                    pointer: pointer, kind: .enum,
                    message:
                        "expected one of \(shown)\(allowed.count > 8 ? ", …" : ""), found \(value.shortDescription)"))
        }
        if case .string(let text) = value, let name = schema["format"]?.stringValue,
            let format = ShapeConverter.keptFormats[name], StringFormat.detect(in: text) != format
        {
            problems.append(
                SchemaProblem(
                    pointer: pointer, kind: .format, message: "expected format \(name), found \(value.shortDescription)"
                ))
        }

        switch value {
        case .object(let members):
            let properties = schema["properties"]?.members ?? []
            let present = Set(members.map(\.key))
            if case .array(let required)? = schema["required"] {
                for name in required.compactMap(\.stringValue) where !present.contains(name) {
                    if let property = properties.first(where: { $0.key == name })?.value,
                        isHidden(property, direction)
                    {
                        continue
                    }
                    problems.append(
                        SchemaProblem(
                            pointer: pointer + "/" + JSONPointer.escape(name), kind: .required,
                            message: "required property \"\(name)\" is missing"))
                }
            }
            let declared = Set(properties.map(\.key))
            for (key, member) in members {
                let here = pointer + "/" + JSONPointer.escape(key)
                if let property = properties.first(where: { $0.key == key })?.value {
                    validate(member, property, at: here, direction, depth: depth + 1, into: &problems)
                    continue
                }
                guard !declared.contains(key), schema["patternProperties"] == nil else { continue }
                switch schema["additionalProperties"] {
                case .bool(false)?:
                    problems.append(
                        SchemaProblem(
                            pointer: here, kind: .additional,
                            message: "property \"\(key)\" is not declared (additionalProperties is false)"))
                case let extra?:
                    validate(member, extra, at: here, direction, depth: depth + 1, into: &problems)
                case nil: break
                }
            }
        case .array(let items):
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() {
                    validate(item, itemSchema, at: "\(pointer)/\(index)", direction, depth: depth + 1, into: &problems)
                }
            }
        default: break
        }
    }

    private func isHidden(_ property: JSONValue, _ direction: SchemaDirection) -> Bool {
        let keyword = direction == .response ? "writeOnly" : "readOnly"
        if property[keyword]?.boolValue == true { return true }
        guard let reference = property["$ref"]?.stringValue, let (target, _) = try? converter.resolve(reference, at: "")
        else { return false }
        return target[keyword]?.boolValue == true
    }

    /// Whether a value is of one of the types (an integral number is an integer).
    static func value(_ value: JSONValue, fits types: JSONTypes) -> Bool {
        switch value {
        case .null: return types.contains(.null)
        case .bool: return types.contains(.boolean)
        case .string: return types.contains(.string)
        case .array: return types.contains(.array)
        case .object: return types.contains(.object)
        case .number(let literal):
            if types.contains(.number) { return true }
            guard types.contains(.integer) else { return false }
            if value.typeName == "integer" { return true }
            return Double(literal).map { $0.rounded() == $0 } ?? false
        }
    }
}

extension JSONValue {
    /// The value as compact JSON text, for messages.
    var serializedText: String { String(decoding: serialized(), as: UTF8.self) }
}
