package import Foundation
package import HTTPFixtures

/// Schema files on disk (snapshots, a schema given to `schema validate`), compiled with their neighbours: a `$ref`
/// to another file (`components.json#/$defs/Recipe`) is read from the same folder or below it, never from outside it
/// and never from the network.
package enum SchemaFile {
    /// Compiles the schema in `url`.
    ///
    /// - Parameters:
    ///   - displayName: how errors name the file (`Snapshots/recipes/search.schema.json`).
    ///   - folder: the folder references may read files from; the file's own folder by default.
    /// - Throws: ``SchemaError`` naming the file and the place: not JSON, not a schema, a reference that leads
    ///   nowhere.
    package static func compile(
        contentsOf url: URL, displayName: String, inside folder: URL? = nil, options: SchemaOptions = SchemaOptions()
    ) throws(SchemaError) -> JSONSchema {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SchemaError(file: displayName, position: .file, expected: "a readable schema file", found: "\(error)")
        }
        let document = try JSONValue(parsing: data, file: displayName)
        return try compile(document, at: url, displayName: displayName, inside: folder, options: options)
    }

    /// Compiles a schema document read from `url`.
    package static func compile(
        _ document: JSONValue, at url: URL, displayName: String, inside folder: URL? = nil,
        options: SchemaOptions = SchemaOptions()
    ) throws(SchemaError) -> JSONSchema {
        var options = options
        options.baseURI = url.standardizedFileURL.absoluteString
        let root = (folder ?? url.deletingLastPathComponent()).standardizedFileURL
        let registry = SchemaRegistry { uri in
            guard uri.hasPrefix("file:"), let target = URL(string: uri), target.isFileURL else { return nil }
            let resolved = target.standardizedFileURL.resolvingSymlinksInPath()
            guard SafePath.isInside(resolved, folder: root.resolvingSymlinksInPath()),
                let data = try? Data(contentsOf: resolved)
            else { return nil }
            return try? JSONValue(parsing: data)
        }
        do {
            return try JSONSchema(document, options: options, registry: registry)
        } catch {
            throw error.file.isEmpty ? error.inFile(displayName) : error
        }
    }
}
