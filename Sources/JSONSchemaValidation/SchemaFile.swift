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

    /// Every way each sample breaks `schema`, by the one validator, leaving out errors of the keywords in `ignoring`
    /// (the snapshot writer's own keywords, which the drift report judges with the usage manifest's ranking).
    ///
    /// - Throws: ``InputError`` for a sample that is not JSON, or one a limit stopped (file and JSON Pointer).
    package static func violations(
        of samples: [(json: Data, file: String)], against schema: JSONSchema, ignoring: Set<String> = []
    ) throws(InputError) -> [SampleViolation] {
        var violations: [SampleViolation] = []
        for sample in samples {
            let instance = try JSONValue(parsing: sample.json, file: sample.file)
            let errors: [ValidationError]
            do {
                errors = try schema.validate(instance)
            } catch {
                throw InputError(
                    file: sample.file, position: .jsonPointer(error.instanceLocation),
                    expected: "a sample the validator can judge within its limits", found: error.message)
            }
            for error in errors where !ignoring.contains(error.keyword) {
                violations.append(SampleViolation(sample: sample.file, error: error))
            }
        }
        return violations
    }
}

/// A sample (a fixture's body, a probe's response) that breaks a schema.
package struct SampleViolation: Sendable, Hashable, CustomStringConvertible {
    /// The sample's name (`Stubs/recipes/search.json`, `sample 3`).
    package var sample: String
    package var error: ValidationError

    /// `/recipe/title: minLength: expected at least 30 characters, found 17 (#/properties/…/minLength)`.
    package var description: String {
        let place = error.instanceLocation.isEmpty ? "/" : error.instanceLocation
        let location = error.absoluteKeywordLocation
        let fragment = location.firstIndex(of: "#").map { String(location[$0...]) } ?? location
        return "\(place): \(error.keyword): \(error.message) (\(fragment))"
    }
}
