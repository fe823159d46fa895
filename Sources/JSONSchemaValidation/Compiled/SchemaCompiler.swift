import APIProbeShared
import HTTPFixtures

/// Turns a schema document into ``CompiledNode``s: every schema resource found (`$id`), every anchor indexed,
/// every `$ref` resolved to a node number, every pattern compiled, once.
struct SchemaCompiler {
    /// What a schema location knows of its surroundings: the base URI its references resolve against, its dialect,
    /// and its resource.
    struct Scope {
        var base: URIReference
        var dialect: Dialect
        var vocabularies: Vocabularies
        var assertsFormat: Bool
        var resource: Int
    }

    /// A document taking part: the root schema or one a reference brought in.
    struct Document {
        var value: JSONValue
        var uri: String
    }

    struct Location: Hashable {
        var document: Int
        var pointer: String
    }

    let options: SchemaOptions
    var registry: SchemaRegistry
    var documents: [Document] = []
    /// Resource URI (no fragment) → where its root is.
    var resourceRoots: [String: Location] = [:]
    /// `uri#name` → where the anchor is (`$anchor`, `$dynamicAnchor`, draft-07 `$id: "#name"`).
    var anchors: [String: Location] = [:]
    /// Every schema location the index walk reached, with its scope.
    var scopes: [Location: Scope] = [:]
    var resources: [CompiledResource] = []
    /// Resource number → its dynamic anchors' locations, compiled with the resource's root.
    var dynamicAnchorLocations: [Int: [String: Location]] = [:]
    var nodes: [CompiledNode] = []
    var nodeAt: [Location: Int] = [:]
    var ignored: [IgnoredKeyword] = []
    var usesDynamicScope = false
    /// What the compiled keywords refer to.
    let storage = KeywordStorage()
    /// Resources a compiled node belongs to, whose dynamic anchors are compiled.
    private var enteredResources: Set<Int> = []

    init(options: SchemaOptions, registry: SchemaRegistry) {
        self.options = options
        self.registry = registry
    }

    // MARK: Indexing documents

    /// Adds a document and indexes its resources and anchors; returns its number.
    mutating func addDocument(_ value: JSONValue, uri: String, dialect: Dialect) throws(SchemaError) -> Int {
        let number = documents.count
        documents.append(Document(value: value, uri: SchemaRegistry.key(uri)))
        let base = URIReference(SchemaRegistry.key(uri))
        let resource = newResource(uri: base.description)
        resourceRoots[base.description] = Location(document: number, pointer: "")
        let scope = Scope(
            base: base, dialect: dialect, vocabularies: .all,
            assertsFormat: options.assertsFormat, resource: resource)
        try index(value, at: Location(document: number, pointer: ""), scope: scope, isResourceRoot: true)
        return number
    }

    private mutating func newResource(uri: String) -> Int {
        resources.append(CompiledResource(uri: uri, dynamicAnchors: [:], recursiveAnchor: nil))
        return resources.count - 1
    }

