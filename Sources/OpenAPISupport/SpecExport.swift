import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONShape

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An OpenAPI 3.1 document written from recorded fixtures and the schema snapshots beside them.
///
/// - Paths: each fixture's URL path; a segment that holds an id (digits, a UUID, or a token of 8 or more
///   letters, digits, `_` and `-` with a digit in it) becomes a `{param}` where several recorded paths differ
///   only there (`/pets/1` and `/pets/2` → `/pets/{petId}`). A path seen once keeps its segments.
/// - Operations: one per method and path template; its `operationId` is the fixtures' endpoint name
///   (`search` for `search.json` and `search.page2.json`) when one endpoint holds them all, else one made
///   from the method and path. Path parameters (integer, UUID or string), the query parameters seen (required
///   when every 2xx fixture sends them), a JSON request body, and every recorded status.
/// - Schemas: each response and request body schema is a shared component (`components/schemas`, reached by
///   `$ref`; equal schemas share one); a 2xx schema is the endpoint's snapshot when there is one, else the
///   shape inferred from the fixtures (as `snapshot update` infers it).
///
/// The bytes are deterministic (sorted keys, two-space indent, no dates) and pass the redactor: every secret
/// the fixtures hold (credential headers, URL credentials) is masked wherever it would appear.
///
/// ```swift
/// let export = try SpecExport(
///     stubs: FixtureStore(directory: URL(fileURLWithPath: "Stubs/recipes")),
///     snapshots: URL(fileURLWithPath: "Snapshots"), title: "Recipes API")
/// try export.data.write(to: URL(fileURLWithPath: "openapi.json"))
/// ```
package struct SpecExport: Sendable {
    /// The document's bytes: JSON, keys sorted, two-space indent, trailing newline, secrets masked.
    package var data: Data
    /// How many fixtures were read.
    package var fixtureCount: Int
    /// How many operations the document has.
    package var operationCount: Int

    /// Builds the document.
    ///
    /// - Parameters:
    ///   - stubs: the fixtures (every `*.json` below the folder).
    ///   - snapshots: the snapshots folder (`Snapshots/<endpoint>.schema.json`), or `nil`.
    ///   - title: `info.title`.
    ///   - redactor: masks secrets; it also learns those the fixtures hold.
    /// - Throws: ``InputError`` for a fixture that cannot be read, `InputError` for a snapshot that
    ///   cannot be read.
    package init(stubs: FixtureStore, snapshots: URL?, title: String, redactor: Redactor = Redactor()) throws {
        var recorded: [Recorded] = []
        for name in stubs.names() {
            let url = stubs.url(for: name)
            let exchange = try Exchange.load(from: url, displayName: stubs.displayPath(for: url))
            redactor.learnSecrets(in: exchange)
            recorded.append(Recorded(name: name, file: stubs.displayPath(for: url), exchange: exchange))
        }
        fixtureCount = recorded.count

        // Templates from the distinct paths of every method together.
        let paths = Set(recorded.map { OpenAPISpec.path(of: $0.exchange.request.url) })
        let templates = Self.templates(for: paths)

        var groups: [String: [Recorded]] = [:]
        for fixture in recorded {
            let template = templates[OpenAPISpec.path(of: fixture.exchange.request.url)] ?? "/"
            groups["\(template) \(fixture.exchange.request.method.uppercased())", default: []].append(fixture)
        }
        let keys = groups.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

        // Operation ids: the endpoint's name when one endpoint holds the operation's fixtures and no other
        // operation's.
        var endpointOwners: [String: Int] = [:]
        for key in keys {
            for endpoint in Set((groups[key] ?? []).map(\.endpoint)) { endpointOwners[endpoint, default: 0] += 1 }
        }
        var usedIDs = Set<String>()
        var components = ComponentTable()
        var pathItems: [String: [(key: String, value: JSONValue)]] = [:]
        for key in keys {
            let fixtures = groups[key] ?? []
            let space = key.lastIndex(of: " ") ?? key.endIndex
            let template = String(key[..<space])
            let method = String(key[key.index(after: space)...])
            let endpoints = Set(fixtures.map(\.endpoint))
            var id = OperationReader.derivedID(method: method.lowercased(), path: template)
            if endpoints.count == 1, let endpoint = endpoints.first, endpointOwners[endpoint] == 1 {
                let last = endpoint.split(separator: "/").last.map(String.init) ?? endpoint
                id = Self.componentName(last)
            }
            id = UniqueName.first(id) { usedIDs.contains($0) }
            usedIDs.insert(id)
            let operation = try Self.operation(
                id: id, template: template, fixtures: fixtures, snapshots: snapshots, components: &components)
            pathItems[template, default: []].append((method.lowercased(), operation))
        }

        var servers: [String] = []
        for fixture in recorded {
            guard let components = URLComponents(string: fixture.exchange.request.url),
                let scheme = components.scheme, let host = components.host, !host.isEmpty
            else { continue }
            let server = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
            if !servers.contains(server) { servers.append(server) }
        }
        var document: [(key: String, value: JSONValue)] = [
            ("openapi", .string("3.1.0")),
            (
                "info",
                .object([
                    ("title", .string(title)), ("version", .string("1.0.0")),
                    (
                        "description",
                        .string(
                            "Written by apiprobe openapi export from \(recorded.count) recorded fixtures and their "
                                + "schema snapshots.")
                    ),
                ])
            ),
            ("paths", .object(pathItems.map { ($0.key, .object($0.value)) })),
        ]
        if !servers.isEmpty {
            document.append(("servers", .array(servers.sorted().map { .object([("url", .string($0))]) })))
        }
        if !components.schemas.isEmpty {
            document.append(
                ("components", .object([("schemas", .object(components.schemas.map { ($0.name, $0.schema) }))])))
        }
        operationCount = keys.count
        let text = String(
            decoding: JSONValue.object(document).serialized(pretty: true, sortedKeys: true), as: UTF8.self)
        data = Data((redactor.redact(text: text) + "\n").utf8)
    }

    private struct Recorded {
        var name: String
        var file: String
        var exchange: Exchange
        var endpoint: String { FixtureStore.endpointName(ofFixture: name) }
        var isSuccess: Bool { (200..<300).contains(exchange.response.status) }
    }

    /// The shared schemas, equal ones once.
    private struct ComponentTable {
        var schemas: [(name: String, schema: JSONValue)] = []

        mutating func reference(to schema: JSONValue, preferring name: String) -> JSONValue {
            if let existing = schemas.first(where: { $0.schema == schema }) {
                return .object([("$ref", .string("#/components/schemas/" + existing.name))])
            }
            let unique = UniqueName.first(name) { candidate in schemas.contains { $0.name == candidate } }
            schemas.append((unique, schema))
            return .object([("$ref", .string("#/components/schemas/" + unique))])
        }
    }

    // MARK: Operations

    private static func operation(
        id: String, template: String, fixtures: [Recorded], snapshots: URL?, components: inout ComponentTable
    ) throws -> JSONValue {
        var parameters: [JSONValue] = []
        // Path parameters, with the values the fixtures sent.
        let templateSegments = OpenAPISpec.segments(template)
        for (index, segment) in templateSegments.enumerated() where segment.hasPrefix("{") {
            let name = String(segment.dropFirst().dropLast())
            let values = fixtures.compactMap { fixture -> String? in
                let segments = OpenAPISpec.segments(OpenAPISpec.path(of: fixture.exchange.request.url))
                return index < segments.count ? (segments[index].removingPercentEncoding ?? segments[index]) : nil
            }
            parameters.append(
                .object([
                    ("name", .string(name)), ("in", .string("path")), ("required", .bool(true)),
                    ("schema", parameterSchema(values)),
                ]))
        }
        // Query parameters seen; required when every 2xx fixture sends them.
        var queries: [String: [String]] = [:]
        var successQueries: [Set<String>] = []
        for fixture in fixtures {
            let items = URLComponents(string: fixture.exchange.request.url)?.queryItems ?? []
            for item in items { queries[item.name, default: []].append(item.value ?? "") }
            if fixture.isSuccess { successQueries.append(Set(items.map(\.name))) }
        }
        for name in queries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let required = !successQueries.isEmpty && successQueries.allSatisfy { $0.contains(name) }
            parameters.append(
                .object([
                    ("name", .string(name)), ("in", .string("query")), ("required", .bool(required)),
                    ("schema", parameterSchema(queries[name] ?? [])),
                ]))
        }
        var members: [(key: String, value: JSONValue)] = [("operationId", .string(id))]
        if !parameters.isEmpty { members.append(("parameters", .array(parameters))) }

        // A JSON request body.
        let bodies = fixtures.compactMap { fixture -> (json: Data, file: String)? in
            guard case .json(let value)? = fixture.exchange.request.body else { return nil }
            return (value.serialized(), fixture.file)
        }
        if !bodies.isEmpty {
            let shape = try SchemaSnapshot(samples: bodies, previous: nil).shape
            let schema = components.reference(to: SpecImport.schemaTree(shape), preferring: id + "_request")
            members.append(
                (
                    "requestBody",
                    .object([
                        ("required", .bool(bodies.count == fixtures.count)),
                        ("content", .object([("application/json", .object([("schema", schema)]))])),
                    ])
                ))
        }

        // Responses by status.
        var byStatus: [Int: [Recorded]] = [:]
        for fixture in fixtures { byStatus[fixture.exchange.response.status, default: []].append(fixture) }
        var responses: [(key: String, value: JSONValue)] = []
        let firstSuccess = byStatus.keys.filter { (200..<300).contains($0) }.min()
        for status in byStatus.keys.sorted() {
            let group = byStatus[status] ?? []
            var response: [(key: String, value: JSONValue)] = [
                ("description", .string(HTTPURLResponse.localizedString(forStatusCode: status).capitalizedFirst))
            ]
            let samples = group.compactMap { fixture -> (json: Data, file: String)? in
                guard case .json(let value)? = fixture.exchange.response.body else { return nil }
                return (value.serialized(), fixture.file)
            }
            if !samples.isEmpty {
                var shape: ShapeNode?
                let endpoints = Set(group.map(\.endpoint))
                if (200..<300).contains(status), endpoints.count == 1, let endpoint = endpoints.first,
                    let snapshots
                {
                    let url = snapshots.appendingPathComponent(endpoint + ".schema.json")
                    if FileManager.default.fileExists(atPath: url.path) {
                        let file = APIProbeShared.displayPath(url)
                        let read = try SchemaSnapshot(contentsOf: url, file: file).shape
                        // A snapshot's references (to `components.json`, an OpenAPI import's) are written out: the
                        // description exported holds its schemas whole. One that contains itself cannot be (yet).
                        guard let whole = read.expanded(maximumSchemas: 1_000_000) else {
                            throw InputError(
                                file: file, position: .file,
                                expected:
                                    "a snapshot whose references can be written out (export writes schemas whole)",
                                found:
                                    "a schema that contains itself (a cycle of references) or expands to over 1,000,000 schemas"
                            )
                        }
                        shape = whole
                    }
                }
                let resolved = try shape ?? SchemaSnapshot(samples: samples, previous: nil).shape
                let name = status == firstSuccess ? id : "\(id)_\(status)"
                let schema = components.reference(to: SpecImport.schemaTree(resolved), preferring: name)
                response.append(("content", .object([("application/json", .object([("schema", schema)]))])))
            } else if group.contains(where: { $0.exchange.response.body != nil }) {
                let type =
                    group.lazy.compactMap { $0.exchange.response.header("Content-Type") }.first
                    .map { $0.split(separator: ";").first.map { String($0).trimmingCharacters(in: .whitespaces) } }
                    ?? nil
                response.append(
                    (
                        "content",
                        .object([
                            (
                                type.flatMap { $0.isEmpty ? nil : $0.lowercased() } ?? "application/octet-stream",
                                .object([("schema", .object([("type", .string("string"))]))])
                            )
                        ])
                    ))
            }
            responses.append((String(status), .object(response)))
        }
        members.append(("responses", .object(responses)))
        return .object(members)
    }

    /// The schema of a parameter from the values sent: integer, number, boolean, a UUID string, or a string.
    static func parameterSchema(_ values: [String]) -> JSONValue {
        guard !values.isEmpty else { return .object([("type", .string("string"))]) }
        if values.allSatisfy({ Int($0) != nil }) { return .object([("type", .string("integer"))]) }
        if values.allSatisfy({ OpenAPISpec.isJSONNumber($0) }) { return .object([("type", .string("number"))]) }
        if values.allSatisfy({ $0 == "true" || $0 == "false" }) { return .object([("type", .string("boolean"))]) }
        if values.allSatisfy({ UUID(uuidString: $0) != nil }) {
            return .object([("type", .string("string")), ("format", .string("uuid"))])
        }
        return .object([("type", .string("string"))])
    }

    /// A name OpenAPI allows for a component (`^[a-zA-Z0-9._-]+$`).
    static func componentName(_ raw: String) -> String {
        let name = String(
            raw.unicodeScalars.map { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        return name.isEmpty ? "operation" : name
    }

    // MARK: Path templates

    /// Whether a path segment holds an id: digits, a UUID, or a token of 8 or more letters, digits, `_` and
    /// `-` with at least one digit.
    static func isIdentifier(_ segment: String) -> Bool {
        let text = segment.removingPercentEncoding ?? segment
        guard !text.isEmpty else { return false }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return true }
        if UUID(uuidString: text) != nil { return true }
        let allowed = text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed && text.utf8.count >= 8
            && text.utf8.contains { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// The template of each path: a segment becomes a parameter where several paths differ only there and
    /// every one of them holds an id there.
    static func templates(for paths: Set<String>) -> [String: String] {
        let placeholder = "\u{0}"
        var current: [String: [String]] = [:]
        for path in paths { current[path] = OpenAPISpec.segments(path) }
        let longest = current.values.map(\.count).max() ?? 0
        var changed = true
        while changed {
            changed = false
            for position in 0..<longest {
                var groups: [[String]: [String]] = [:]
                for (path, segments) in current where segments.count > position {
                    var key = segments
                    key[position] = placeholder
                    groups[key, default: []].append(path)
                }
                for members in groups.values {
                    // The paths holding an id here (a literal such as `mine` beside them stays a path of its own).
                    let ids = members.filter { path in
                        current[path].map { $0[position] != placeholder && isIdentifier($0[position]) } ?? false
                    }
                    let templated = members.contains { current[$0]?[position] == placeholder }
                    guard Set(ids.compactMap { current[$0]?[position] }).count + (templated ? 1 : 0) >= 2 else {
                        continue
                    }
                    for path in ids { current[path]?[position] = placeholder }
                    changed = true
                }
            }
        }
        var result: [String: String] = [:]
        for (path, segments) in current {
            var names = Set<String>()
            var parts: [String] = []
            for (index, segment) in segments.enumerated() {
                guard segment == placeholder else {
                    parts.append(segment)
                    continue
                }
                var base = "id"
                if index > 0, segments[index - 1] != placeholder {
                    base = parameterName(after: segments[index - 1].removingPercentEncoding ?? segments[index - 1])
                }
                var name = base
                var counter = 2
                while names.contains(name) {
                    name = "\(base)\(counter)"
                    counter += 1
                }
                names.insert(name)
                parts.append("{\(name)}")
            }
            result[path] = "/" + parts.joined(separator: "/")
        }
        return result
    }

    /// `recipes` → `recipeId`, `categories` → `categoryId`, `user-groups` → `userGroupId`.
    static func parameterName(after segment: String) -> String {
        var words = segment.split(whereSeparator: { !($0.isASCII && ($0.isLetter || $0.isNumber)) }).map(String.init)
        guard var last = words.popLast() else { return "id" }
        if last.hasSuffix("ies"), last.count > 3 {
            last = String(last.dropLast(3)) + "y"
        } else if last.hasSuffix("s"), !last.hasSuffix("ss"), last.count > 1 {
            last.removeLast()
        }
        words.append(last)
        var name = ""
        for (index, word) in words.enumerated() {
            name +=
                index == 0
                ? word.prefix(1).lowercased() + word.dropFirst() : word.prefix(1).uppercased() + word.dropFirst()
        }
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic else { return "id" }
        return name + "Id"
    }
}

extension String {
    /// `not found` → `Not found`.
    fileprivate var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
