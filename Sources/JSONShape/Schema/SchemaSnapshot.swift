import APIProbeShared
public import Foundation
public import HTTPFixtures

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

    /// The validation keywords the snapshot writer writes (besides the applicators `properties`, `items`,
    /// `additionalProperties` for maps, and `$ref`): drift judges these, with the usage manifest's ranking; the JSON
    /// Schema validator judges every other keyword a person adds to a snapshot.
    package static let writtenKeywords: Set<String> = ["type", "required", "enum", "format"]

    /// Snapshots of more schemas than this write each repeated part once, under `$defs`, referenced with
    /// `$ref` (reading expands them); smaller ones are written in full.
    public static let sharingThreshold = 2_000

    public var shape: ShapeNode
    /// How many samples the shape was inferred from (`x-apiprobe.samples`).
    public var sampleCount: Int

    public init(shape: ShapeNode, sampleCount: Int) {
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
    /// - Throws: `InputError` when the body is not JSON.
    public func conformance(of body: Data, usage: UsageManifest? = nil, file: String = "<response>")
        throws(InputError) -> SchemaDiff
    {
        let sample = try ShapeNode.infer(
            from: body,
            options: InferenceOptions(detectsEnums: shape.containsEnums),
            file: file
        )
        return SchemaDiff(conformanceOf: sample.keepingEnums(presentIn: shape), to: shape, usage: usage)
    }

    /// The file's bytes: sorted keys, two-space indent, trailing newline.
    ///
    /// A shape of up to ``sharingThreshold`` schemas with its references expanded is written in full. Else a
    /// reference to a definition of a table without a ``ShapeDefinitions/source`` is written under this file's
    /// `$defs` with the definitions it reaches, and one to a shared table `SOURCE#/$defs/NAME` (write the table
    /// with ``encodedDefinitions(_:)``).
    public func encoded() -> Data {
        var writer = Writer()
        let shape = self.shape.expanded(maximumSchemas: Self.sharingThreshold) ?? self.shape
        writer.collectLocalDefinitions(from: shape)
        if writer.local.isEmpty, SharedSchemas.count(shape) > Self.sharingThreshold {
            writer.shared = SharedSchemas.definitions(for: shape)
        }
        guard case .object(var members) = writer.tree(for: shape, isDefinition: true) else { return Data() }
        var definitions: [(key: String, value: JSONValue)] = []
        for (name, target) in writer.localOrder {
            definitions.append((name, writer.tree(for: target, isDefinition: true)))
        }
        definitions += writer.shared.map { ($0.value, writer.tree(for: $0.key, isDefinition: true)) }
        if !definitions.isEmpty { members.append(("$defs", .object(definitions))) }
        members.append(("$schema", .string(Self.dialect)))
        members.append(("x-apiprobe", .object([("samples", .number(String(sampleCount)))])))
        return JSONValue.object(members).fileData
    }

    /// The bytes of a file of shared definitions (`components.json`): every definition of the table under
    /// `$defs`, references between them written `#/$defs/NAME`, sorted keys, two-space indent, trailing newline.
    public static func encodedDefinitions(_ definitions: ShapeDefinitions) -> Data {
        var writer = Writer()
        writer.sharedFile = definitions
        let members: [(key: String, value: JSONValue)] = definitions.names.map { name in
            (name, writer.tree(for: definitions[name] ?? .empty, isDefinition: true))
        }
        return JSONValue.object([("$defs", .object(members)), ("$schema", .string(Self.dialect))]).fileData
    }

    /// Writes shapes as schemas: the names under which references and repeated parts are written.
    struct Writer {
        /// The written name of each local definition, by table and name.
        var local: [LocalKey: String] = [:]
        var localOrder: [(String, ShapeNode)] = []
        /// Repeated parts of a large inferred snapshot, written once.
        var shared: [ShapeNode: String] = [:]
        /// The table of the file being written, when it is a file of shared definitions.
        var sharedFile: ShapeDefinitions?

        struct LocalKey: Hashable {
            var table: ObjectIdentifier
            var name: String
        }

        /// Names every definition of a table without a source that `root` reaches, in the order of the names.
        mutating func collectLocalDefinitions(from root: ShapeNode) {
            var tables: [ObjectIdentifier: ShapeDefinitions] = [:]
            var pending = [root]
            var seen = Set<LocalKey>()
            var found: [(LocalKey, ShapeDefinitions)] = []
            while let shape = pending.popLast() {
                if let table = shape.referencedDefinitions, let name = shape.referenceName {
                    guard table.source == nil else { continue }
                    let key = LocalKey(table: ObjectIdentifier(table), name: name)
                    guard seen.insert(key).inserted else { continue }
                    tables[key.table] = table
                    found.append((key, table))
                    pending.append(table[name] ?? .empty)
                    continue
                }
                pending.append(contentsOf: shape.properties.values)
                if let items = shape.items { pending.append(items) }
                if let value = shape.additionalProperties { pending.append(value) }
            }
            found.sort { $0.0.name.utf8.lexicographicallyPrecedes($1.0.name.utf8) }
            var used = Set<String>()
            for (key, table) in found {
                let name = UniqueName.first(key.name.isEmpty ? "schema" : key.name) { used.contains($0) }
                used.insert(name)
                local[key] = name
                localOrder.append((name, table[key.name] ?? .empty))
            }
        }

        func target(of shape: ShapeNode) -> String? {
            guard let table = shape.referencedDefinitions, let name = shape.referenceName else { return nil }
            if table === sharedFile { return "#/$defs/" + JSONPointer.escape(name) }
            if let source = table.source { return source + "#/$defs/" + JSONPointer.escape(name) }
            let written = local[LocalKey(table: ObjectIdentifier(table), name: name)] ?? name
            return "#/$defs/" + JSONPointer.escape(written)
        }

        /// The schema of a shape (no `$schema` nor `x-apiprobe`); a reference is a `$ref`, and so is a part in
        /// `shared` (the shape itself too, unless `isDefinition`).
        func tree(for shape: ShapeNode, isDefinition: Bool = false) -> JSONValue {
            if let target = target(of: shape) {
                return .object([("$ref", .string(target))])
            }
            if !isDefinition, !shared.isEmpty, let name = shared[shape] {
                return .object([("$ref", .string("#/$defs/" + JSONPointer.escape(name)))])
            }
            var members: [(key: String, value: JSONValue)] = []
            let names = shape.types.names
            if names.count == 1 {
                members.append(("type", .string(names[0])))
            } else if names.count > 1 {
                members.append(("type", .array(names.map(JSONValue.string))))
            }
            if shape.types.contains(.object) {
                if let value = shape.additionalProperties {
                    members.append(("additionalProperties", tree(for: value)))
                } else {
                    members.append(("properties", .object(shape.properties.map { ($0.key, tree(for: $0.value)) })))
                    if !shape.required.isEmpty {
                        let sorted = shape.required.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                        members.append(("required", .array(sorted.map(JSONValue.string))))
                    }
                }
            }
            if shape.types.contains(.array), let items = shape.items {
                members.append(("items", tree(for: items)))
            }
            if shape.types.contains(.string) {
                if let format = shape.format { members.append(("format", .string(format.rawValue))) }
                if let values = shape.enumValues {
                    var all = values.map(JSONValue.string)
                    if shape.types.contains(.null) { all.append(.null) }
                    members.append(("enum", .array(all)))
                }
            }
            return .object(members)
        }
    }

    /// Reads a snapshot file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name used in errors.
    ///   - folder: the snapshot's folder, where a reference to shared definitions (`components.json#/$defs/…`)
    ///     is read from; without it such a reference is an error.
    /// - Throws: `InputError`: a syntax error with line and column, or a schema this subset cannot
    ///   hold with the JSON Pointer of the offending value.
    public init(decoding data: Data, file: String = "<input>", folder: URL? = nil) throws(InputError) {
        if let known = Self.readWithDefinitions.withLock({ $0[data] }) {
            self = known
            return
        }
        let tree = try JSONValue(parsing: data, file: file, maximumDepth: 2_048)
        do throws(InputError) {
            let (snapshot, isSelfContained) = try Self.read(tree: tree, file: file, folder: folder)
            self = snapshot
            if isSelfContained, tree["$defs"] != nil {
                Self.readWithDefinitions.withLock { $0[data] = snapshot }
            }
        } catch  where error.file.isEmpty {
            throw error.inFile(file)
        }
    }

    /// The snapshots read in this process whose own `$defs` were read as definitions, by their bytes: such a
    /// table lives as long as the process (its definitions refer to it), so a file read again unchanged is the
    /// same snapshot, not one more table.
    private static let readWithDefinitions = Locked<[Data: SchemaSnapshot]>([:])

    /// Reads a snapshot file, and the file of shared definitions beside it that its references name.
    ///
    /// - Parameters:
    ///   - url: the snapshot file.
    ///   - file: the name used in errors (default: the path).
    /// - Throws: `InputError` naming the file and place.
    public init(contentsOf url: URL, file: String? = nil) throws(InputError) {
        let shown = file ?? url.path
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(file: shown, position: .file, expected: "a readable snapshot file", found: "none")
        }
        try self.init(decoding: data, file: shown, folder: url.deletingLastPathComponent())
    }

    /// The snapshot of a file's tree, and whether it refers to no other file.
    private static func read(tree: JSONValue, file: String, folder: URL?) throws(InputError) -> (
        snapshot: SchemaSnapshot, isSelfContained: Bool
    ) {
        guard case .object = tree else {
            throw InputError(
                position: .jsonPointer(""),
                expected: "a JSON Schema object",
                found: tree.briefDescription
            )
        }
        if let dialect = tree["$schema"] {
            guard case .string = dialect else {
                throw InputError(
                    position: .jsonPointer("/$schema"),
                    expected: "a string",
                    found: dialect.briefDescription
                )
            }
        }
        var samples = 0
        if let facts = tree["x-apiprobe"] {
            guard case .object = facts else {
                throw InputError(
                    position: .jsonPointer("/x-apiprobe"),
                    expected: "an object",
                    found: facts.briefDescription
                )
            }
            if let count = facts["samples"] {
                guard case .number(let literal) = count, let value = Int(literal), value >= 0 else {
                    throw InputError(
                        position: .jsonPointer("/x-apiprobe/samples"),
                        expected: "a count of samples (an integer ≥ 0)",
                        found: count.briefDescription
                    )
                }
                samples = value
            }
        }
        let reader = DefinitionReader(root: tree, file: file, folder: folder)
        defer { reader.close() }
        let shape = try Self.shape(from: tree, at: "", reader: reader)
        try reader.finish()
        return (SchemaSnapshot(shape: shape, sampleCount: samples), reader.isSelfContained)
    }

    /// The shape of a schema at `pointer`.
    static func shape(
        from tree: JSONValue, at pointer: String, depth: Int = 0, reader: DefinitionReader? = nil
    ) throws(InputError) -> ShapeNode {
        guard depth <= Self.maximumSchemaDepth else {
            throw InputError(
                position: .jsonPointer(pointer),
                expected: "at most \(Self.maximumSchemaDepth) levels of nested schemas",
                found: "deeper nesting"
            )
        }
        guard case .object(let members) = tree else {
            throw InputError(
                position: .jsonPointer(pointer),
                expected: "a schema object",
                found: tree.briefDescription
            )
        }
        if let reference = members.first(where: { $0.0 == "$ref" })?.1 {
            guard let reader else {
                throw InputError(
                    position: .jsonPointer(pointer + "/$ref"), expected: "a schema without references",
                    found: reference.briefDescription)
            }
            return try reader.shape(for: reference, at: pointer + "/$ref")
        }
        var shape = ShapeNode()
        for (key, value) in members {
            let here = pointer + "/" + JSONPointer.escape(key)
            switch key {
            case "type":
                switch value {
                case .string(let name):
                    guard let type = JSONTypes(name: name) else {
                        throw InputError(
                            position: .jsonPointer(here),
                            expected: "a JSON type name",
                            found: value.briefDescription
                        )
                    }
                    shape.types = type
                case .array(let items):
                    var types: JSONTypes = []
                    for (index, item) in items.enumerated() {
                        guard case .string(let name) = item, let type = JSONTypes(name: name) else {
                            throw InputError(
                                position: .jsonPointer("\(here)/\(index)"),
                                expected: "a JSON type name",
                                found: item.briefDescription
                            )
                        }
                        types.insert(type)
                    }
                    shape.types = types
                default:
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "a type name or an array of them",
                        found: value.briefDescription
                    )
                }
            case "properties":
                guard case .object(let properties) = value else {
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "an object of schemas",
                        found: value.briefDescription
                    )
                }
                shape.setFirstSeenKeys(properties.map(\.0))
                for (name, schema) in properties {
                    shape.properties[name] = try Self.shape(
                        from: schema,
                        at: here + "/" + JSONPointer.escape(name),
                        depth: depth + 1,
                        reader: reader
                    )
                }
            case "required":
                guard case .array(let names) = value else {
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "an array of property names",
                        found: value.briefDescription
                    )
                }
                for (index, item) in names.enumerated() {
                    guard case .string(let name) = item else {
                        throw InputError(
                            position: .jsonPointer("\(here)/\(index)"),
                            expected: "a property name",
                            found: item.briefDescription
                        )
                    }
                    shape.required.insert(name)
                }
            case "items":
                shape.items = try Self.shape(from: value, at: here, depth: depth + 1, reader: reader)
            case "additionalProperties":
                if case .bool = value { continue }  // `true`/`false`: a record, as JSON Schema tools write it
                shape.additionalProperties = try Self.shape(
                    from: value, at: here, depth: depth + 1, reader: reader)
            case "format":
                guard case .string(let name) = value else {
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "a format name",
                        found: value.briefDescription
                    )
                }
                let format = StringFormat(rawValue: name)
                guard StringFormat.all.contains(format) else {
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "one of the formats date-time, date, uri, uuid, email",
                        found: value.briefDescription
                    )
                }
                shape.format = format
            case "enum":
                guard case .array(let values) = value else {
                    throw InputError(
                        position: .jsonPointer(here),
                        expected: "an array of strings",
                        found: value.briefDescription
                    )
                }
                var strings: [String] = []
                for (index, item) in values.enumerated() {
                    switch item {
                    case .string(let text): strings.append(text)
                    case .null: continue
                    default:
                        throw InputError(
                            position: .jsonPointer("\(here)/\(index)"),
                            expected: "a string (apiprobe's enums hold strings)",
                            found: item.briefDescription
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
            throw InputError(
                position: .jsonPointer(pointer + "/required"),
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