    /// Walks one schema and the subschemas its keywords hold, recording each one's scope.
    private mutating func index(_ value: JSONValue, at location: Location, scope inherited: Scope, isResourceRoot: Bool)
        throws(SchemaError)
    {
        guard case .object = value else {
            scopes[location] = scopes[location] ?? inherited
            return
        }
        var scope = inherited
        let hasRef = value["$ref"] != nil
        // `$schema` names the dialect of a resource (and, before 2019-09, of a document's root only).
        if let metaschema = value["$schema"]?.stringValue,
            isResourceRoot || value[scope.dialect.identifierKeyword ?? "$id"] != nil
        {
            try applyMetaschema(metaschema, to: &scope, at: location)
        }
        if let keyword = scope.dialect.identifierKeyword, let id = value[keyword]?.stringValue,
            !(scope.dialect.refOverridesSiblings && hasRef)
        {
            let reference = URIReference(id)
            if reference.path.isEmpty, reference.scheme == nil, reference.authority == nil,
                let fragment = reference.fragment, !scope.dialect.hasVocabularies
            {
                // draft-06/07 `$id: "#foo"` (draft-04 `id`): a location-independent name, not a new resource.
                anchors[scope.base.withoutFragment.description + "#" + fragment] = location
            } else {
                let resolved = scope.base.resolving(reference).withoutFragment
                let uri = resolved.description
                scope.base = resolved
                if location.pointer.isEmpty, scope.resource < resources.count,
                    resources[scope.resource].uri == documents[location.document].uri
                {
                    // The document's root names itself: one resource under both URIs.
                    resources[scope.resource].uri = uri
                } else {
                    scope.resource = newResource(uri: uri)
                }
                resourceRoots[uri] = location
                if let fragment = reference.fragment, !fragment.isEmpty, !fragment.hasPrefix("/") {
                    anchors[uri + "#" + fragment] = location
                }
            }
        }
        if scope.dialect.hasVocabularies {
            let resourceURI = scope.base.description
            if let anchor = value["$anchor"]?.stringValue { anchors[resourceURI + "#" + anchor] = location }
            if scope.dialect == .draft2020_12, let anchor = value["$dynamicAnchor"]?.stringValue {
                anchors[resourceURI + "#" + anchor] = location
                dynamicAnchorLocations[scope.resource, default: [:]][anchor] = location
            }
            if scope.dialect == .draft2019_09, value["$recursiveAnchor"] == .bool(true),
                resourceRoots[resourceURI] == location
            {
                resources[scope.resource].recursiveAnchor = -1  // set to the node when compiled
            }
        }
        scopes[location] = scope
        for (keyword, child, pointer) in Self.subschemas(of: value, dialect: scope.dialect) {
            if scope.dialect.refOverridesSiblings && hasRef && keyword != "definitions" { continue }
            let childLocation = Location(document: location.document, pointer: location.pointer + pointer)
            let childIsRoot =
                child[scope.dialect.identifierKeyword ?? "$id"].flatMap(\.stringValue).map {
                    !$0.hasPrefix("#")
                } ?? false
            try index(child, at: childLocation, scope: scope, isResourceRoot: childIsRoot)
        }
    }

    /// Sets the dialect and vocabularies a `$schema` URI names; a custom metaschema is read from the registry.
    private mutating func applyMetaschema(_ uri: String, to scope: inout Scope, at location: Location)
        throws(SchemaError)
    {
        if let dialect = Dialect(metaschemaURI: uri) {
            scope.dialect = dialect
            scope.vocabularies = .all
            scope.assertsFormat = options.assertsFormat
            return
        }
        guard let metaschema = registry.document(at: uri) else {
            throw error(
                at: location, keyword: "$schema",
                expected: "the URI of a known dialect (2020-12, 2019-09, draft-07, draft-06, draft-04) or of a "
                    + "metaschema the registry holds", found: "\"\(uri)\"")
        }
        guard let base = metaschema["$schema"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) else {
            throw error(
                at: location, keyword: "$schema",
                expected: "a metaschema whose own $schema names a known dialect", found: "\"\(uri)\"")
        }
        scope.dialect = base
        scope.vocabularies = .all
        scope.assertsFormat = options.assertsFormat
        guard base.hasVocabularies, case .object(let listed)? = metaschema["$vocabulary"] else { return }
        var vocabularies: Vocabularies = []
        for (vocabulary, required) in listed {
            if let known = Vocabularies(uri: vocabulary) {
                vocabularies.insert(known)
            } else if required == .bool(true) {
                throw error(
                    at: location, keyword: "$schema",
                    expected: "a metaschema whose required vocabularies this validator knows",
                    found: "required vocabulary \"\(vocabulary)\" of \(uri)")
            }
        }
        if vocabularies.contains(.formatAssertion) { scope.assertsFormat = true }
        scope.vocabularies = vocabularies
    }

    /// The subschemas a schema's keywords hold, with the keyword and the pointer suffix of each.
    static func subschemas(of value: JSONValue, dialect: Dialect) -> [(String, JSONValue, String)] {
        guard case .object(let members) = value else { return [] }
        var result: [(String, JSONValue, String)] = []
        for (keyword, member) in members {
            let escaped = "/" + JSONPointer.escape(keyword)
            switch keyword {
            case "additionalProperties", "propertyNames", "not", "contains", "if", "then", "else",
                "additionalItems", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
                if case .object = member { result.append((keyword, member, escaped)) }
                if case .bool = member { result.append((keyword, member, escaped)) }
            case "items":
                if case .array(let items) = member {
                    for (index, item) in items.enumerated() { result.append((keyword, item, "\(escaped)/\(index)")) }
                } else {
                    result.append((keyword, member, escaped))
                }
            case "allOf", "anyOf", "oneOf", "prefixItems":
                if case .array(let items) = member {
                    for (index, item) in items.enumerated() { result.append((keyword, item, "\(escaped)/\(index)")) }
                }
            case "properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies":
                if case .object(let entries) = member {
                    for (name, entry) in entries {
                        if keyword == "dependencies", case .array = entry { continue }
                        result.append((keyword, entry, escaped + "/" + JSONPointer.escape(name)))
                    }
                }
            default:
                continue
            }
        }
        return result
    }

