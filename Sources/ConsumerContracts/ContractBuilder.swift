import APIProbeShared
import Foundation
package import HTTPFixtures
package import JSONShape

/// Makes a consumer's contract from what it observed: the requests of its fixtures, and the members of the
/// answers that its models read (usage manifests), typed by the shape inferred from the endpoint's samples.
package struct ContractBuilder {
    /// What the export could not put in the contract, one line each (`Stubs/recipes/x.json: …`), counted in the
    /// summary; `--strict` makes them an error.
    package private(set) var notes: [String] = []
    /// The endpoints the last contract was made from (`recipes/search`), with a manifest or without.
    package private(set) var endpointNames: [String] = []
    private let store: FixtureStore
    private let usage: (String) throws(InputError) -> UsageManifest?
    private var readsEverything: Bool

    /// - Parameters:
    ///   - store: the fixtures.
    ///   - usage: the usage manifest of an endpoint (`recipes/search`), `nil` when it has none.
    ///   - readsEverything: an endpoint without a manifest is taken as read whole (every member its samples have,
    ///     required where every sample has it), instead of being left out.
    package init(
        store: FixtureStore, usage: @escaping (String) throws(InputError) -> UsageManifest?,
        readsEverything: Bool = false
    ) {
        self.store = store
        self.usage = usage
        self.readsEverything = readsEverything
    }

    /// This builder, taking an endpoint without a manifest as read whole.
    package func readingEverything() -> ContractBuilder {
        var copy = self
        copy.readsEverything = true
        return copy
    }

    /// The contract of `consumer` at `version` with the provider whose fixtures are in the folder `api`.
    ///
    /// - Throws: ``InputError`` for a fixture or manifest that cannot be read, naming it.
    package mutating func contract(consumer: String, version: String, api: String) throws(InputError)
        -> ConsumerContract
    {
        let shown = FolderDisplayPath(store.directory)
        var interactions: [ContractInteraction] = []
        let endpoints = try store.endpoints(in: api)
        endpointNames = endpoints.map(\.name)
        for endpoint in endpoints {
            let shape = try SchemaSnapshot(samples: endpoint.samples.map { ($0.json, $0.file) }, previous: nil).shape
            let manifest: UsageManifest
            if let read = try usage(endpoint.name) {
                manifest = read
            } else if readsEverything {
                manifest = Self.wholeReading(of: shape)
            } else {
                notes.append(
                    "\(endpoint.name): no usage manifest (\(endpoint.name).usage.json): its "
                        + "\(endpoint.fixtureNames.count) fixture(s) left out")
                continue
            }
            for name in endpoint.fixtureNames {
                let file = shown.path(name.hasSuffix(".json") ? name : name + ".json")
                let exchange = try store.exchange(named: name)
                if let fault = exchange.metadata.fault {
                    notes.append("\(file): fault fixture (\(fault)), not an answer a provider gives: left out")
                    continue
                }
                if exchange.metadata.template {
                    notes.append("\(file): template fixture, its request is not one the app sends: left out")
                    continue
                }
                var reads: JSONValue?
                if (200..<300).contains(exchange.response.status), case .json(let body) = exchange.response.body,
                    !manifest.paths.isEmpty
                {
                    reads = Self.readSchema(of: shape, usage: manifest, example: body)
                }
                interactions.append(
                    ContractInteraction(
                        name: name, providerState: FixtureStore.scenario(ofFixture: name),
                        request: exchange.request, status: exchange.response.status, reads: reads))
            }
        }
        return ConsumerContract(consumer: consumer, consumerVersion: version, provider: api, interactions: interactions)
    }

    /// Notes for usage manifests whose endpoint has no fixture any more (`manifests`: endpoint names such as
    /// `recipes/old`, from the manifests' files): what the app read there is in no contract.
    package mutating func noteManifests(withoutFixtures manifests: [String]) {
        let known = Set(endpointNames)
        for manifest in manifests.sorted() where !known.contains(manifest) {
            notes.append("\(manifest).usage.json: its endpoint has no fixture (gone from the fixtures?): left out")
        }
    }

    // MARK: - What is read, as a JSON Schema

    /// A JSON Schema (2020-12) of the members `usage` reads, typed by `shape`, with the values of `example` as
    /// `examples`: what a provider's answer must have for the consumer to decode it, and nothing it does not read.
    static func readSchema(of shape: ShapeNode, usage: UsageManifest, example: JSONValue?) -> JSONValue {
        var members = schema(of: shape, at: "", usage: usage, example: example, optional: false)
        members.insert(("$schema", .string("https://json-schema.org/draft/2020-12/schema")), at: 0)
        return .object(members)
    }

    private static func schema(
        of shape: ShapeNode, at path: String, usage: UsageManifest, example: JSONValue?, optional: Bool
    ) -> [(key: String, value: JSONValue)] {
        var types = shape.types
        let childKeys = Self.childKeys(of: path, in: usage)
        if types.subtracting(.null).isEmpty {
            // No sample had a value here (an array that was always empty): the manifest says what was read.
            if childKeys.contains("*") { types.insert(.array) } else if !childKeys.isEmpty { types.insert(.object) }
        }
        if types.contains(.integer) && types.contains(.number) { types.remove(.integer) }
        if optional { types.insert(.null) }
        var members: [(key: String, value: JSONValue)] = []
        if types.contains(.array), childKeys.contains("*") {
            let item = schema(
                of: shape.items ?? .empty, at: path + "/*", usage: usage, example: example?.firstItem,
                optional: false)
            members.append(("items", .object(item)))
        }
        if types.contains(.object) {
            if shape.isMap, let values = shape.additionalProperties, !childKeys.isEmpty {
                let value = schema(
                    of: values, at: path + "/*", usage: usage, example: example?.firstMemberValue, optional: false)
                members.append(("additionalProperties", .object(value)))
            } else {
                var names = shape.orderedPropertyNames.filter { childKeys.contains(JSONPointer.escape($0)) }
                let known = Set(names.map(JSONPointer.escape))
                names += childKeys.filter { $0 != "*" && !known.contains($0) }.sorted().map(JSONPointer.unescape)
                var properties: [(key: String, value: JSONValue)] = []
                var required: [String] = []
                for name in names {
                    let childPath = path + "/" + JSONPointer.escape(name)
                    let isOptional = usage.readsOptionally(childPath)
                    let child = schema(
                        of: shape.properties[name] ?? .empty, at: childPath, usage: usage, example: example?[name],
                        optional: isOptional)
                    properties.append((name, .object(child)))
                    if !isOptional { required.append(name) }
                }
                if !properties.isEmpty { members.append(("properties", .object(properties))) }
                if !required.isEmpty { members.append(("required", .array(required.map(JSONValue.string)))) }
            }
        }
        let isLeaf = types.isDisjoint(with: [.object, .array])
        if isLeaf, let example, example != .null, !types.isDisjoint(with: JSONTypes(of: example)) {
            members.append(("examples", .array([example])))
        }
        let names = types.names
        if names.count == 1 {
            members.append(("type", .string(names[0])))
        } else if !names.isEmpty {
            members.append(("type", .array(names.map(JSONValue.string))))
        }
        members.sort { $0.key < $1.key }
        return members
    }

    /// The tokens right below `path` in the manifest's paths (`*` for array items), escaped as in a pointer.
    private static func childKeys(of path: String, in usage: UsageManifest) -> Set<String> {
        let prefix = path + "/"
        var keys = Set<String>()
        for read in usage.paths where read.hasPrefix(prefix) {
            let rest = read.dropFirst(prefix.count)
            keys.insert(String(rest.prefix { $0 != "/" }))
        }
        // A `*` in the manifest under a map: a key the models read from any member.
        return keys
    }

    /// A manifest reading every member of `shape`: optional where some sample lacked it.
    package static func wholeReading(of shape: ShapeNode) -> UsageManifest {
        var paths: [String] = []
        var optional: [String] = []
        func walk(_ node: ShapeNode, _ path: String) {
            if !path.isEmpty { paths.append(path) }
            if let items = node.items { walk(items, path + "/*") }
            if node.isMap, let values = node.additionalProperties {
                walk(values, path + "/*")
                return
            }
            for name in node.orderedPropertyNames {
                guard let child = node.properties[name] else { continue }
                let childPath = path + "/" + JSONPointer.escape(name)
                if !node.required.contains(name) { optional.append(childPath) }
                walk(child, childPath)
            }
        }
        walk(shape, "")
        return UsageManifest(paths: paths, optionalPaths: optional)
    }
}

extension JSONValue {
    fileprivate var firstItem: JSONValue? {
        if case .array(let items) = self { return items.first }
        return nil
    }

    fileprivate var firstMemberValue: JSONValue? {
        if case .object(let members) = self { return members.first?.value }
        return nil
    }
}

extension JSONTypes {
    /// The type of one value (an integer literal is `integer`, and so also a `number`).
    init(of value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .boolean
        case .number(let literal): self = Int(literal) != nil ? [.integer, .number] : .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }
}
