import APIProbeShared
import Foundation
import HTTPFixtures
import JSONSchemaValidation
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
/// - `$ref`: local only. Each referenced schema is one definition (``ShapeDefinitions``), converted once per
///   direction, and every `$ref` to it a reference (``ShapeNode/reference(_:in:)``): a recursive schema is a cycle
///   of references, never cut. A cycle with no object or array in between (`A: {$ref: A}`, `A: {allOf: [A]}`) is
///   an error.
/// - `allOf`: the parts are intersected (properties and `required` joined, types intersected); a part that is a
///   reference is read through it.
/// - `oneOf`/`anyOf`: the alternatives are merged as samples merge (types joined; a property required only when
///   every alternative requires it), with a note; alternatives that are references make one definition of their
///   union (`bank_account|card`), so a union of recursive schemas is finite too.
/// - `nullable: true` (3.0), `type: [..., "null"]` (3.1) and `null` in an `enum`: the `null` type.
/// - `format`: date-time, date, uri, uuid, email kept; other string formats noted.
/// - `additionalProperties` with a schema and no `properties`: a map. `false`: noted (snapshots allow extra
///   properties; `openapi check` enforces it).
/// - Constraints a snapshot has no word for (`minimum`, `pattern`, `maxLength`, …) are noted.
struct ShapeConverter {
    /// The deepest nesting of schemas written inside one another (not through references) read; deeper is an
    /// error (exit 2), not a cut.
    static let maximumLevels = 512
    /// The name of the file beside the snapshots that holds the definitions of response schemas.
    static let responseDefinitionsFile = "components.json"
    /// The name of the file that holds the definitions of request schemas (`operations.json` refers to it).
    static let requestDefinitionsFile = "components.request.json"
    static let keptFormats: [String: StringFormat] = [
        "date-time": .dateTime, "date": .date, "uri": .uri, "uuid": .uuid, "email": .email,
    ]
    static let numericFormats: Set<String> = ["int32", "int64", "float", "double"]
    static let unkeptKeywords = [
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "not",
        "patternProperties", "prefixItems", "contains", "if", "dependentRequired", "dependentSchemas",
        "propertyNames", "unevaluatedProperties", "unevaluatedItems", "discriminator", "$dynamicRef", "$recursiveRef",
        "dependencies", "additionalItems",
    ]

    let root: JSONValue
    let file: String
    private var notes = Set<SpecNote>()
    /// The definitions of response schemas and of request schemas (`readOnly` and `writeOnly` differ).
    let responseDefinitions = ShapeDefinitions(source: responseDefinitionsFile)
    let requestDefinitions = ShapeDefinitions(source: requestDefinitionsFile)
    /// The definition name of each `$ref` text converted or being converted, by direction.
    private var names: [SchemaDirection: [String: String]] = [:]
    /// The references whose definitions are being converted, outermost first, each with the nesting of objects
    /// and arrays where it started: a reference met again at the same nesting, or used for its structure
    /// (`allOf`), is a cycle with no object or array in between.
    private var converting: [(key: String, text: String, level: Int)] = []
    /// The definitions made for unions and intersections of references, by their parts.
    private var combined: [SchemaDirection: [CombinedKey: String]] = [:]
    /// The combined definitions whose content waits for a definition still being converted.
    private var pendingCombined: [(name: String, key: CombinedKey, direction: SchemaDirection, pointer: String)] = []

    private struct CombinedKey: Hashable {
        var isUnion: Bool
        var parts: [CombinedPart]
    }

    private enum CombinedPart: Hashable, Comparable {
        case reference(String)
        case inline(ShapeNode)

        static func < (lhs: CombinedPart, rhs: CombinedPart) -> Bool { lhs.label < rhs.label }

        var label: String {
            switch self {
            case .reference(let name): return name
            case .inline(let shape): return shape.types.isEmpty ? "any" : shape.types.description
            }
        }
    }

    /// Resolves `$ref` as JSON Schema does (base URIs from `$id`, `$anchor`s), for 3.1's schemas.
    private let resolver: SchemaReferenceResolver?

