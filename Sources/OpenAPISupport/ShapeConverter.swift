import APIProbeShared
import Foundation
import HTTPFixtures
import JSONShape

/// Which side of an exchange a schema describes: `writeOnly` properties never appear in a response, nor
/// `readOnly` ones in a request.
enum SchemaDirection: Sendable, Hashable {
    case request
    case response
}

/// Turns OpenAPI schemas (3.0 and 3.1 keywords) into JSONShape shapes, collecting notes on what a snapshot
/// cannot say.
///
/// - `$ref`: local only; a recursive reference (one reached again below an object or array) is cut there and
///   accepts any value, with a note; a cycle with no object or array in between is an error.
/// - `allOf`: the parts are intersected (properties and `required` joined, types intersected).
/// - `oneOf`/`anyOf`: the alternatives are merged as samples merge (types joined; a property required only when
///   every alternative requires it), with a note.
/// - `nullable: true` (3.0), `type: [..., "null"]` (3.1) and `null` in an `enum`: the `null` type.
/// - `format`: date-time, date, uri, uuid, email kept; other string formats noted.
/// - `additionalProperties` with a schema and no `properties`: a map. `false`: noted (snapshots allow extra
///   properties; `openapi check` enforces it).
/// - Constraints a snapshot has no word for (`minimum`, `pattern`, `maxLength`, …) are noted.
struct ShapeConverter {
    /// The most schemas one operation's schema unrolls to (references expanded) before it is cut, so a snapshot
    /// stays readable and a spec whose references multiply cannot make an import hang.
    static let maximumSchemas = 20_000
    /// The most schemas all the operations' schemas unroll to together.
    static let maximumTotalSchemas = 2_000_000
    /// The deepest nesting of objects and arrays kept in a snapshot.
    static let maximumLevels = 32
    static let keptFormats: [String: StringFormat] = [
        "date-time": .dateTime, "date": .date, "uri": .uri, "uuid": .uuid, "email": .email,
    ]
    static let numericFormats: Set<String> = ["int32", "int64", "float", "double"]
    static let unkeptKeywords = [
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "not",
        "patternProperties", "prefixItems", "contains", "if", "dependentRequired", "dependentSchemas",
        "propertyNames", "unevaluatedProperties", "unevaluatedItems", "discriminator",
    ]

    let root: JSONValue
    let file: String
    private var notes = Set<SpecNote>()
    private var budget = maximumSchemas
    private var totalBudget = maximumTotalSchemas
    /// The shape of each referenced schema, converted once, and how many schemas it unrolls to.
    private var cache: [String: (shape: Shape, size: Int)] = [:]

    init(root: JSONValue, file: String) {
        self.root = root
        self.file = file
    }

    var sortedNotes: [SpecNote] {
        notes.sorted {
            $0.pointer != $1.pointer
                ? $0.pointer.utf8.lexicographicallyPrecedes($1.pointer.utf8)
                : $0.message < $1.message
        }
    }

    private mutating func note(_ pointer: String, _ message: String) {
        notes.insert(SpecNote(pointer: pointer, message: message))
    }

    private func error(_ pointer: String, _ expected: String, _ found: String) -> SpecError {
        SpecError(file: file, position: .jsonPointer(pointer), expected: expected, found: found)
    }

    // MARK: References

    /// The value a local `$ref` points at, with its pointer.
    func resolve(_ reference: String, at pointer: String) throws(SpecError) -> (JSONValue, String) {
        guard reference.hasPrefix("#") else {
            throw error(
                pointer, "a local reference (#/…)",
                "\"\(reference)\" (external references are not read; bundle the description into one file)")
        }
        let fragment = String(reference.dropFirst())
        let target = fragment.removingPercentEncoding ?? fragment
        guard let value = root.value(at: target) else {
            throw error(pointer, "a reference to a place in this document", "\"\(reference)\", which leads nowhere")
        }
        return (value, target)
    }

    /// `value`, or what its `$ref` leads to (through chains of references), with the pointer where it is.
    func resolvingReference(_ value: JSONValue, at pointer: String) throws(SpecError) -> (JSONValue, String) {
        var current = value
        var here = pointer
        var seen = Set<String>()
        while let reference = current["$ref"] {
            guard let text = reference.stringValue else {
                throw error(here + "/$ref", "a reference string", reference.shortDescription)
            }
            guard seen.insert(text).inserted else {
                throw error(here + "/$ref", "a $ref that leads to a value", "a cycle of references through \"\(text)\"")
            }
            (current, here) = try resolve(text, at: here + "/$ref")
        }
        return (current, here)
    }

    // MARK: Conversion

    private struct Frame {
        var reference: String
        var level: Int
    }

    mutating func shape(of schema: JSONValue, at pointer: String, direction: SchemaDirection) throws(SpecError) -> Shape
    {
        var stack: [Frame] = []
        budget = Self.maximumSchemas  // per schema of an operation: a large spec has many
        return try convert(schema, at: pointer, direction, &stack, level: 0)
    }

