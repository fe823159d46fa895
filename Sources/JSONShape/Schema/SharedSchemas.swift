import APIProbeShared
import Foundation
import HTTPFixtures

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
    static func count(_ shape: ShapeNode) -> Int {
        var total = 1
        for (_, child) in children(of: shape, named: "") { total += count(child) }
        return total
    }

    /// The schemas directly below `shape`, in the order the file lists them, each with the name a shared
    /// definition of it would take: its property's name, or `name` (the shape's own) and `-value` or `-item`.
    static func children(of shape: ShapeNode, named name: String) -> [(name: String, shape: ShapeNode)] {
        var result: [(String, ShapeNode)] = []
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

    static func sortedKeys(_ shape: ShapeNode) -> [String] {
        shape.properties.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The smallest schema worth sharing, in schemas: below it a reference saves little and costs a reader a jump.
    static let minimumSharedSize = 8

    /// The schemas below `root` to write once, with their names in `$defs`: those of at least
    /// ``minimumSharedSize`` schemas that occur more than once (counted without looking inside a repeat, so a
    /// schema inside a shared one counts once). Names come from the property where each first occurs (`owner`,
    /// `owner-2`), in the order the file lists them: the same shape gives the same names.
    static func definitions(for root: ShapeNode) -> [ShapeNode: String] {
        var occurrences: [ShapeNode: Int] = [:]
        var sizes: [ShapeNode: Int] = [:]
        var firstSeen: [(ShapeNode, String)] = []
        func visit(_ shape: ShapeNode, name: String, isRoot: Bool) -> Int {
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
        var names: [ShapeNode: String] = [:]
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

/// Reads the `$ref`s of a snapshot file into references (``ShapeNode/reference(_:in:)``): `#/$defs/NAME` to the
/// file's own definitions, `FILE#/$defs/NAME` to the definitions a folder's snapshots share (an OpenAPI import's
/// `components.json`), read from the snapshot's folder, each file once. Each definition is read once; a
/// reference to a definition that is not there, and a chain of references that leads back to itself without a
/// schema in between, are errors.
final class DefinitionReader {
    /// The file's `$defs` object, if any.
    private let root: JSONValue
    private let file: String
    private let folder: URL?
    private let source: String?
    let definitions: ShapeDefinitions
    private var pending: [(name: String, tree: JSONValue)] = []
    private var requested: Set<String> = []
    /// The readers of the files beside the snapshot, each file read once for all of them (a file may refer to
    /// another, and back).
    private let files: Files

    final class Files {
        var readers: [String: DefinitionReader] = [:]
    }

    /// The files of shared definitions read in this process, by path, with their bytes: a file read again
    /// unchanged gives the same table. A table whose definitions refer to one another lives as long as the
    /// process (they hold it, and it holds them), so each file's content is read into one table, not one per
    /// snapshot that refers to it; reading is faster too.
    static let readFiles = Locked<[String: (data: Data, definitions: ShapeDefinitions)]>([:])

    /// Whether every definition of the file is read (a table from ``readFiles``).
    private var isComplete = false

    /// The bytes and path of a file of shared definitions, to remember once it is read whole.
    private var data: Data?
    private var path: String?

    init(
        root: JSONValue, file: String, folder: URL?, source: String? = nil, files: Files = Files(),
        definitions: ShapeDefinitions? = nil
    ) {
        self.root = root
        self.file = file
        self.folder = folder
        self.source = source
        self.files = files
        self.definitions = definitions ?? ShapeDefinitions(source: source)
    }

    func shape(for reference: JSONValue, at pointer: String) throws(InputError) -> ShapeNode {
        let marker = "#/$defs/"
        guard case .string(let text) = reference, let range = text.range(of: marker) else {
            throw InputError(
                position: .jsonPointer(pointer),
                expected: "a reference to $defs (#/$defs/NAME, or FILE#/$defs/NAME for a file beside this one)",
                found: reference.briefDescription)
        }
        let target = String(text[..<range.lowerBound])
        let name = JSONPointer.unescape(String(text[range.upperBound...]))
        let reader = try target.isEmpty || target == source ? self : other(target, at: pointer)
        try reader.request(name, at: pointer, from: reference)
        return .reference(name, in: reader.definitions)
    }

    private func request(_ name: String, at pointer: String, from reference: JSONValue) throws(InputError) {
        guard !requested.contains(name) else { return }
        if isComplete {
            guard definitions[name] != nil else {
                throw InputError(
                    position: .jsonPointer(pointer),
                    expected: "a reference to a schema under $defs" + (source.map { " in \($0)" } ?? ""),
                    found: reference.briefDescription + ", which is not there")
            }
            return
        }
        guard let tree = root["$defs"]?[name] else {
            throw InputError(
                position: .jsonPointer(pointer),
                expected: "a reference to a schema under $defs" + (source.map { " in \($0)" } ?? ""),
                found: reference.briefDescription + ", which is not there")
        }
        requested.insert(name)
        pending.append((name, tree))
    }

    /// The reader of a file beside the snapshot: a plain file name in the snapshot's folder.
    private func other(_ name: String, at pointer: String) throws(InputError) -> DefinitionReader {
        if let known = files.readers[name] { return known }
        guard let folder, !name.isEmpty, !name.contains("/"), !name.contains("\\"), name != ".", name != ".." else {
            throw InputError(
                position: .jsonPointer(pointer),
                expected: folder == nil
                    ? "a reference inside this file (#/$defs/NAME): it is read without its folder"
                    : "a reference to a file in the snapshot's own folder (FILE#/$defs/NAME)",
                found: "string \"\(name)\"")
        }
        let url = folder.appendingPathComponent(name)
        let shown = url.path
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(
                position: .jsonPointer(pointer), expected: "the file of shared definitions \(name) beside the snapshot",
                found: "no readable file \(shown)")
        }
        if let known = Self.readFiles.withLock({ $0[url.path] }), known.data == data {
            let reader = DefinitionReader(
                root: .object([]), file: shown, folder: folder, source: name, files: files,
                definitions: known.definitions)
            reader.isComplete = true
            files.readers[name] = reader
            return reader
        }
        let tree = try JSONValue(parsing: data, file: shown, maximumDepth: 2_048)
        let reader = DefinitionReader(root: tree, file: shown, folder: folder, source: name, files: files)
        reader.data = data
        reader.path = url.path
        files.readers[name] = reader
        return reader
    }

    /// Whether no reference led to another file.
    var isSelfContained: Bool { files.readers.isEmpty }

    /// Lets go of the readers of the files beside the snapshot (they and this one refer to each other); the
    /// definitions they read stay with the shapes that refer to them.
    func close() {
        files.readers = [:]
    }

    /// Reads every definition asked for (and those they ask for), then checks that no chain of references
    /// leads back to itself.
    func finish() throws(InputError) {
        var progress = true
        var wholeFiles = false
        while progress {
            progress = false
            for reader in [self] + files.readers.values.map({ $0 }) {
                while let (name, tree) = reader.pending.popLast() {
                    progress = true
                    do throws(InputError) {
                        let shape = try SchemaSnapshot.shape(
                            from: tree, at: "/$defs/" + JSONPointer.escape(name), reader: reader)
                        reader.definitions.define(name, as: shape)
                    } catch {
                        throw reader === self ? error : error.inFile(reader.file)
                    }
                }
            }
            // A file of shared definitions is read whole, once, to be remembered (``readFiles``).
            if !progress, !wholeFiles {
                wholeFiles = true
                for reader in files.readers.values where !reader.isComplete {
                    guard case .object(let members)? = reader.root["$defs"] else { continue }
                    for (name, tree) in members where reader.requested.insert(name).inserted {
                        reader.pending.append((name, tree))
                        progress = true
                    }
                }
            }
        }
        for reader in [self] + files.readers.values.map({ $0 }) {
            for name in reader.requested.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                var link = ShapeNode.reference(name, in: reader.definitions)
                var seen: Set<String> = []
                while let next = reader.definitions[link.referenceName ?? ""], next.referenceName != nil,
                    next.referencedDefinitions === reader.definitions
                {
                    guard seen.insert(link.referenceName ?? "").inserted else {
                        let error = InputError(
                            position: .jsonPointer("/$defs/" + JSONPointer.escape(name)),
                            expected: "a chain of references that ends in a schema",
                            found: "references that lead back to \"\(name)\"")
                        throw reader === self ? error : error.inFile(reader.file)
                    }
                    link = next
                }
            }
        }
        for reader in files.readers.values where !reader.isComplete {
            guard let data = reader.data, let path = reader.path else { continue }
            Self.readFiles.withLock { $0[path] = (data, reader.definitions) }
        }
    }
}