    init(root: JSONValue, file: String) {
        self.root = root
        self.file = file
        if root["openapi"]?.stringValue?.hasPrefix("3.1") == true {
            let dialect = root["jsonSchemaDialect"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) ?? .draft2020_12
            // A document whose schemas cannot be indexed is refused by the metaschema check before conversion.
            resolver = try? SchemaReferenceResolver(
                document: root, dialect: dialect, schemaPointers: SchemaLocations.all(in: root),
                unreadableReferenceAdvice: SpecValidators.unreadableReferenceAdvice)
        } else {
            resolver = nil
        }
    }

    func definitions(for direction: SchemaDirection) -> ShapeDefinitions {
        direction == .response ? responseDefinitions : requestDefinitions
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

    private func error(_ pointer: String, _ expected: String, _ found: String) -> InputError {
        InputError(file: file, position: .jsonPointer(pointer), expected: expected, found: found)
    }

    // MARK: References

    /// The schema a `$ref` in the schema at `pointer` leads to, with its pointer: by JSON Schema's resolution in a
    /// 3.1 description (`$id` bases, `$anchor`s), by the document's own pointers in 3.0; `nil` with the URI for a
    /// schema outside the description (a metaschema).
    private func resolveSchemaReference(_ reference: String, inSchemaAt pointer: String) throws(InputError)
        -> (value: JSONValue, pointer: String)?
    {
        guard let resolver else { return try resolve(reference, at: pointer + "/$ref") }
        let target: SchemaReferenceResolver.Target
        do {
            target = try resolver.resolve(reference, inSchemaAt: pointer)
        } catch {
            throw error.file.isEmpty ? error.inFile(file) : error
        }
        guard case .local(let targetPointer) = target, let value = root.value(at: targetPointer) else { return nil }
        return (value, targetPointer)
    }

    /// The value a local `$ref` points at, with its pointer.
    func resolve(_ reference: String, at pointer: String) throws(InputError) -> (JSONValue, String) {
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
    func resolvingReference(_ value: JSONValue, at pointer: String) throws(InputError) -> (JSONValue, String) {
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

    mutating func shape(of schema: JSONValue, at pointer: String, direction: SchemaDirection) throws(InputError)
        -> ShapeNode
    {
        try convert(schema, at: pointer, direction, level: 0)
    }

    /// The definition name of a `$ref`: the component's name for `#/components/schemas/NAME`, else the pointer.
    private static func definitionName(_ reference: String) -> String {
        let fragment = String(reference.dropFirst())
        let pointer = fragment.removingPercentEncoding ?? fragment
        let prefix = "/components/schemas/"
        if pointer.hasPrefix(prefix), let tokens = JSONPointer.tokens(of: pointer), tokens.count == 3 {
            return tokens[2]
        }
        return String(pointer.dropFirst())
    }

    /// The reference to the definition of `text`, converting the definition first when it is new.
    private mutating func reference(
        to written: String, at pointer: String, _ direction: SchemaDirection, level: Int
    ) throws(InputError) -> ShapeNode {
        guard let (target, targetPointer) = try resolveSchemaReference(written, inSchemaAt: pointer) else {
            note(
                pointer,
                "$ref \"\(written)\" leads outside the description (a metaschema): kept as any value (openapi check "
                    + "validates it exactly)")
            return .empty
        }
        // One definition per schema reached, however its references are written (`#/$defs/a`, `#a`, an `$id`).
        let text = "#" + targetPointer
        let table = definitions(for: direction)
        let key = "\(direction == .response ? "response" : "request") \(text)"
        if let frame = converting.first(where: { $0.key == key }), frame.level == level {
            throw cycleError(through: key, at: pointer)
        }
        if let name = names[direction]?[text] { return .reference(name, in: table) }
        let taken = Set(names[direction]?.values.map { $0 } ?? [])
        let base = Self.definitionName(text)
        let name = UniqueName.first(base.isEmpty ? "schema" : base) { taken.contains($0) }
        names[direction, default: [:]][text] = name
        converting.append((key, text, level))
        let shape = try convert(target, at: targetPointer, direction, level: level)
        converting.removeLast()
        table.define(name, as: shape)
        return .reference(name, in: table)
    }

    private func cycleError(through key: String, at pointer: String) -> InputError {
        let chain = converting.drop { $0.key != key }.map(\.text) + [converting.first { $0.key == key }?.text ?? ""]
        return error(
            pointer + "/$ref", "a $ref cycle with an object or array in between",
            "a cycle with none: " + chain.joined(separator: " → "))
    }

    /// What a reference stands for, for a keyword that needs the schema itself (`allOf`, keywords beside `$ref`):
    /// the reference itself while its definition is being converted (its combination is then made later).
    private mutating func structure(
        of text: String, at pointer: String, _ direction: SchemaDirection, level: Int
    ) throws(InputError) -> ShapeNode {
        let reference = try reference(to: text, at: pointer, direction, level: level)
        return isMade(reference) ? reference.resolved : reference
    }

    private mutating func convert(
        _ schema: JSONValue, at pointer: String, _ direction: SchemaDirection, level: Int
    ) throws(InputError) -> ShapeNode {
        guard level - (converting.last?.level ?? 0) <= Self.maximumLevels else {
            throw error(
                pointer, "at most \(Self.maximumLevels) levels of schemas written inside one another",
                "deeper nesting")
        }
        switch schema {
        case .bool(true): return .empty
        case .bool(false):
            note(pointer, "schema false (no value allowed) is kept as any value")
            return .empty
        case .object: break
        default: throw error(pointer, "a schema object", schema.shortDescription)
        }

        var shape: ShapeNode
        if let reference = schema["$ref"] {
            guard let text = reference.stringValue else {
                throw error(pointer + "/$ref", "a reference string", reference.shortDescription)
            }
            // 3.1 allows keywords beside `$ref`; they constrain the value too.
            let siblings = (schema.members ?? []).filter {
                !["$ref", "description", "summary", "title", "example", "examples"].contains($0.key)
            }
            guard !siblings.isEmpty else { return try self.reference(to: text, at: pointer, direction, level: level) }
            shape = try structure(of: text, at: pointer, direction, level: level)
            let rest = try convert(.object(siblings), at: pointer, direction, level: level)
            return intersect(shape, rest, at: pointer, direction)
        }

        shape = try ownShape(schema, at: pointer, direction, level: level)

        if case .array(let parts)? = schema["allOf"] {
            for (index, part) in parts.enumerated() {
                let here = "\(pointer)/allOf/\(index)"
                let partShape: ShapeNode
                if let text = part["$ref"]?.stringValue, (part.members ?? []).count == 1 {
                    partShape = try structure(of: text, at: here, direction, level: level)
                } else {
                    partShape = try convert(part, at: here, direction, level: level)
                }
                shape = intersect(shape, partShape, at: pointer, direction)
            }
        }
        for keyword in ["oneOf", "anyOf"] {
            guard case .array(let alternatives)? = schema[keyword], !alternatives.isEmpty else { continue }
            var union: ShapeNode?
            var nonNull = 0
            for (index, alternative) in alternatives.enumerated() {
                let converted = try convert(alternative, at: "\(pointer)/\(keyword)/\(index)", direction, level: level)
                if converted.resolved.types != .null { nonNull += 1 }
                union = union.map { self.union($0, converted, direction) } ?? converted
            }
            if nonNull > 1 {
                note(
                    pointer,
                    "\(keyword) of \(alternatives.count) schemas kept as one shape (types joined; a property is "
                        + "required only when every alternative requires it)")
            }
            if let union {
                shape = shape == .empty ? union : intersect(shape, union, at: pointer, direction)
            }
        }
        return shape
    }

    // MARK: Unions and intersections

    /// The parts a shape stands for in a combined definition.
    private func parts(of shape: ShapeNode, isUnion: Bool, _ direction: SchemaDirection) -> [CombinedPart] {
        if let name = shape.referenceName {
            if let key = combined[direction]?.first(where: { $0.value == name && $0.key.isUnion == isUnion })?.key {
                return key.parts
            }
            return [.reference(name)]
        }
        return [.inline(shape)]
    }

    /// The definition standing for the union (or intersection) of two shapes of which one at least is a
    /// reference: made once per set of parts, so combining recursive definitions ends. Its content is made from
    /// the parts as soon as every definition they name is made; a definition still being converted (a part of a
    /// cycle) leaves it to ``finish()``.
    private mutating func combinedReference(
        _ a: ShapeNode, _ b: ShapeNode, isUnion: Bool, at pointer: String, _ direction: SchemaDirection
    ) -> ShapeNode {
        let table = definitions(for: direction)
        let parts = Array(
            Set(self.parts(of: a, isUnion: isUnion, direction) + self.parts(of: b, isUnion: isUnion, direction))
        ).sorted()
        let key = CombinedKey(isUnion: isUnion, parts: parts)
        if let name = combined[direction]?[key] { return .reference(name, in: table) }
        let taken = Set(names[direction]?.values.map { $0 } ?? []).union(combined[direction]?.values.map { $0 } ?? [])
        let base = parts.map(\.label).joined(separator: isUnion ? "|" : "&")
        let name = UniqueName.first(base) { taken.contains($0) }
        combined[direction, default: [:]][key] = name
        pendingCombined.append((name, key, direction, pointer))
        makePendingCombinations()
        return .reference(name, in: table)
    }

    /// Makes the content of each combined definition whose parts are all made, until none is left that can be.
    private mutating func makePendingCombinations() {
        var progress = true
        while progress {
            progress = false
            var index = 0
            while index < pendingCombined.count {
                let (name, key, direction, pointer) = pendingCombined[index]
                let table = definitions(for: direction)
                let ready = key.parts.allSatisfy { part in
                    if case .reference(let referenced) = part { return table[referenced] != nil }
                    return true
                }
                guard ready else {
                    index += 1
                    continue
                }
                pendingCombined.remove(at: index)
                var content: ShapeNode?
                for part in key.parts {
                    let shape: ShapeNode
                    switch part {
                    case .reference(let referenced): shape = ShapeNode.reference(referenced, in: table).resolved
                    case .inline(let inline): shape = inline
                    }
                    content =
                        content.map {
                            key.isUnion
                                ? structuralUnion($0, shape, direction)
                                : structuralIntersection($0, shape, at: pointer, direction)
                        } ?? shape
                }
                table.define(name, as: content ?? .empty)
                progress = true
            }
        }
    }

    /// Makes what is left to make once every definition is converted: the combinations of cycles. One that
    /// still cannot be made (a combination that needs itself) accepts any value, with a note.
    mutating func finish() {
        makePendingCombinations()
        for (name, _, direction, pointer) in pendingCombined {
            definitions(for: direction).define(name, as: .empty)
            note(pointer, "the combination \(name) needs itself to be made: any value is accepted there")
        }
        pendingCombined = []
    }

    /// The shape of values of either shape (for `oneOf`, `anyOf`), as samples merge.
    private mutating func union(_ a: ShapeNode, _ b: ShapeNode, _ direction: SchemaDirection) -> ShapeNode {
        if a.referenceName == nil, a == .empty { return b }
        if b.referenceName == nil, b == .empty { return a }
        if let x = a.referenceName, x == b.referenceName, a.referencedDefinitions === b.referencedDefinitions {
            return a
        }
        if a.referenceName != nil || b.referenceName != nil {
            return combinedReference(a, b, isUnion: true, at: "", direction)
        }
        return structuralUnion(a, b, direction)
    }

    /// ``ShapeNode/merging(_:options:)``'s rule one level down, with the parts below combined by ``union``.
    private mutating func structuralUnion(_ a: ShapeNode, _ b: ShapeNode, _ direction: SchemaDirection) -> ShapeNode {
        var top = a
        top.properties = [:]
        top.items = nil
        top.additionalProperties = nil
        var other = b
        other.properties = [:]
        other.items = nil
        other.additionalProperties = nil
        top.merge(other)
        if let items = a.items, let more = b.items {
            top.items = union(items, more, direction)
        } else {
            top.items = a.items ?? b.items
        }
        let aObject = a.types.contains(.object)
        let bObject = b.types.contains(.object)
        guard aObject || bObject else { return top }
        guard aObject && bObject else {
            let source = aObject ? a : b
            top.properties = source.properties
            top.required = source.required
            top.additionalProperties = source.additionalProperties
            return top
        }
        if a.isMap || b.isMap {
            var value: ShapeNode = .empty
            for part in [a.additionalProperties, b.additionalProperties].compactMap({ $0 })
                + a.properties.keys.sorted(by: precedesInByteOrder).compactMap({ a.properties[$0] })
                + b.properties.keys.sorted(by: precedesInByteOrder).compactMap({ b.properties[$0] })
            {
                value = union(value, part, direction)
            }
            top.properties = [:]
            top.required = []
            top.additionalProperties = value
            return top
        }
        top.required = a.required.intersection(b.required)
        var properties = a.properties
        for key in b.properties.keys.sorted(by: precedesInByteOrder) {
            guard let shape = b.properties[key] else { continue }
            properties[key] = properties[key].map { union($0, shape, direction) } ?? shape
        }
        top.properties = properties
        top.additionalProperties = nil
        return top
    }

    /// The shape of a schema's own keywords (everything but `$ref`, `allOf`, `oneOf`, `anyOf`).
    private mutating func ownShape(
        _ schema: JSONValue, at pointer: String, _ direction: SchemaDirection, level: Int
    ) throws(InputError) -> ShapeNode {
        var shape = ShapeNode()
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
                shape.properties[name] = try convert(property, at: here, direction, level: level + 1)
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
                value, at: pointer + "/additionalProperties", direction, level: level + 1)
            if shape.properties.isEmpty {
                shape.additionalProperties = valueShape
            } else if valueShape != .empty {
                note(
                    pointer,
                    "additionalProperties beside properties is not kept: the snapshot lists the properties only")
            }
        }
        if let items = schema["items"] {
            shape.items = try convert(items, at: pointer + "/items", direction, level: level + 1)
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
    private func isHidden(_ property: JSONValue, at pointer: String, _ direction: SchemaDirection) throws(InputError)
        -> Bool
    {
        let keyword = direction == .response ? "writeOnly" : "readOnly"
        if property[keyword]?.boolValue == true { return true }
        guard property["$ref"] != nil else { return false }
        // Through chains of references, by the schema's own resolution (a 3.1 `$id` base, an anchor).
        var current = property
        var here = pointer
        var seen = Set<String>()
        while let text = current["$ref"]?.stringValue, seen.insert(here).inserted {
            guard let (target, targetPointer) = try resolveSchemaReference(text, inSchemaAt: here) else { return false }
            current = target
            here = targetPointer
        }
        return current[keyword]?.boolValue == true
    }

    /// The shape of values that fit both shapes (for `allOf`).
    private mutating func intersect(_ a: ShapeNode, _ b: ShapeNode, at pointer: String, _ direction: SchemaDirection)
        -> ShapeNode
    {
        if a.referenceName == nil, a == .empty { return b }
        if b.referenceName == nil, b == .empty { return a }
        if let x = a.referenceName, x == b.referenceName, a.referencedDefinitions === b.referencedDefinitions {
            return a
        }
        if a.referenceName != nil && b.referenceName != nil || !isMade(a) || !isMade(b) {
            return combinedReference(a, b, isUnion: false, at: pointer, direction)
        }
        return structuralIntersection(a.resolved, b.resolved, at: pointer, direction)
    }

    /// Whether a shape's definition is made (not one still being converted, nor a combination waiting for one).
    private func isMade(_ shape: ShapeNode) -> Bool {
        guard let name = shape.referenceName, let table = shape.referencedDefinitions else { return true }
        return table[name] != nil
    }

    private mutating func structuralIntersection(
        _ a: ShapeNode, _ b: ShapeNode, at pointer: String, _ direction: SchemaDirection
    ) -> ShapeNode {
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
        for name in b.properties.keys.sorted(by: precedesInByteOrder) {
            guard let property = b.properties[name] else { continue }
            result.properties[name] =
                result.properties[name].map { intersect($0, property, at: pointer, direction) } ?? property
        }
        result.required.formUnion(b.required)
        if let items = b.items {
            result.items = result.items.map { intersect($0, items, at: pointer, direction) } ?? items
        }
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
