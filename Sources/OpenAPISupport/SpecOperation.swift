import APIProbeShared
import Foundation
import HTTPFixtures
package import JSONShape

/// One operation of a spec: a method on a path template, its parameters, request body and responses.
package struct SpecOperation: Sendable, Hashable {
    /// The `operationId`, or one made from the method and path (`get_api_search`) when the spec has none.
    var id: String
    /// `GET`, `POST`, …
    var method: String
    /// The path template: `/repos/{owner}/{repo}`.
    var path: String
    /// The JSON Pointer of the operation object in the spec.
    var pointer: String
    /// The parameters, path-level ones included (the operation's own win).
    var parameters: [SpecParameter]
    /// The JSON request body, when the operation takes one.
    var requestBody: SpecRequestBody?
    /// The responses by status key (`200`, `2XX`, `default`), in document order.
    package var responses: [SpecResponse]

    /// `GET /repos/{owner}/{repo}`: how messages name the operation.
    package var name: String { "\(method) \(path)" }

    /// The response declared for `status`: the exact code, then its range (`4XX`), then `default`.
    package func response(for status: Int) -> SpecResponse? {
        let code = String(status)
        if let exact = responses.first(where: { $0.status == code }) { return exact }
        let range = "\(status / 100)XX"
        if let ranged = responses.first(where: { $0.status.uppercased() == range }) { return ranged }
        return responses.first { $0.status == "default" }
    }
}

/// A parameter: where it goes, its name, whether it is required, and its schema.
package struct SpecParameter: Sendable, Hashable {
    /// `path`, `query`, `header` or `cookie`.
    package var location: String
    package var name: String
    package var isRequired: Bool
    /// The parameter's schema as written (resolved when it was a `$ref`), or `nil`.
    var schema: JSONValue?
    /// The JSON Pointer of the schema in the spec.
    var schemaPointer: String
    /// The schema as a shape.
    var shape: ShapeNode
}

/// A JSON request body.
package struct SpecRequestBody: Sendable, Hashable {
    var isRequired: Bool
    var schema: JSONValue?
    var schemaPointer: String
    /// The schema as a shape, `readOnly` properties left out.
    var shape: ShapeNode
    /// Whether every media type the body may have is JSON (a body of other bytes cannot be right).
    var acceptsOnlyJSON = false
}

/// A response: its status key and, for a JSON body, its schema.
package struct SpecResponse: Sendable, Hashable {
    /// `200`, `2XX` or `default`.
    package var status: String
    var schema: JSONValue?
    var schemaPointer: String
    /// The schema as a shape, `writeOnly` properties left out; `nil` without a JSON body.
    package var shape: ShapeNode?

    /// Whether the status is a success (`2xx` or `2XX`).
    var isSuccess: Bool { status.hasPrefix("2") }
}

/// Reads `paths` into operations, converting every schema (so a bad schema is found whatever command runs).
struct OperationReader {
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    let root: JSONValue
    let file: String
    var converter: ShapeConverter

    init(root: JSONValue, file: String) {
        self.root = root
        self.file = file
        converter = ShapeConverter(root: root, file: file)
    }

    func error(_ pointer: String, _ expected: String, _ found: String) -> InputError {
        InputError(file: file, position: .jsonPointer(pointer), expected: expected, found: found)
    }