    // MARK: Resolving references

    /// The location a reference leads to from a scope; brings in a registry document when needed.
    mutating func resolve(_ reference: String, from scope: Scope, at location: Location, keyword: String)
        throws(SchemaError) -> Location
    {
        let target = scope.base.resolving(URIReference(reference))
        let uri = target.withoutFragment.description
        if resourceRoots[uri] == nil {
            guard let document = registry.document(at: uri) else {
                throw error(
                    at: location, keyword: keyword,
                    expected: "a reference to a schema in this document or the registry",
                    found: "\"\(reference)\", which leads nowhere (\(target)"
                        + (options.unreadableReferenceAdvice.map { ": " + $0 } ?? "") + ")")
            }
            let dialect = document["$schema"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) ?? scope.dialect
            _ = try addDocument(document, uri: uri, dialect: dialect)
        }
        guard let root = resourceRoots[uri] else {
            throw error(
                at: location, keyword: keyword, expected: "a reference to a schema", found: "\"\(reference)\"")
        }
        let fragment = target.decodedFragment ?? ""
        if fragment.isEmpty { return root }
        if fragment.hasPrefix("/") {
            let pointer = root.pointer + fragment
            guard JSONPointer.tokens(of: fragment) != nil,
                documents[root.document].value.value(at: pointer) != nil
            else {
                throw error(
                    at: location, keyword: keyword, expected: "a JSON Pointer to a schema",
                    found: "\"\(reference)\", which leads nowhere")
            }
            return Location(document: root.document, pointer: pointer)
        }
        guard let anchor = anchors[uri + "#" + fragment] else {
            throw error(
                at: location, keyword: keyword, expected: "an anchor this document or the registry declares",
                found: "\"\(reference)\", which names none")
        }
        return anchor
    }

    /// Indexes the subtree at a location the walk from its document's root did not reach (a schema inside an
    /// OpenAPI description's `components`, under keywords JSON Schema does not know), so that the `$id`s and
    /// anchors in it resolve.
    mutating func indexIfNeeded(_ location: Location) throws(SchemaError) {
        guard scopes[location] == nil, let value = documents[location.document].value.value(at: location.pointer)
        else { return }
        let inherited = try scope(of: location)
        let isRoot =
            value[inherited.dialect.identifierKeyword ?? "$id"]?.stringValue.map { !$0.hasPrefix("#") } ?? false
        try index(value, at: location, scope: inherited, isResourceRoot: isRoot)
    }

    /// The scope of a location the index walk did not reach (a reference into an unknown keyword): its nearest
    /// indexed ancestor's.
    mutating func scope(of location: Location) throws(SchemaError) -> Scope {
        if let scope = scopes[location] { return scope }
        var pointer = location.pointer
        while let slash = pointer.lastIndex(of: "/") {
            pointer = String(pointer[..<slash])
            if let scope = scopes[Location(document: location.document, pointer: pointer)] { return scope }
        }
        throw error(at: location, keyword: "$ref", expected: "a schema location", found: "none indexed")
    }

    // MARK: Compiling nodes

