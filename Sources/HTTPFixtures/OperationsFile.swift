package import Foundation

/// The operations file that `apiprobe openapi import` writes beside the snapshots it makes from a spec,
/// `Snapshots/<api>/operations.json`: each operation's method, path template, parameters and request body
/// schema (in the snapshot format), its statuses and its snapshot files, and the servers' base paths.
///
/// This is the one reader of that file: `snapshot check` (spec-derived snapshots are not orphans) and
/// ContractTesting's request conformance read it through here; OpenAPISupport writes it with these names.
package struct OperationsFile: Sendable {
    /// `operations.json`.
    package static let fileName = "operations.json"
    /// The value of `x-apiprobe.generator` in a file that `openapi import` wrote.
    package static let generator = "apiprobe openapi import"

    package struct Parameter: Sendable {
        /// `path`, `query`, `header` or `cookie`.
        package var location: String
        package var name: String
        package var isRequired: Bool
        /// The schema, in the snapshot format (a JSON Schema subset).
        package var schema: JSONValue?
    }

    package struct Operation: Sendable {
        var id: String
        var method: String
        var path: String
        package var parameters: [Parameter]
        package var requestBody: (isRequired: Bool, schema: JSONValue?)?
        /// The snapshot files (`searchRecipes.schema.json`), by status.
        package var snapshots: [String]

        /// `GET /api/search`.
        package var name: String { "\(method) \(path)" }
    }

    package var operations: [Operation]
    /// The path parts of the spec's servers (`/v1`), longest first.
    package var basePaths: [String]

    /// Reads an operations file; `file` names it in errors.
    ///
    /// - Throws: ``InputError`` when it is not JSON or not a file `openapi import` wrote.
    init(data: Data, file: String) throws(InputError) {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            throw error.inFile(file)
        }
        guard document["x-apiprobe"]?["generator"] == .string(Self.generator),
            case .array(let items)? = document["operations"]
        else {
            throw InputError(
                file: file, position: .jsonPointer(""),
                expected: "an operations file that apiprobe openapi import wrote",
                found: document.briefDescription)
        }
        operations = []
        for (index, item) in items.enumerated() {
            guard case .string(let method)? = item["method"], case .string(let path)? = item["path"] else {
                throw InputError(
                    file: file, position: .jsonPointer("/operations/\(index)"),
                    expected: "an operation with \"method\" and \"path\"", found: item.briefDescription)
            }
            var id = ""
            if case .string(let text)? = item["operationId"] { id = text }
            var parameters: [Parameter] = []
            if case .array(let list)? = item["parameters"] {
                for parameter in list {
                    guard case .string(let location)? = parameter["in"], case .string(let name)? = parameter["name"]
                    else { continue }
                    parameters.append(
                        Parameter(
                            location: location, name: name, isRequired: parameter["required"] == .bool(true),
                            schema: parameter["schema"]))
                }
            }
            var body: (Bool, JSONValue?)?
            if let requestBody = item["requestBody"], case .object = requestBody {
                body = (requestBody["required"] == .bool(true), requestBody["schema"])
            }
            var snapshots: [String] = []
            if case .object(let members)? = item["snapshots"] {
                for (_, value) in members { if case .string(let name) = value { snapshots.append(name) } }
            }
            operations.append(
                Operation(
                    id: id, method: method.uppercased(), path: path, parameters: parameters, requestBody: body,
                    snapshots: snapshots))
        }
        basePaths = []
        if case .array(let paths)? = document["basePaths"] {
            for path in paths { if case .string(let text) = path { basePaths.append(text) } }
        }
    }

    /// The operation that `method` and `url` call (server base paths stripped, the template with more literal
    /// segments winning), with its path parameters' values.
    package func operation(method: String, url: String) -> (operation: Operation, pathValues: [String: String])? {
        let segments = PathTemplate.segments(PathTemplate.stripBase(PathTemplate.path(of: url), basePaths: basePaths))
        var best: (Operation, [String: String], Int)?
        for operation in operations where operation.method == method.uppercased() {
            guard let (values, literals) = PathTemplate.match(template: operation.path, segments: segments) else {
                continue
            }
            if best.map({ literals > $0.2 }) ?? true { best = (operation, values, literals) }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// Reads `url`; `nil` when there is no such file.
    package static func read(_ url: URL, displayName: String) throws(InputError) -> OperationsFile? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try OperationsFile(data: data, file: displayName)
    }
}

extension OperationsFile.Parameter: DeclaredParameter {}