    mutating func readOperations() throws(InputError) -> [SpecOperation] {
        guard let paths = root["paths"] else { return [] }
        guard let pathMembers = paths.members else { throw error("/paths", "an object", paths.shortDescription) }
        var operations: [SpecOperation] = []
        var usedIDs = Set<String>()
        for (template, rawItem) in pathMembers {
            let itemPointer = "/paths/" + JSONPointer.escape(template)
            let (item, resolvedItemPointer) = try converter.resolvingReference(rawItem, at: itemPointer)
            guard item.members != nil else { throw error(itemPointer, "a path item object", item.shortDescription) }
            let shared = try parameters(item["parameters"], at: resolvedItemPointer + "/parameters")
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                let pointer = resolvedItemPointer + "/" + method
                guard operation.members != nil else {
                    throw error(pointer, "an operation object", operation.shortDescription)
                }
                var parameters = shared
                for own in try self.parameters(operation["parameters"], at: pointer + "/parameters") {
                    parameters.removeAll { $0.location == own.location && $0.name == own.name }
                    parameters.append(own)
                }
                let id = UniqueName.first(
                    operation["operationId"]?.stringValue ?? Self.derivedID(method: method, path: template)
                ) { usedIDs.contains($0) }
                usedIDs.insert(id)
                operations.append(
                    SpecOperation(
                        id: id,
                        method: method.uppercased(),
                        path: template,
                        pointer: pointer,
                        parameters: parameters,
                        requestBody: try requestBody(operation["requestBody"], at: pointer + "/requestBody"),
                        responses: try responses(operation["responses"], at: pointer + "/responses")
                    ))
            }
        }
        converter.finish()
        return operations
    }

    static func derivedID(method: String, path: String) -> String {
        var id = method
        var pending = true
        for character in path {
            if character.isLetter || character.isNumber {
                if pending { id.append("_") }
                id.append(character)
                pending = false
            } else {
                pending = true
            }
        }
        return id
    }

    mutating func parameters(_ value: JSONValue?, at pointer: String) throws(InputError) -> [SpecParameter] {
        guard let value else { return [] }
        guard case .array(let items) = value else {
            throw error(pointer, "an array of parameters", value.shortDescription)
        }
        var result: [SpecParameter] = []
        for (index, raw) in items.enumerated() {
            let (parameter, here) = try converter.resolvingReference(raw, at: "\(pointer)/\(index)")
            guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue else {
                throw error(here, "a parameter with \"name\" and \"in\"", parameter.shortDescription)
            }
            var schema = parameter["schema"]
            var schemaPointer = here + "/schema"
            if schema == nil, let content = parameter["content"]?.members, let first = content.first {
                schema = first.value["schema"]
                schemaPointer = here + "/content/" + JSONPointer.escape(first.key) + "/schema"
            }
            let shape = try schema.map { (s) throws(InputError) in
                try converter.shape(of: s, at: schemaPointer, direction: .request)
            }
            result.append(
                SpecParameter(
                    location: location,
                    name: name,
                    isRequired: location == "path" || parameter["required"]?.boolValue == true,
                    schema: schema.map { try? converter.resolvingReference($0, at: schemaPointer).0 } ?? nil,
                    schemaPointer: schemaPointer,
                    shape: shape ?? .empty
                ))
        }
        return result
    }

    /// The JSON media type of a `content` object (`application/json`, `application/problem+json`, `*/*`).
    static func jsonMedia(_ content: JSONValue?) -> (key: String, value: JSONValue)? {
        guard let members = content?.members else { return nil }
        func isJSON(_ type: String) -> Bool {
            let base = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            return base == "application/json" || base.hasSuffix("+json")
        }
        return members.first { isJSON($0.key.lowercased()) }
            ?? members.first { $0.key == "*/*" || $0.key == "application/*" }
    }

    mutating func requestBody(_ value: JSONValue?, at pointer: String) throws(InputError) -> SpecRequestBody? {
        guard let value else { return nil }
        let (body, here) = try converter.resolvingReference(value, at: pointer)
        guard let media = Self.jsonMedia(body["content"]) else { return nil }
        let schemaPointer = here + "/content/" + JSONPointer.escape(media.key) + "/schema"
        let schema = media.value["schema"]
        let shape = try schema.map { (s) throws(InputError) in
            try converter.shape(of: s, at: schemaPointer, direction: .request)
        }
        let onlyJSON = (body["content"]?.members ?? []).allSatisfy { media in
            let base = media.key.lowercased().split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            return base == "application/json" || base?.hasSuffix("+json") == true
        }
        return SpecRequestBody(
            isRequired: body["required"]?.boolValue == true, schema: schema, schemaPointer: schemaPointer,
            shape: shape ?? .empty, acceptsOnlyJSON: onlyJSON)
    }

    mutating func responses(_ value: JSONValue?, at pointer: String) throws(InputError) -> [SpecResponse] {
        guard let value else { return [] }
        guard let members = value.members else {
            throw error(pointer, "an object of responses", value.shortDescription)
        }
        var result: [SpecResponse] = []
        for (status, raw) in members {
            let (response, here) = try converter.resolvingReference(raw, at: pointer + "/" + JSONPointer.escape(status))
            guard let media = Self.jsonMedia(response["content"]), let schema = media.value["schema"] else {
                result.append(SpecResponse(status: status, schema: nil, schemaPointer: here, shape: nil))
                continue
            }
            let schemaPointer = here + "/content/" + JSONPointer.escape(media.key) + "/schema"
            let shape = try converter.shape(of: schema, at: schemaPointer, direction: .response)
            result.append(SpecResponse(status: status, schema: schema, schemaPointer: schemaPointer, shape: shape))
        }
        return result
    }
}
