import APIProbeShared
public import Foundation

/// A schema snapshot: the shape of an endpoint's samples, stored as a JSON Schema (2020-12) subset.
///
/// The file holds `type` (with `"null"` for nullable), `properties`, `required`, `items`,
/// `additionalProperties` for maps, `format`, `enum`, and apiprobe's own facts under `x-apiprobe`.
/// It is written deterministically (keys sorted, two-space indent, trailing newline) and reads back to
/// the same snapshot.
///
/// ```swift
/// var inference = ShapeInference()
/// try inference.addSample(body)
/// let snapshot = SchemaSnapshot(shape: inference.shape, sampleCount: inference.sampleCount)
/// try snapshot.encoded().write(to: url)
/// let again = try SchemaSnapshot(decoding: Data(contentsOf: url), file: "search.schema.json")
/// again == snapshot  // true
/// ```
public struct SchemaSnapshot: Sendable, Hashable {
    /// The deepest nesting of schemas read, as deep as inference reads samples.
    public static let maximumSchemaDepth = 512

    /// The JSON Schema dialect written in `$schema`.
    public static let dialect = "https://json-schema.org/draft/2020-12/schema"

    /// Snapshots of more schemas than this write each repeated part once, under `$defs`, referenced with
    /// `$ref` (reading expands them); smaller ones are written in full.
    public static let sharingThreshold = 2_000

    public var shape: Shape
    /// How many samples the shape was inferred from (`x-apiprobe.samples`).
    public var sampleCount: Int

    public init(shape: Shape, sampleCount: Int) {
        self.shape = shape
        self.sampleCount = sampleCount
    }

    /// The ways a response body breaks this snapshot: types or `null` it does not allow, required
    /// properties missing, formats or enum values that do not fit. Properties the snapshot does not list
    /// and optional properties left out are fine.
    ///
    /// ```swift
    /// let snapshot = try SchemaSnapshot(decoding: Data(contentsOf: url), file: url.path)
    /// let problems = try snapshot.conformance(of: responseBody)
    /// problems.hasBreakingChanges  // false when the body fits
    /// ```
    /// - Throws: ``JSONShapeError`` when the body is not JSON.
    public func conformance(of body: Data, usage: UsageManifest? = nil, file: String = "<response>")
        throws(JSONShapeError) -> SchemaDiff
    {
        let sample = try Shape.infer(
            from: body,
            options: InferenceOptions(detectsEnums: shape.containsEnums),
            file: file
        )
        return SchemaDiff(conformanceOf: sample.keepingEnums(presentIn: shape), to: shape, usage: usage)
    }

    /// The file's bytes: sorted keys, two-space indent, trailing newline.
    public func encoded() -> Data {
        let shared =
            SharedSchemas.count(shape) > Self.sharingThreshold ? SharedSchemas.definitions(for: shape) : [:]
        guard case .object(var members) = Self.tree(for: shape, shared: shared, isDefinition: true) else {
            return Data()
        }
        if !shared.isEmpty {
            let definitions = shared.map { ($0.value, Self.tree(for: $0.key, shared: shared, isDefinition: true)) }
            members.append(("$defs", .object(definitions)))
        }
        members.append(("$schema", .string(Self.dialect)))
        members.append(("x-apiprobe", .object([("samples", .number(String(sampleCount)))])))
        return Data(JSONTree.object(members).fileBytes)
    }

    /// Reads a snapshot file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name used in errors.
    /// - Throws: ``JSONShapeError``: a syntax error with line and column, or a schema this subset cannot
    ///   hold with the JSON Pointer of the offending value.
    public init(decoding data: Data, file: String = "<input>") throws(JSONShapeError) {
        let tree = try JSONTree.parse(data, file: file)
        do throws(JSONShapeError) {
            try self.init(tree: tree)
        } catch {
            throw error.inFile(file)
        }
    }