    /// The node number of the schema at `location`, compiling it (and what it refers to) on first use.
    mutating func node(at location: Location) throws(SchemaError) -> Int {
        if let number = nodeAt[location] { return number }
        try indexIfNeeded(location)
        let scope = try scope(of: location)
        let number = nodes.count
        nodeAt[location] = number
        let fragment = location.pointer.isEmpty ? "" : "#" + location.pointer
        nodes.append(
            CompiledNode(
                kind: .alwaysValid, keywords: .empty, resource: scope.resource,
                absoluteLocation: resources[scope.resource].uri + (fragment.isEmpty ? "#" : fragment),
                readsEvaluated: false, storage: storage))
        guard let value = documents[location.document].value.value(at: location.pointer) else {
            throw error(at: location, keyword: "$ref", expected: "a schema", found: "nothing at that pointer")
        }
        if resourceRoots[resources[scope.resource].uri] == location, resources[scope.resource].recursiveAnchor == -1 {
            resources[scope.resource].recursiveAnchor = number
        }
        if !enteredResources.contains(scope.resource) {
            // A resource's dynamic anchors take part in the dynamic scope as soon as evaluation enters the resource,
            // through its root or any subschema of it.
            enteredResources.insert(scope.resource)
            for (name, anchorLocation) in dynamicAnchorLocations[scope.resource] ?? [:] {
                resources[scope.resource].dynamicAnchors[name] = try node(at: anchorLocation)
            }
        }
        switch value {
        case .bool(let flag):
            nodes[number].kind = flag ? .alwaysValid : .alwaysInvalid
        case .object:
            let keywords = try compileKeywords(of: value, at: location, scope: scope)
            nodes[number].keywords = KeywordList(elements: storage.buffer(keywords))
            nodes[number].kind = keywords.isEmpty ? .alwaysValid : .keywords
            nodes[number].readsEvaluated = keywords.contains {
                if case .unevaluatedItems = $0 { return true }
                if case .unevaluatedProperties = $0 { return true }
                return false
            }
            if keywords.count == 1, case .reference(let target, _) = keywords[0] { nodes[number].forward = target }
            nodes[number].isLeaf = keywords.allSatisfy(\.isAssertion)
            if nodes[number].isLeaf, let plan = LeafPlan(keywords) { nodes[number].leafPlan = storage.store(plan) }
            if let plan = ObjectPlan(keywords) { nodes[number].objectPlan = storage.store(plan) }
        default:
            throw error(
                at: location, keyword: nil, expected: "a schema (an object or a boolean)",
                found: value.briefDescription)
        }
        return number
    }

    private mutating func child(_ location: Location, _ suffix: String) throws(SchemaError) -> Int {
        try node(at: Location(document: location.document, pointer: location.pointer + suffix))
    }