    private mutating func convert(
        _ schema: JSONValue, at pointer: String, _ direction: SchemaDirection, _ stack: inout [Frame], level: Int
    ) throws(SpecError) -> Shape {
        budget -= 1
        totalBudget -= 1
        guard budget >= 0, totalBudget >= 0, level <= Self.maximumLevels else {
            note(
                pointer,
                "cut here: the schema unrolls to more than \(Self.maximumSchemas) schemas or \(Self.maximumLevels) "
                    + "levels, or the spec's to more than \(Self.maximumTotalSchemas) (any value is accepted below)")
            return .empty
        }
        switch schema {
        case .bool(true): return .empty
        case .bool(false):
            note(pointer, "schema false (no value allowed) is kept as any value")
            return .empty
        case .object: break
        default: throw error(pointer, "a schema object", schema.shortDescription)
        }

        var shape: Shape
        if let reference = schema["$ref"] {
            guard let text = reference.stringValue else {
                throw error(pointer + "/$ref", "a reference string", reference.shortDescription)
            }
            if let index = stack.firstIndex(where: { $0.reference == text }) {
                let frame = stack[index]
                guard frame.level < level else {
                    let chain = (stack.drop { $0.reference != text }.map(\.reference) + [text]).joined(separator: " → ")
                    throw error(
                        pointer + "/$ref", "a $ref cycle with an object or array in between",
                        "a cycle with none: \(chain)")
                }
                note(pointer, "recursive reference to \(text) cut here: any value is accepted below this point")
                return .empty
            }
            // A referenced schema is converted once and its shape reused (where a recursion inside it was cut
            // then is where it is cut everywhere: a looser shape, never a stricter one).
            let key = "\(direction == .response ? "response" : "request") \(text)"
            if let cached = cache[key] {
                guard budget >= cached.size, totalBudget >= cached.size else {
                    note(
                        pointer,
                        "cut here: the schema unrolls to more than \(Self.maximumSchemas) schemas "
                            + "(any value is accepted below this point)")
                    return .empty
                }
                budget -= cached.size
                totalBudget -= cached.size
                shape = cached.shape
            } else {
                let (target, targetPointer) = try resolve(text, at: pointer + "/$ref")
                let start = budget
                stack.append(Frame(reference: text, level: level))
                shape = try convert(target, at: targetPointer, direction, &stack, level: level)
                stack.removeLast()
                cache[key] = (shape, start - budget)
            }
            // 3.1 allows keywords beside `$ref`; they constrain the value too.
            let siblings = (schema.members ?? []).filter {
                !["$ref", "description", "summary", "title", "example", "examples"].contains($0.key)
            }
            if !siblings.isEmpty {
                let rest = try convert(.object(siblings), at: pointer, direction, &stack, level: level)
                shape = intersect(shape, rest, at: pointer)
            }
            return shape
        }

        shape = try ownShape(schema, at: pointer, direction, &stack, level: level)

        if case .array(let parts)? = schema["allOf"] {
            for (index, part) in parts.enumerated() {
                let partShape = try convert(part, at: "\(pointer)/allOf/\(index)", direction, &stack, level: level)
                shape = intersect(shape, partShape, at: pointer)
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            guard case .array(let alternatives)? = schema[keyword], !alternatives.isEmpty else { continue }
            var union: Shape?
            var nonNull = 0
            for (index, alternative) in alternatives.enumerated() {
                let converted = try convert(
                    alternative, at: "\(pointer)/\(keyword)/\(index)", direction, &stack, level: level)
                if converted.types != .null { nonNull += 1 }
                union = union.map { $0.merging(converted) } ?? converted
            }
            if nonNull > 1 {
                note(
                    pointer,
                    "\(keyword) of \(alternatives.count) schemas kept as one shape (types joined; a property is "
                        + "required only when every alternative requires it)")
            }
            if let union { shape = intersect(shape, union, at: pointer) }
        }
        return shape
    }

    /// The shape of a schema's own keywords (everything but `$ref`, `allOf`, `oneOf`, `anyOf`).
    private mutating func ownShape(
        _ schema: JSONValue, at pointer: String, _ direction: SchemaDirection, _ stack: inout [Frame], level: Int
    ) throws(SpecError) -> Shape {
        var shape = Shape()
        var types: JSONTypes = []
        switch schema["type"] {
        case nil: break
        case .string(let name)?:
            guard let type = JSONTypes(name: name) else {
                throw error(pointer + "/type", "a JSON type name", "string \"\(name)\"")
            }
            types = type
        case .array(let names)?:
            for (index, item) in names.enumerated() {
                guard let name = item.stringValue, let type = JSONTypes(name: name) else {
                    throw error("\(pointer)/type/\(index)", "a JSON type name", item.shortDescription)
                }
                types.insert(type)
            }
        case let other?:
            throw error(pointer + "/type", "a type name or an array of them", other.shortDescription)
        }
        if types.isEmpty {
            if schema["properties"] != nil || schema["additionalProperties"] != nil || schema["required"] != nil {
                types.insert(.object)
            }
            if schema["items"] != nil { types.insert(.array) }
        }
        if schema["nullable"]?.boolValue == true, !types.isEmpty { types.insert(.null) }

        if let properties = schema["properties"] {
            guard let members = properties.members else {
                throw error(pointer + "/properties", "an object of schemas", properties.shortDescription)
            }
            for (name, property) in members {
                let here = pointer + "/properties/" + JSONPointer.escape(name)
                if try isHidden(property, at: here, direction) { continue }
                shape.properties[name] = try convert(property, at: here, direction, &stack, level: level + 1)
            }
        }
        if let required = schema["required"] {
            guard case .array(let names) = required else {
                throw error(pointer + "/required", "an array of property names", required.shortDescription)
            }
            for (index, item) in names.enumerated() {
                guard let name = item.stringValue else {
                    throw error("\(pointer)/required/\(index)", "a property name", item.shortDescription)
                }
                if let property = schema["properties"]?[name],
                    try isHidden(property, at: pointer + "/properties/" + JSONPointer.escape(name), direction)
                {
                    continue
                }
                if shape.properties[name] == nil { shape.properties[name] = .empty }
                shape.required.insert(name)
            }
        }
        switch schema["additionalProperties"] {
        case nil, .bool(true)?: break
        case .bool(false)?:
            note(
                pointer,
                "additionalProperties false is not kept: the snapshot allows other properties (openapi check enforces it)"
            )
        case let value?:
            let valueShape = try convert(
                value, at: pointer + "/additionalProperties", direction, &stack, level: level + 1)
            if shape.properties.isEmpty {
                shape.additionalProperties = valueShape
            } else if valueShape != .empty {
                note(
                    pointer,
                    "additionalProperties beside properties is not kept: the snapshot lists the properties only")
            }
        }
        if let items = schema["items"] {
            shape.items = try convert(items, at: pointer + "/items", direction, &stack, level: level + 1)
        }
        if let format = schema["format"]?.stringValue {
            if let kept = Self.keptFormats[format] {
                if types.isEmpty || types.contains(.string) { shape.format = kept }
            } else if !Self.numericFormats.contains(format) {
                note(pointer, "format \(format) is not kept (a snapshot knows date-time, date, uri, uuid, email)")
            }
        }
        var enumValues: [JSONValue]?
        if case .array(let values)? = schema["enum"] { enumValues = values }
        if let constant = schema["const"] { enumValues = [constant] }
        if let values = enumValues {
            let strings = values.compactMap(\.stringValue)
            let nulls = values.filter { $0 == .null }.count
            if strings.count + nulls == values.count, !strings.isEmpty {
                shape.enumValues = Array(Set(strings)).sorted()
                if types.isEmpty { types.insert(.string) }
                if nulls > 0, !types.isEmpty { types.insert(.null) }
            } else if !values.isEmpty, strings.isEmpty == false || nulls != values.count {
                note(pointer, "an enum of values other than strings is not kept (the type is)")
            }
        }
        let unkept = Self.unkeptKeywords.filter { schema[$0] != nil }
        if !unkept.isEmpty {
            note(pointer, "not kept in the snapshot: " + unkept.joined(separator: ", "))
        }
        shape.types = types
        return shape
    }

    /// Whether a property never appears on this side (`writeOnly` in a response, `readOnly` in a request).
    private func isHidden(_ property: JSONValue, at pointer: String, _ direction: SchemaDirection) throws(SpecError)
        -> Bool
    {
        let keyword = direction == .response ? "writeOnly" : "readOnly"
        if property[keyword]?.boolValue == true { return true }
        guard property["$ref"] != nil else { return false }
        let (target, _) = try resolvingReference(property, at: pointer)
        return target[keyword]?.boolValue == true
    }

    /// The shape of values that fit both shapes (for `allOf`).
    private mutating func intersect(_ a: Shape, _ b: Shape, at pointer: String) -> Shape {
        if a == .empty { return b }
        if b == .empty { return a }
        var result = a
        if a.types.isEmpty {
            result.types = b.types
        } else if !b.types.isEmpty {
            var types = a.types.intersection(b.types)
            if a.types.contains(.number) && b.types.contains(.integer)
                || a.types.contains(.integer) && b.types.contains(.number)
            {
                types.insert(.integer)
            }
            if types.isEmpty {
                note(pointer, "allOf parts share no type (\(a.types) and \(b.types)): both kept")
                types = a.types.union(b.types)
            }
            result.types = types
        }
        for (name, property) in b.properties {
            result.properties[name] = result.properties[name].map { intersect($0, property, at: pointer) } ?? property
        }
        result.required.formUnion(b.required)
        if let items = b.items { result.items = result.items.map { intersect($0, items, at: pointer) } ?? items }
        if result.additionalProperties == nil, result.properties.isEmpty {
            result.additionalProperties = b.additionalProperties
        } else if !result.properties.isEmpty {
            result.additionalProperties = nil
        }
        if result.format == nil { result.format = b.format }
        if let values = b.enumValues {
            result.enumValues = result.enumValues.map { Array(Set($0).intersection(values)).sorted() } ?? values
        }
        return result
    }
}
