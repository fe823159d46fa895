import APIProbeShared

/// Named shapes that other shapes refer to: one OpenAPI component each, or a schema a large snapshot writes once.
///
/// A shape that refers to a definition (``ShapeNode/reference(_:in:)``) holds its name, not a copy, so a schema that
/// contains itself (a customer whose subscriptions hold the customer) is a cycle of references rather than a
/// tree cut at some depth, and a component used by 300 operations is one shape. A snapshot file writes the
/// definitions under `$defs` (JSON Schema 2020-12), in the file itself or, for ``source``, in a file beside it
/// that the snapshots of one API share.
///
/// ```swift
/// let definitions = ShapeDefinitions()
/// definitions.define("node", as: ShapeNode(types: .object, properties: ["next": .reference("node", in: definitions)]))
/// let list = ShapeNode.reference("node", in: definitions)
/// list.resolved.properties["next"]?.referenceName  // "node"
/// ```
///
/// Definitions are added while a description is read and only read afterwards; the table is safe to share
/// between tasks. A table whose definitions refer to one another keeps itself alive (they hold it, it holds
/// them): ``SchemaSnapshot`` therefore reads each file's content into one table for the process, so reading the
/// same snapshots again and again costs no more memory.
public final class ShapeDefinitions: Sendable {
    /// The file beside a snapshot that holds these definitions (`components.json`), or `nil` when they are
    /// written in each snapshot's own `$defs`.
    public let source: String?
    private let table = Locked<[String: ShapeNode]>([:])

    /// An empty table; `source` names the shared file the definitions are written to, if any.
    public init(source: String? = nil) {
        self.source = source
    }

    /// The shape named `name`, or `nil` when there is none.
    public subscript(name: String) -> ShapeNode? {
        table.withLock { $0[name] }
    }

    /// Names `shape` (replacing an earlier definition of the same name).
    public func define(_ name: String, as shape: ShapeNode) {
        table.withLock { $0[name] = shape }
    }

    /// The names defined, sorted.
    public var names: [String] {
        table.withLock { Array($0.keys) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The number of definitions.
    public var count: Int { table.withLock { $0.count } }

    /// The definitions `roots` refer to, directly or through other definitions, sorted by name; definitions of
    /// other tables are not followed.
    public func names(reachableFrom roots: [ShapeNode]) -> [String] {
        var seen = Set<String>()
        var pending: [ShapeNode] = roots
        while let shape = pending.popLast() {
            if let link = shape.link {
                guard link.definitions === self, seen.insert(link.name).inserted, let target = self[link.name] else {
                    continue
                }
                pending.append(target)
                continue
            }
            pending.append(contentsOf: shape.properties.values)
            if let items = shape.items { pending.append(items) }
            if let value = shape.additionalProperties { pending.append(value) }
        }
        return seen.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

extension ShapeNode {
    /// A reference from a shape to a definition.
    struct Link: Sendable {
        var name: String
        var definitions: ShapeDefinitions
    }

    /// The shape that stands for the definition `name` in `definitions`: its own fields stay empty and
    /// ``resolved`` reads the definition.
    public static func reference(_ name: String, in definitions: ShapeDefinitions) -> ShapeNode {
        var shape = ShapeNode()
        shape.link = Link(name: name, definitions: definitions)
        return shape
    }

    /// The name of the definition this shape refers to, or `nil` for a shape that holds its own fields.
    public var referenceName: String? { link?.name }

    /// The table of the definition this shape refers to, or `nil`.
    public var referencedDefinitions: ShapeDefinitions? { link?.definitions }

    /// This shape, or the definition it refers to (through references to references). A reference to a name
    /// the table does not hold, or a chain of references that leads back to itself, is the shape that knows
    /// nothing (``empty``): a reader of files reports those as errors before a shape is made.
    public var resolved: ShapeNode {
        guard var link else { return self }
        var seen: Set<String> = []
        while seen.insert(link.name).inserted {
            guard let target = link.definitions[link.name] else { return .empty }
            guard let next = target.link else { return target }
            link = next
        }
        return .empty
    }

    /// Where a walk through shapes stands, so that a walk of a graph of references ends: the definition last
    /// entered and the path inside it (or the path from the root before any definition). A definition is
    /// finite, so the places are finitely many.
    struct WalkPlace: Hashable {
        var definitions: ObjectIdentifier?
        var name: String?
        var path: String

        static let root = WalkPlace(definitions: nil, name: nil, path: "")

        /// The place of `shape` reached from here along `step`; entering a reference starts a new place.
        func entering(_ shape: ShapeNode) -> WalkPlace {
            guard let link = shape.link else { return self }
            return WalkPlace(definitions: ObjectIdentifier(link.definitions), name: link.name, path: "")
        }

        func child(_ step: String) -> WalkPlace {
            WalkPlace(definitions: definitions, name: name, path: path + "/" + step)
        }
    }
}

extension ShapeNode {
    /// This shape with every reference replaced by the shape it stands for, when that ends within
    /// `maximumSchemas` schemas; `nil` for a shape that contains itself (a cycle of references) or grows beyond.
    ///
    /// A snapshot file writes a small shape in full this way (``SchemaSnapshot/sharingThreshold``), so the
    /// snapshots of an ordinary API read without jumps.
    ///
    /// ```swift
    /// let inline = shape.expanded(maximumSchemas: 2_000) ?? shape
    /// ```
    public func expanded(maximumSchemas: Int) -> ShapeNode? {
        var budget = maximumSchemas
        var path: [String] = []
        return expanded(budget: &budget, path: &path)
    }

    private func expanded(budget: inout Int, path: inout [String]) -> ShapeNode? {
        budget -= 1
        guard budget >= 0 else { return nil }
        if let link {
            let key = "\(ObjectIdentifier(link.definitions).hashValue) \(link.name)"
            guard !path.contains(key), let target = link.definitions[link.name] else { return nil }
            path.append(key)
            defer { path.removeLast() }
            return target.expanded(budget: &budget, path: &path)
        }
        guard !properties.isEmpty || items != nil || additionalProperties != nil else { return self }
        var result = self
        for (key, property) in properties {
            guard let inline = property.expanded(budget: &budget, path: &path) else { return nil }
            result.properties[key] = inline
        }
        if let items {
            guard let inline = items.expanded(budget: &budget, path: &path) else { return nil }
            result.items = inline
        }
        if let additionalProperties {
            guard let inline = additionalProperties.expanded(budget: &budget, path: &path) else { return nil }
            result.additionalProperties = inline
        }
        return result
    }
}