    // swift-format-ignore: FunctionLength
    private mutating func compileKeywords(of value: JSONValue, at location: Location, scope: Scope)
        throws(SchemaError) -> [CompiledKeyword]
    {
        guard case .object(let members) = value else { return [] }
        let dialect = scope.dialect
        let vocabularies = scope.vocabularies
        let validation = !dialect.hasVocabularies || vocabularies.contains(.validation)
        let applicator = !dialect.hasVocabularies || vocabularies.contains(.applicator)
        let unevaluated = dialect.hasVocabularies && vocabularies.contains(.unevaluated)

        // Up to draft-07, `$ref` stands alone: every keyword beside it is ignored (and said so).
        if dialect.refOverridesSiblings, let reference = value["$ref"]?.stringValue {
            for (keyword, _) in members where keyword != "$ref" && !Self.annotationKeywords.contains(keyword) {
                if keyword == "definitions" || keyword.hasPrefix("x-") || keyword == "$schema" || keyword == "id"
                    || keyword == "$id" || keyword == "$comment"
                {
                    continue
                }
                ignored.append(
                    IgnoredKeyword(
                        location: nodes[nodeAt[location]!].absoluteLocation, keyword: keyword,
                        reason: "beside $ref, which hides the keywords beside it in \(dialect)"))
            }
            let target = try resolve(reference, from: scope, at: location, keyword: "$ref")
            return [.reference(try node(at: target), keyword: .reference)]
        }

        var assertions: [CompiledKeyword] = []
        var requiredNames: [String]?
        var applicators: [CompiledKeyword] = []
        var last: [CompiledKeyword] = []
        var known = Self.annotationKeywords.union(Self.coreKeywords)

        func bound(_ keyword: String) throws(SchemaError) -> NumberBound? {
            guard let member = value[keyword] else { return nil }
            guard let bound = NumberBound(member, storage: storage) else {
                throw error(at: location, keyword: keyword, expected: "a number", found: member.briefDescription)
            }
            return bound
        }
        func count(_ keyword: String) throws(SchemaError) -> Int? {
            guard let member = value[keyword] else { return nil }
            guard case .number(let literal) = member, let exact = ExactNumber(literal), exact.isInteger,
                !exact.isNegative, let number = Double(literal)
            else {
                throw error(
                    at: location, keyword: keyword, expected: "a non-negative integer", found: member.briefDescription)
            }
            return number >= Double(Int.max) ? Int.max : Int(number)
        }
        func pattern(_ text: String, keyword: String) throws(SchemaError) -> PatternMatcher {
            do {
                return PatternMatcher(try ECMARegex(text), storage: storage)
            } catch {
                if options.acceptsAnnexBPatterns, let legacy = try? ECMARegex(text, annexB: true) {
                    return PatternMatcher(legacy, storage: storage)
                }
                throw self.error(
                    at: location, keyword: keyword, expected: "an ECMA-262 regular expression", found: "\(error)")
            }
        }

        if validation {
            known.formUnion(Self.validationKeywords(dialect))
            if let type = value["type"] {
                var set: TypeSet = []
                let names: [JSONValue]
                if case .array(let list) = type { names = list } else { names = [type] }
                for name in names {
                    guard let text = name.stringValue, let single = TypeSet(name: text) else {
                        throw error(
                            at: location, keyword: "type", expected: "a JSON type name or an array of them",
                            found: name.briefDescription)
                    }
                    set.insert(single)
                }
                if dialect == .openAPI30, value["nullable"] == .bool(true) { set.insert(.null) }
                assertions.append(.type(set, integerNeedsIntegralLiteral: dialect == .draft4))
            }
            if dialect == .openAPI30, value["nullable"] == .bool(true) {
                known.insert("nullable")
                if value["type"] == nil { assertions.insert(.nullable, at: 0) }
            }
            if let member = value["enum"] {
                guard case .array(let values) = member else {
                    throw error(at: location, keyword: "enum", expected: "an array", found: member.briefDescription)
                }
                var allowed = values
                if dialect == .openAPI30, value["nullable"] == .bool(true) { allowed.append(.null) }
                assertions.append(.enumeration(storage.store(EnumValues(allowed, storage: storage))))
            }
            if dialect != .draft4, dialect != .openAPI30, let constant = value["const"] {
                assertions.append(.constant(storage.hold(Box(constant))))
            }
            if let step = try bound("multipleOf") {
                guard step.double > 0 else {
                    throw error(
                        at: location, keyword: "multipleOf", expected: "a number above 0", found: step.literal)
                }
                assertions.append(.multipleOf(step))
            }
            if dialect == .draft4 || dialect == .openAPI30 {
                // Boolean `exclusiveMaximum`/`exclusiveMinimum` make `maximum`/`minimum` strict.
                if let maximum = try bound("maximum") {
                    assertions.append(
                        value["exclusiveMaximum"] == .bool(true) ? .exclusiveMaximum(maximum) : .maximum(maximum))
                }
                if let minimum = try bound("minimum") {
                    assertions.append(
                        value["exclusiveMinimum"] == .bool(true) ? .exclusiveMinimum(minimum) : .minimum(minimum))
                }
            } else {
                if let maximum = try bound("maximum") { assertions.append(.maximum(maximum)) }
                if let maximum = try bound("exclusiveMaximum") { assertions.append(.exclusiveMaximum(maximum)) }
                if let minimum = try bound("minimum") { assertions.append(.minimum(minimum)) }
                if let minimum = try bound("exclusiveMinimum") { assertions.append(.exclusiveMinimum(minimum)) }
            }
            if let length = try count("maxLength") { assertions.append(.maxLength(length)) }
            if let length = try count("minLength") { assertions.append(.minLength(length)) }
            if let member = value["pattern"] {
                guard let text = member.stringValue else {
                    throw error(
                        at: location, keyword: "pattern", expected: "a regular expression string",
                        found: member.briefDescription)
                }
                assertions.append(.pattern(storage.hold(try pattern(text, keyword: "pattern"))))
            }
            if let length = try count("maxItems") { assertions.append(.maxItems(length)) }
            if let length = try count("minItems") { assertions.append(.minItems(length)) }
            if value["uniqueItems"] == .bool(true) { assertions.append(.uniqueItems) }
            if let length = try count("maxProperties") { assertions.append(.maxProperties(length)) }
            if let length = try count("minProperties") { assertions.append(.minProperties(length)) }
            if let member = value["required"] {
                guard case .array(let names) = member, names.allSatisfy({ $0.stringValue != nil }) else {
                    throw error(
                        at: location, keyword: "required", expected: "an array of property names",
                        found: member.briefDescription)
                }
                var required = names.compactMap(\.stringValue)
                if let direction = options.direction {
                    required.removeAll { isHidden(property: $0, of: value, direction: direction, scope: scope) }
                }
                if !required.isEmpty {
                    requiredNames = required
                    assertions.append(.required(storage.store(RequiredNames(required, storage: storage))))
                }
            }
            if dialect.hasVocabularies, case .object(let entries)? = value["dependentRequired"] {
                assertions.append(
                    .dependentRequired(
                        storage.hold(Box(entries.map { ($0.key, $0.value.arrayOfStrings) })),
                        keyword: .dependentRequired))
            }
        }

        if dialect == .draft7, value["contentEncoding"] != nil || value["contentMediaType"] != nil {
            let encoding = value["contentEncoding"]?.stringValue
            let mediaType = value["contentMediaType"]?.stringValue
            if encoding?.lowercased() == "base64" || mediaType?.lowercased() == "application/json" {
                assertions.append(.content(storage.hold(Box((encoding?.lowercased(), mediaType?.lowercased())))))
            }
        }

        // Format: an assertion when the options or the metaschema's vocabularies say so, else an annotation.
        let formatVocabulary =
            !dialect.hasVocabularies || vocabularies.contains(.formatAnnotation)
            || vocabularies.contains(.formatAssertion)
        if formatVocabulary, let format = value["format"]?.stringValue {
            known.insert("format")
            if scope.assertsFormat {
                let known = FormatChecker.knownFormats.contains(format) || format == "int32" || format == "int64"
                assertions.append(.format(storage.hold(Box(format)), known: known))
            }
        }

        if applicator {
            known.formUnion(Self.applicatorKeywords(dialect))
            var table: Ref<PropertyTable>?
            if case .object(let entries)? = value["properties"] {
                var order: [(name: String, node: Int)] = []
                for (name, _) in entries {
                    order.append((name, try child(location, "/properties/" + JSONPointer.escape(name))))
                }
                let properties = storage.store(PropertyTable(order, storage: storage))
                table = properties
                applicators.append(.properties(properties))
                // `required` looks its names up in this table, for both keywords.
                if let requiredNames,
                    let index = assertions.firstIndex(where: { if case .required = $0 { true } else { false } })
                {
                    let linked = RequiredNames(requiredNames, storage: storage, properties: properties)
                    assertions[index] = .required(storage.store(linked))
                }
            }
            var patterns: [PatternMatcher] = []
            if case .object(let entries)? = value["patternProperties"] {
                var compiled: [(matcher: PatternMatcher, node: Int)] = []
                for (text, _) in entries {
                    let regex = try pattern(text, keyword: "patternProperties")
                    compiled.append((regex, try child(location, "/patternProperties/" + JSONPointer.escape(text))))
                    patterns.append(regex)
                }
                applicators.append(.patternProperties(storage.hold(Box(compiled))))
            }
            if value["additionalProperties"] != nil {
                let additional = AdditionalProperties(
                    node: try child(location, "/additionalProperties"), named: table,
                    patterns: patterns.isEmpty ? nil : storage.hold(Box(patterns)))
                applicators.append(.additionalProperties(storage.store(additional)))
            }
            if dialect != .draft4, dialect != .openAPI30, value["propertyNames"] != nil {
                applicators.append(.propertyNames(try child(location, "/propertyNames")))
            }
            if dialect.hasVocabularies, case .object(let entries)? = value["dependentSchemas"] {
                var list: [(name: String, node: Int)] = []
                for (name, _) in entries {
                    list.append((name, try child(location, "/dependentSchemas/" + JSONPointer.escape(name))))
                }
                applicators.append(.dependentSchemas(storage.hold(Box(list)), keyword: .dependentSchemas))
            }
            // `dependencies` before 2019-09; after it, split in two, but still read for compatibility (the suite's
            // optional dependencies-compatibility tests, and schemas written for both).
            if case .object(let entries)? = value["dependencies"] {
                var requiredList: [(name: String, required: [String])] = []
                var schemaList: [(name: String, node: Int)] = []
                for (name, entry) in entries {
                    if case .array = entry {
                        requiredList.append((name, entry.arrayOfStrings))
                    } else {
                        schemaList.append((name, try child(location, "/dependencies/" + JSONPointer.escape(name))))
                    }
                }
                if !requiredList.isEmpty {
                    assertions.append(.dependentRequired(storage.hold(Box(requiredList)), keyword: .dependencies))
                }
                if !schemaList.isEmpty {
                    applicators.append(.dependentSchemas(storage.hold(Box(schemaList)), keyword: .dependencies))
                }
            }
            // Arrays: 2020-12 `prefixItems` + `items`; before, `items` (a schema, or an array) + `additionalItems`.
            if dialect == .draft2020_12 {
                var prefix = 0
                if case .array(let list)? = value["prefixItems"] {
                    var numbers: [Int] = []
                    for index in list.indices { numbers.append(try child(location, "/prefixItems/\(index)")) }
                    prefix = numbers.count
                    applicators.append(.prefixItems(NodeList(numbers, storage: storage), keyword: .prefixItems))
                }
                if value["items"] != nil {
                    applicators.append(
                        .items(node: Int32(try child(location, "/items")), start: Int32(prefix), keyword: .items))
                }
            } else if let items = value["items"] {
                if case .array(let list) = items {
                    var numbers: [Int] = []
                    for index in list.indices { numbers.append(try child(location, "/items/\(index)")) }
                    applicators.append(.prefixItems(NodeList(numbers, storage: storage), keyword: .items))
                    if value["additionalItems"] != nil {
                        applicators.append(
                            .items(
                                node: Int32(try child(location, "/additionalItems")), start: Int32(numbers.count),
                                keyword: .additionalItems))
                    }
                } else {
                    applicators.append(.items(node: Int32(try child(location, "/items")), start: 0, keyword: .items))
                }
            }
            if dialect != .draft4, dialect != .openAPI30, value["contains"] != nil {
                var minimum = 1
                var maximum: Int?
                if dialect.hasVocabularies, validation {
                    minimum = try count("minContains") ?? 1
                    maximum = try count("maxContains")
                }
                let contains = (
                    node: try child(location, "/contains"), minimum: minimum, maximum: maximum,
                    reportsEvaluated: dialect == .draft2020_12
                )
                applicators.append(.contains(storage.hold(Box(contains))))
            }
            for keyword in ["allOf", "anyOf", "oneOf"] {
                guard case .array(let list)? = value[keyword] else { continue }
                var numbers: [Int] = []
                for index in list.indices { numbers.append(try child(location, "/\(keyword)/\(index)")) }
                let nodeList = NodeList(numbers, storage: storage)
                switch keyword {
                case "allOf": applicators.append(.allOf(nodeList))
                case "anyOf": applicators.append(.anyOf(nodeList))
                default: applicators.append(.oneOf(nodeList))
                }
            }
            if value["not"] != nil { applicators.append(.not(try child(location, "/not"))) }
            if dialect != .draft4, dialect != .draft6, dialect != .openAPI30, value["if"] != nil {
                let condition = try child(location, "/if")
                let then = value["then"] != nil ? try child(location, "/then") : nil
                let otherwise = value["else"] != nil ? try child(location, "/else") : nil
                // A lone `if` asserts nothing, but what it evaluates still counts for the unevaluated keywords.
                applicators.append(
                    .conditional(condition: Int32(condition), then: Int32(then ?? -1), else: Int32(otherwise ?? -1)))
            }
        }
        if let reference = value["$ref"]?.stringValue {
            let target = try resolve(reference, from: scope, at: location, keyword: "$ref")
            applicators.insert(.reference(try node(at: target), keyword: .reference), at: 0)
        }
        if dialect == .draft2020_12, let reference = value["$dynamicRef"]?.stringValue {
            let target = try resolve(reference, from: scope, at: location, keyword: "$dynamicRef")
            let initial = try node(at: target)
            let fragment = URIReference(reference).decodedFragment ?? ""
            var anchor: String?
            let targetValue = documents[target.document].value.value(at: target.pointer)
            if !fragment.isEmpty, !fragment.hasPrefix("/"), targetValue?["$dynamicAnchor"]?.stringValue == fragment {
                anchor = fragment
                usesDynamicScope = true
            }
            applicators.insert(.dynamicReference(initial: initial, anchor: anchor.map { storage.hold(Box($0)) }), at: 0)
        }
        if dialect == .draft2019_09, let reference = value["$recursiveRef"]?.stringValue {
            let target = try resolve(reference, from: scope, at: location, keyword: "$recursiveRef")
            let initial = try node(at: target)
            let isAnchor =
                documents[target.document].value.value(at: target.pointer)?["$recursiveAnchor"] == .bool(true)
            if isAnchor { usesDynamicScope = true }
            applicators.insert(.recursiveReference(initial: initial, targetIsRecursiveAnchor: isAnchor), at: 0)
        }
        if unevaluated || (dialect.hasVocabularies && applicator && vocabularies.contains(.unevaluated)) {
            known.formUnion(["unevaluatedItems", "unevaluatedProperties"])
            if value["unevaluatedItems"] != nil {
                last.append(.unevaluatedItems(try child(location, "/unevaluatedItems")))
            }
            if value["unevaluatedProperties"] != nil {
                last.append(.unevaluatedProperties(try child(location, "/unevaluatedProperties")))
            }
        }
        if dialect == .openAPI30 { known.formUnion(Self.openAPIKeywords) }
        if dialect.hasVocabularies { known.formUnion(["minContains", "maxContains"]) }
        for (keyword, _) in members where !known.contains(keyword) && !keyword.hasPrefix("x-") {
            ignored.append(
                IgnoredKeyword(
                    location: nodes[nodeAt[location]!].absoluteLocation, keyword: keyword,
                    reason: Self.allKeywords.contains(keyword)
                        ? "not a keyword of \(dialect) (or its vocabulary is off)" : "not a JSON Schema keyword"))
        }
        return assertions + applicators + last
    }

