import APIProbeShared

/// Large snapshots write each schema that repeats once, under `$defs`, and point at it with `$ref` (JSON Schema
/// 2020-12's own words for it); reading a snapshot expands the references again, so a shape, its diff and its
/// conformance check never see them.
///
/// A description imported from a large OpenAPI document repeats the same object (Stripe's `customer`, expanded
/// wherever an id may be expanded) hundreds of times: written out in full, one operation's snapshot ran to
/// megabytes. Snapshots of up to ``SchemaSnapshot/sharingThreshold`` schemas are written in full, as before, so
/// the snapshots of an ordinary API stay readable in a review.
enum SharedSchemas {
    /// The schemas a shape holds, itself included.
    static func count(_ shape: Shape) -> Int {
        var total = 1
        for (_, child) in children(of: shape, named: "") { total += count(child) }
        return total
    }

    /// The schemas directly below `shape`, in the order the file lists them, each with the name a shared
    /// definition of it would take: its property's name, or `name` (the shape's own) and `-value` or `-item`.
    static func children(of shape: Shape, named name: String) -> [(name: String, shape: Shape)] {
        var result: [(String, Shape)] = []
        if shape.types.contains(.object) {
            if let value = shape.additionalProperties {
                result.append((name + "-value", value))
            } else {
                for key in sortedKeys(shape) { result.append((key, shape.properties[key] ?? .empty)) }
            }
        }
        if shape.types.contains(.array), let items = shape.items { result.append((name + "-item", items)) }
        return result
    }

    static func sortedKeys(_ shape: Shape) -> [String] {
        shape.properties.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The smallest schema worth sharing, in schemas: below it a reference saves little and costs a reader a jump.
    static let minimumSharedSize = 8

    /// The schemas below `root` to write once, with their names in `$defs`: those of at least
    /// ``minimumSharedSize`` schemas that occur more than once (counted without looking inside a repeat, so a
    /// schema inside a shared one counts once). Names come from the property where each first occurs (`owner`,
    /// `owner-2`), in the order the file lists them: the same shape gives the same names.
    static func definitions(for root: Shape) -> [Shape: String] {
        var occurrences: [Shape: Int] = [:]
        var sizes: [Shape: Int] = [:]
        var firstSeen: [(Shape, String)] = []
        func visit(_ shape: Shape, name: String, isRoot: Bool) -> Int {
            if !isRoot, let seen = occurrences[shape] {
                occurrences[shape] = seen + 1
                return sizes[shape] ?? 1
            }
            if !isRoot {
                occurrences[shape] = 1
                firstSeen.append((shape, name))
            }
            var size = 1
            for child in children(of: shape, named: name) {
                size += visit(child.shape, name: child.name, isRoot: false)
            }
            sizes[shape] = size
            return size
        }
        _ = visit(root, name: "root", isRoot: true)
        var names: [Shape: String] = [:]
        var used = Set<String>()
        for (shape, name) in firstSeen
        where (occurrences[shape] ?? 0) > 1 && (sizes[shape] ?? 0) >= minimumSharedSize && names[shape] == nil {
            let unique = UniqueName.first(name.isEmpty ? "schema" : name) { used.contains($0) }
            used.insert(unique)
            names[shape] = unique
        }
        return names
    }
}

/// Expands `$ref`s to `#/$defs/NAME` while a snapshot is read: each definition is read once, and a
/// definition that leads back to itself is an error (a shape is finite; apiprobe cuts recursion where it
/// writes a snapshot).
final class SharedSchemaExpander {
    /// The file's `$defs` object, if any.
    private let definitions: JSONTree?
    private var read: [String: Shape] = [:]
    private var reading: Set<String> = []

    init(root: JSONTree) {
        definitions = root["$defs"]
    }

    func shape(for reference: JSONTree, at pointer: String, depth: Int) throws(JSONShapeError) -> Shape {
        let prefix = "#/$defs/"
        guard case .string(let text) = reference, text.hasPrefix(prefix) else {
            throw JSONShapeError(
                location: .jsonPointer(pointer),
                expected: "a reference to this file's $defs (#/$defs/NAME)",
                found: reference.typeDescription)
        }
        let name = JSONPointer.unescape(String(text.dropFirst(prefix.count)))
        if let done = read[name] { return done }
        guard let definition = definitions?[name] else {
            throw JSONShapeError(
                location: .jsonPointer(pointer),
                expected: "a reference to a schema under $defs",
                found: reference.typeDescription + ", which is not there")
        }
        guard reading.insert(name).inserted else {
            throw JSONShapeError(
                location: .jsonPointer(pointer),
                expected: "a reference that does not lead back to itself (a snapshot's shape is finite)",
                found: reference.typeDescription)
        }
        defer { reading.remove(name) }
        let shape = try SchemaSnapshot.shape(
            from: definition, at: "/$defs/" + JSONPointer.escape(name), depth: depth + 1, expander: self)
        read[name] = shape
        return shape
    }
}
