import APIProbeShared
import Foundation
package import HTTPFixtures

/// A compiled schema: nodes, resources and the settings validation needs. Immutable once compiled, so any number
/// of validations may share it, on any threads.
final class CompiledSchema: Sendable {
    let nodes: [CompiledNode]
    let resources: [CompiledResource]
    let usesDynamicScope: Bool
    let patternTimeLimit: Duration

    init(nodes: [CompiledNode], resources: [CompiledResource], usesDynamicScope: Bool, patternTimeLimit: Duration) {
        self.nodes = nodes
        self.resources = resources
        self.usesDynamicScope = usesDynamicScope
        self.patternTimeLimit = patternTimeLimit
    }
}

/// A JSON Schema (2020-12, 2019-09, draft-07, -06, -04, or OpenAPI 3.0's schema object), compiled once and then
/// used to validate any number of instances.
///
/// ```swift
/// let schema = try JSONSchema(try JSONValue(parsing: schemaData))
/// let errors = try schema.validate(try JSONValue(parsing: body))
/// // ["/items/3/price: maximum: expected a number at most 100, found 250"]
/// ```
///
/// Compiling resolves every `$ref`, `$dynamicRef` and anchor, compiles every pattern and checks the schema against
/// its dialect's metaschema; a schema that is not one throws a ``SchemaError`` naming the place. Keywords the
/// dialect does not define are ignored, as the standard says, and listed in ``ignoredKeywords`` so that a caller
/// can say so (or refuse them).
///
/// Validation runs on the caller's thread and recurses once per level of the instance and of the schema: call it
/// on a thread with a large stack (the tool's commands do) for instances near the parser's depth limit.
package struct JSONSchema: Sendable {
    let compiled: CompiledSchema
    let root: Int
    /// Keywords the schema holds that its dialect does not define, in the order found: ignored, as the standard
    /// says, and reported here.
    package let ignoredKeywords: [IgnoredKeyword]
    /// The dialect of the schema's root.
    package let dialect: Dialect

    /// Compiles a schema document.
    package init(
        _ schema: JSONValue, options: SchemaOptions = SchemaOptions(), registry: SchemaRegistry = SchemaRegistry()
    )
        throws(SchemaError)
    {
        self = try Self.compile(document: schema, pointers: [""], options: options, registry: registry)[0]
    }

    /// Compiles the schemas at `pointers` of one document (an OpenAPI description's operations and components)
    /// together: each reference is resolved and each shared subschema compiled once for all of them.
    ///
    /// - Parameter indexing: more places of the document whose `$id`s and anchors references may name (an OpenAPI
    ///   description's `components/schemas/*`), indexed but compiled only when a reference reaches them.
    package static func compile(
        document: JSONValue, pointers: [String], indexing: [String] = [], options: SchemaOptions = SchemaOptions(),
        registry: SchemaRegistry = SchemaRegistry()
    ) throws(SchemaError) -> [JSONSchema] {
        let rootDialect =
            document["$schema"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) ?? options.defaultDialect
        if options.checksAgainstMetaschema {
            for pointer in pointers {
                guard let value = document.value(at: pointer) else { continue }
                try checkAgainstMetaschema(value, at: pointer, dialect: rootDialect, registry: registry)
            }
        }
        var compiler = SchemaCompiler(options: options, registry: registry)
        let documentNumber = try compiler.addDocument(document, uri: options.baseURI, dialect: rootDialect)
        for pointer in indexing + pointers {
            try compiler.indexIfNeeded(SchemaCompiler.Location(document: documentNumber, pointer: pointer))
        }
        var roots: [Int] = []
        for pointer in pointers {
            let location = SchemaCompiler.Location(document: documentNumber, pointer: pointer)
            guard document.value(at: pointer) != nil else {
                throw compiler.error(at: location, keyword: nil, expected: "a schema", found: "nothing at that pointer")
            }
            roots.append(try compiler.node(at: location))
        }
        try Self.rejectReferenceCycles(compiler)
        let compiled = CompiledSchema(
            nodes: compiler.nodes, resources: compiler.resources, usesDynamicScope: compiler.usesDynamicScope,
            patternTimeLimit: options.patternTimeLimit)
        return roots.map { root in
            JSONSchema(compiled: compiled, root: root, ignoredKeywords: compiler.ignored, dialect: rootDialect)
        }
    }

    private init(compiled: CompiledSchema, root: Int, ignoredKeywords: [IgnoredKeyword], dialect: Dialect) {
        self.compiled = compiled
        self.root = root
        self.ignoredKeywords = ignoredKeywords
        self.dialect = dialect
    }

    /// Whether `instance` is valid: the fast path, which stops at the first failure and builds no messages.
    ///
    /// - Throws: ``ValidationLimitError`` when a limit stopped validation before a verdict (its instance location is
    ///   known only to ``validate(_:)``, which tracks places).
    package func isValid(_ instance: JSONValue) throws(ValidationLimitError) -> Bool {
        var evaluator = Evaluator(schema: compiled, collectsErrors: false)
        var none: Evaluated?
        let valid = evaluator.evaluate(root, instance, &none)
        if let limit = evaluator.limit { throw limit }
        return valid
    }

    /// Every way `instance` breaks the schema (the standard's "basic" output); empty when it is valid.
    ///
    /// - Throws: ``ValidationLimitError`` when a limit stopped validation before a verdict.
    package func validate(_ instance: JSONValue) throws(ValidationLimitError) -> [ValidationError] {
        // Most instances are valid: the fast path decides those without building a path or a message. (A limit it
        // reaches is reached again below, where the place is known.)
        if (try? isValid(instance)) == true { return [] }
        var evaluator = Evaluator(schema: compiled, collectsErrors: true)
        var none: Evaluated?
        _ = evaluator.evaluate(root, instance, &none)
        if let limit = evaluator.limit { throw limit }
        return evaluator.errors
    }

    // MARK: Checks of the schema itself

    /// Checks the schemas at `pointers` of a document (an OpenAPI 3.1 description's) against `dialect`'s
    /// metaschema, without compiling them.
    ///
    /// - Throws: ``SchemaError`` at the first schema that breaks it, with the JSON Pointer in the document.
    package static func checkSchemas(in document: JSONValue, at pointers: [String], dialect: Dialect)
        throws(SchemaError)
    {
        for pointer in pointers {
            guard let value = document.value(at: pointer) else { continue }
            try checkAgainstMetaschema(value, at: pointer, dialect: dialect, registry: SchemaRegistry())
        }
    }

    /// Checks a schema against its dialect's metaschema (or the registry's metaschema its `$schema` names).
    private static func checkAgainstMetaschema(
        _ schema: JSONValue, at pointer: String, dialect: Dialect, registry: SchemaRegistry
    ) throws(SchemaError) {
        let metaschema: JSONSchema
        if let uri = schema["$schema"]?.stringValue, Dialect(metaschemaURI: uri) == nil {
            guard let document = registry.document(at: uri) else {
                throw SchemaError(
                    position: .jsonPointer(pointer + "/$schema"),
                    expected: "the URI of a known dialect (2020-12, 2019-09, draft-07, draft-06, draft-04) or of a "
                        + "metaschema the registry holds", found: "\"\(uri)\"")
            }
            var options = SchemaOptions()
            options.checksAgainstMetaschema = false
            options.assertsFormat = false
            options.baseURI = uri
            metaschema = try JSONSchema(document, options: options, registry: registry)
        } else {
            metaschema = try Metaschemas.compiled(for: dialect)
        }
        let errors: [ValidationError]
        do {
            errors = try metaschema.validate(schema)
        } catch {
            return
        }
        guard let first = errors.first(where: { !["anyOf", "oneOf", "allOf"].contains($0.keyword) }) ?? errors.first
        else { return }
        var expected = first.message
        var found = "a schema that breaks it"
        if let range = first.message.range(of: ", found ", options: .backwards) {
            expected = String(first.message[..<range.lowerBound])
            found = String(first.message[range.upperBound...])
        }
        if expected.hasPrefix("expected ") { expected.removeFirst("expected ".count) }
        throw SchemaError(
            position: .jsonPointer(pointer + first.instanceLocation),
            expected: "\(expected) (the \(dialect) metaschema's \(first.keyword))", found: found)
    }

    /// A chain of nodes that are nothing but a `$ref` and lead back to themselves would never reach a keyword.
    private static func rejectReferenceCycles(_ compiler: SchemaCompiler) throws(SchemaError) {
        func onlyReference(_ node: CompiledNode) -> Int? {
            guard node.keywords.count == 1, case .reference(let target, _) = node.keywords[0] else { return nil }
            return target
        }
        for start in compiler.nodes.indices {
            var seen: Set<Int> = [start]
            var current = start
            while let next = onlyReference(compiler.nodes[current]) {
                if seen.contains(next) {
                    // Named where the cycle closes: the reference that leads back into it.
                    let place = compiler.nodes[current].absoluteLocation
                    throw SchemaError(
                        position: .jsonPointer(Self.fragment(of: place) + "/$ref"),
                        expected: "a $ref that leads to a schema with keywords",
                        found: "a cycle of references with no keyword in between (#\(Self.fragment(of: place)) leads "
                            + "back to #\(Self.fragment(of: compiler.nodes[next].absoluteLocation)))")
                }
                seen.insert(next)
                current = next
            }
        }
    }

    private static func fragment(of location: String) -> String {
        guard let hash = location.firstIndex(of: "#") else { return "" }
        return String(location[location.index(after: hash)...])
    }
}