    /// Whether a property is `readOnly` (in requests) or `writeOnly` (in responses), directly or through `$ref`.
    private mutating func isHidden(
        property name: String, of value: JSONValue, direction: MessageDirection, scope: Scope
    )
        -> Bool
    {
        guard var property = value["properties"]?[name] else { return false }
        let keyword = direction == .response ? "writeOnly" : "readOnly"
        var hops = 0
        while hops < 32 {
            if property[keyword] == .bool(true) { return true }
            guard let reference = property["$ref"]?.stringValue,
                let target = try? resolve(
                    reference, from: scope, at: Location(document: 0, pointer: ""), keyword: "$ref"),
                let next = documents[target.document].value.value(at: target.pointer)
            else { return false }
            property = next
            hops += 1
        }
        return false
    }

    func error(at location: Location, keyword: String?, expected: String, found: String) -> SchemaError {
        var pointer = location.pointer
        if let keyword { pointer += "/" + JSONPointer.escape(keyword) }
        let document = documents.indices.contains(location.document) ? documents[location.document].uri : ""
        return SchemaError(
            file: location.document == 0 ? "" : document, position: .jsonPointer(pointer), expected: expected,
            found: found)
    }

    // MARK: Keyword lists

    static let coreKeywords: Set<String> = [
        "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef",
        "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions",
    ]
    static let annotationKeywords: Set<String> = [
        "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly", "contentMediaType",
        "contentEncoding", "contentSchema", "$comment",
    ]
    static let openAPIKeywords: Set<String> = ["nullable", "discriminator", "xml", "externalDocs", "example"]
    static let allKeywords: Set<String> = coreKeywords.union(annotationKeywords).union(
        validationKeywords(.draft2020_12)
    ).union(applicatorKeywords(.draft2020_12)).union([
        "dependencies", "additionalItems", "format", "unevaluatedItems", "unevaluatedProperties", "nullable",
    ])

    static func validationKeywords(_ dialect: Dialect) -> Set<String> {
        var keywords: Set<String> = [
            "type", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
            "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "required",
        ]
        if dialect != .draft4, dialect != .openAPI30 { keywords.insert("const") }
        if dialect.hasVocabularies { keywords.formUnion(["dependentRequired", "minContains", "maxContains"]) }
        return keywords
    }

    static func applicatorKeywords(_ dialect: Dialect) -> Set<String> {
        var keywords: Set<String> = [
            "properties", "patternProperties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "not",
        ]
        if dialect != .draft4, dialect != .openAPI30 { keywords.formUnion(["propertyNames", "contains"]) }
        if dialect != .draft4, dialect != .draft6, dialect != .openAPI30 { keywords.formUnion(["if", "then", "else"]) }
        keywords.insert("dependencies")
        if dialect.hasVocabularies { keywords.insert("dependentSchemas") }
        if dialect == .draft2020_12 { keywords.insert("prefixItems") } else { keywords.insert("additionalItems") }
        return keywords
    }
}

extension JSONValue {
    /// The strings of an array (other items left out).
    fileprivate var arrayOfStrings: [String] {
        guard case .array(let items) = self else { return [] }
        return items.compactMap(\.stringValue)
    }
}