    private init(tree: JSONTree) throws(JSONShapeError) {
        guard case .object = tree else {
            throw JSONShapeError(
                location: .jsonPointer(""),
                expected: "a JSON Schema object",
                found: tree.typeDescription
            )
        }
        if let dialect = tree["$schema"] {
            guard case .string = dialect else {
                throw JSONShapeError(
                    location: .jsonPointer("/$schema"),
                    expected: "a string",
                    found: dialect.typeDescription
                )
            }
        }
        var samples = 0
        if let facts = tree["x-apiprobe"] {
            guard case .object = facts else {
                throw JSONShapeError(
                    location: .jsonPointer("/x-apiprobe"),
                    expected: "an object",
                    found: facts.typeDescription
                )
            }
            if let count = facts["samples"] {
                guard case .number(let literal) = count, let value = Int(literal), value >= 0 else {
                    throw JSONShapeError(
                        location: .jsonPointer("/x-apiprobe/samples"),
                        expected: "a count of samples (an integer ≥ 0)",
                        found: count.typeDescription
                    )
                }
                samples = value
            }
        }
        let expander = SharedSchemaExpander(root: tree)
        self.init(shape: try Self.shape(from: tree, at: "", expander: expander), sampleCount: samples)
    }

    /// The schema of a shape (no `$schema` nor `x-apiprobe`); a part in `shared` is a `$ref` to its definition
    /// (the shape itself too, unless `isDefinition`).
    static func tree(for shape: Shape, shared: [Shape: String] = [:], isDefinition: Bool = false) -> JSONTree {
        if !isDefinition, !shared.isEmpty, let name = shared[shape] {
            return .object([("$ref", .string("#/$defs/" + JSONPointer.escape(name)))])
        }
        var members: [(String, JSONTree)] = []
        let names = shape.types.names
        if names.count == 1 {
            members.append(("type", .string(names[0])))
        } else if names.count > 1 {
            members.append(("type", .array(names.map(JSONTree.string))))
        }
        if shape.types.contains(.object) {
            if let value = shape.additionalProperties {
                members.append(("additionalProperties", Self.tree(for: value, shared: shared)))
            } else {
                members.append(
                    ("properties", .object(shape.properties.map { ($0.key, Self.tree(for: $0.value, shared: shared)) }))
                )
                if !shape.required.isEmpty {
                    let sorted = shape.required.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                    members.append(("required", .array(sorted.map(JSONTree.string))))
                }
            }
        }
        if shape.types.contains(.array), let items = shape.items {
            members.append(("items", Self.tree(for: items, shared: shared)))
        }
        if shape.types.contains(.string) {
            if let format = shape.format { members.append(("format", .string(format.rawValue))) }
            if let values = shape.enumValues {
                var all = values.map(JSONTree.string)
                if shape.types.contains(.null) { all.append(.null) }
                members.append(("enum", .array(all)))
            }
        }
        return .object(members)
    }