/// The dialects' metaschemas, compiled once per process.
enum Metaschemas {
    private static let cache = Locked<[Dialect: JSONSchema]>([:])

    static func compiled(for dialect: Dialect) throws(SchemaError) -> JSONSchema {
        if let schema = cache.withLock({ $0[dialect] }) { return schema }
        var options = SchemaOptions()
        options.checksAgainstMetaschema = false
        options.assertsFormat = false
        options.baseURI = dialect.metaschemaURI
        let registry = SchemaRegistry()
        guard let document = registry.document(at: dialect.metaschemaURI) else {
            throw SchemaError(position: .file, expected: "a bundled metaschema", found: "none for \(dialect)")
        }
        let schema = try JSONSchema(document, options: options, registry: registry)
        cache.withLock { $0[dialect] = schema }
        return schema
    }
}

/// Where a reference in a schema document leads, by the validator's own resolution (base URIs from `$id`, anchors,
/// JSON Pointers): the one rule for every reader of references (the OpenAPI shape converter included).
package final class SchemaReferenceResolver {
    /// The place a reference leads to.
    package enum Target: Sendable, Hashable {
        /// A place in the same document, as a JSON Pointer.
        case local(String)
        /// A document the registry holds (a metaschema): its URI, with the fragment.
        case registry(String)
    }

    private var compiler: SchemaCompiler

    /// Indexes `document` (its `$id`s and anchors, below each of `schemaPointers` too).
    package init(
        document: JSONValue, dialect: Dialect, schemaPointers: [String] = [],
        registry: SchemaRegistry = SchemaRegistry(),
        unreadableReferenceAdvice: String? = nil
    ) throws(SchemaError) {
        var options = SchemaOptions()
        options.defaultDialect = dialect
        options.unreadableReferenceAdvice = unreadableReferenceAdvice
        compiler = SchemaCompiler(options: options, registry: registry)
        _ = try compiler.addDocument(document, uri: options.baseURI, dialect: dialect)
        for pointer in schemaPointers {
            try compiler.indexIfNeeded(SchemaCompiler.Location(document: 0, pointer: pointer))
        }
    }

    /// Where `reference`, written in the schema at `pointer`, leads.
    ///
    /// - Throws: ``SchemaError`` at `pointer/$ref` when it leads nowhere.
    package func resolve(_ reference: String, inSchemaAt pointer: String) throws(SchemaError) -> Target {
        let location = SchemaCompiler.Location(document: 0, pointer: pointer)
        try compiler.indexIfNeeded(location)
        let scope = try compiler.scope(of: location)
        let target = try compiler.resolve(reference, from: scope, at: location, keyword: "$ref")
        if target.document == 0 { return .local(target.pointer) }
        return .registry(compiler.documents[target.document].uri + "#" + target.pointer)
    }
}