    /// The shape of a schema at `pointer`.
    static func shape(
        from tree: JSONTree, at pointer: String, depth: Int = 0, expander: SharedSchemaExpander? = nil
    ) throws(JSONShapeError) -> Shape {
        guard depth <= Self.maximumSchemaDepth else {
            throw JSONShapeError(
                location: .jsonPointer(pointer),
                expected: "at most \(Self.maximumSchemaDepth) levels of nested schemas",
                found: "deeper nesting"
            )
        }
        guard case .object(let members) = tree else {
            throw JSONShapeError(
                location: .jsonPointer(pointer),
                expected: "a schema object",
                found: tree.typeDescription
            )
        }
        if let reference = members.first(where: { $0.0 == "$ref" })?.1 {
            guard let expander else {
                throw JSONShapeError(
                    location: .jsonPointer(pointer + "/$ref"), expected: "a schema without references",
                    found: reference.typeDescription)
            }
            return try expander.shape(for: reference, at: pointer + "/$ref", depth: depth)
        }
        var shape = Shape()
        for (key, value) in members {
            let here = pointer + "/" + JSONPointer.escape(key)
            switch key {
            case "type":
                switch value {
                case .string(let name):
                    guard let type = JSONTypes(name: name) else {
                        throw JSONShapeError(
                            location: .jsonPointer(here),
                            expected: "a JSON type name",
                            found: value.typeDescription
                        )
                    }
                    shape.types = type
                case .array(let items):
                    var types: JSONTypes = []
                    for (index, item) in items.enumerated() {
                        guard case .string(let name) = item, let type = JSONTypes(name: name) else {
                            throw JSONShapeError(
                                location: .jsonPointer("\(here)/\(index)"),
                                expected: "a JSON type name",
                                found: item.typeDescription
                            )
                        }
                        types.insert(type)
                    }
                    shape.types = types
                default:
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "a type name or an array of them",
                        found: value.typeDescription
                    )
                }
            case "properties":
                guard case .object(let properties) = value else {
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "an object of schemas",
                        found: value.typeDescription
                    )
                }
                shape.setFirstSeenKeys(properties.map(\.0))
                for (name, schema) in properties {
                    shape.properties[name] = try Self.shape(
                        from: schema,
                        at: here + "/" + JSONPointer.escape(name),
                        depth: depth + 1,
                        expander: expander
                    )
                }
            case "required":
                guard case .array(let names) = value else {
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "an array of property names",
                        found: value.typeDescription
                    )
                }
                for (index, item) in names.enumerated() {
                    guard case .string(let name) = item else {
                        throw JSONShapeError(
                            location: .jsonPointer("\(here)/\(index)"),
                            expected: "a property name",
                            found: item.typeDescription
                        )
                    }
                    shape.required.insert(name)
                }
            case "items":
                shape.items = try Self.shape(from: value, at: here, depth: depth + 1, expander: expander)
            case "additionalProperties":
                if case .bool = value { continue }  // `true`/`false`: a record, as JSON Schema tools write it
                shape.additionalProperties = try Self.shape(
                    from: value, at: here, depth: depth + 1, expander: expander)
            case "format":
                guard case .string(let name) = value else {
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "a format name",
                        found: value.typeDescription
                    )
                }
                let format = StringFormat(rawValue: name)
                guard StringFormat.all.contains(format) else {
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "one of the formats date-time, date, uri, uuid, email",
                        found: value.typeDescription
                    )
                }
                shape.format = format
            case "enum":
                guard case .array(let values) = value else {
                    throw JSONShapeError(
                        location: .jsonPointer(here),
                        expected: "an array of strings",
                        found: value.typeDescription
                    )
                }
                var strings: [String] = []
                for (index, item) in values.enumerated() {
                    switch item {
                    case .string(let text): strings.append(text)
                    case .null: continue
                    default:
                        throw JSONShapeError(
                            location: .jsonPointer("\(here)/\(index)"),
                            expected: "a string (apiprobe's enums hold strings)",
                            found: item.typeDescription
                        )
                    }
                }
                shape.enumValues = Array(Set(strings)).sorted()
            default:
                continue  // other keywords (`$schema`, `title`, `description`, `x-…`) are not part of the shape
            }
        }
        let declared = shape.types
        if let missing = shape.required.subtracting(shape.properties.keys).sorted().first {
            throw JSONShapeError(
                location: .jsonPointer(pointer + "/required"),
                expected: "names listed in properties",
                found: "string \"\(missing)\""
            )
        }
        // Keep only what the declared types can hold, so reading back is the identity.
        if !declared.contains(.object) {
            shape.properties = [:]
            shape.required = []
            shape.additionalProperties = nil
        } else if shape.isMap {
            shape.properties = [:]
            shape.required = []
        }
        if !declared.contains(.array) { shape.items = nil }
        if !declared.contains(.string) {
            shape.format = nil
            shape.enumValues = nil
        }
        return shape
    }
}
