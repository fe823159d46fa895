import APIProbeShared
package import Foundation
import HTTPFixtures

/// A contract as a Pact file (specification v4): any Pact verifier checks a provider against it, and a Pact Broker
/// takes it unchanged.
///
/// Each interaction is a `Synchronous/HTTP` one: the fixture's request, the status, and an example body of the
/// members the consumer reads, each with a matching rule so that only its type is compared (`integer`, `number`,
/// `type`), arrays by `type` with `min: 0` (each item like the example's one), maps by `values`.
///
/// Pact cannot say everything a contract says, and what it cannot is counted in ``approximations``, never dropped
/// in silence: a member read with `decodeIfPresent` is left out of the example (Pact has no optional member, so
/// it is not checked); a member that may be `null`, or may be of several types, is checked for its example's type
/// only; a member read whatever its type is left out.
package struct PactFile: Sendable {
    /// The file's bytes (sorted keys, two-space indent).
    package var data: Data
    /// What the Pact file says less exactly than the contract, one line each.
    package var approximations: [String]

    package init(_ contract: ConsumerContract) {
        var notes: [String] = []
        let interactions = contract.interactions.map { interaction in
            Self.interaction(interaction, notes: &notes)
        }
        let document = JSONValue.object([
            ("consumer", .object([("name", .string(contract.consumer))])),
            ("interactions", .array(interactions)),
            (
                "metadata",
                .object([
                    (
                        "apiprobe",
                        .object([
                            ("consumerVersion", .string(contract.consumerVersion)),
                            ("version", .string(contract.apiprobeVersion)),
                        ])
                    ),
                    ("pactSpecification", .object([("version", .string("4.0"))])),
                ])
            ),
            ("provider", .object([("name", .string(contract.provider))])),
        ])
        data = document.fileData
        approximations = notes
    }

    /// The file name Pact tools use: `<consumer>-<provider>.json`, made safe.
    package static func fileName(for contract: ConsumerContract) -> String {
        SafePath.fileName("\(contract.consumer)-\(contract.provider)", fallback: "pact") + ".json"
    }

    private static let leftOutRequestHeaders: Set<String> = ["host", "content-length", "connection"]

    private static func interaction(_ interaction: ContractInteraction, notes: inout [String]) -> JSONValue {
        var request: [(key: String, value: JSONValue)] = [("method", .string(interaction.request.method))]
        let components = URLComponents(string: interaction.request.url)
        request.append(("path", .string(components.map { $0.path.isEmpty ? "/" : $0.path } ?? "/")))
        if let items = components?.queryItems, !items.isEmpty {
            var order: [String] = []
            var values: [String: [String]] = [:]
            for item in items {
                if values[item.name] == nil { order.append(item.name) }
                values[item.name, default: []].append(item.value ?? "")
            }
            request.append(("query", .object(order.map { ($0, .array((values[$0] ?? []).map(JSONValue.string))) })))
        }
        var headerOrder: [String] = []
        var headerValues: [String: [String]] = [:]
        for field in interaction.request.headers
        where !leftOutRequestHeaders.contains(field.name.lowercased()) {
            if headerValues[field.name] == nil { headerOrder.append(field.name) }
            headerValues[field.name, default: []].append(field.value)
        }
        if !headerOrder.isEmpty {
            request.append(
                ("headers", .object(headerOrder.map { ($0, .array((headerValues[$0] ?? []).map(JSONValue.string))) })))
        }
        if let body = interaction.request.body {
            let contentType = interaction.request.headers["Content-Type"]
            switch body {
            case .json(let value):
                request.append(
                    ("body", Self.body(value, contentType: contentType ?? "application/json", encoded: false)))
            case .text(let text):
                request.append(
                    ("body", Self.body(.string(text), contentType: contentType ?? "text/plain", encoded: false)))
            case .binary(let data):
                request.append(
                    (
                        "body",
                        Self.body(
                            .string(data.base64EncodedString()),
                            contentType: contentType ?? "application/octet-stream", encoded: true)
                    ))
            }
        }
        var response: [(key: String, value: JSONValue)] = [("status", .number(String(interaction.status)))]
        if let reads = interaction.reads {
            var rules: [(key: String, value: JSONValue)] = []
            let example = Self.example(
                of: reads, at: "$", pointer: "", rules: &rules, notes: &notes, interaction: interaction.name)
            if let example {
                response.append(("body", Self.body(example, contentType: "application/json", encoded: false)))
            }
            if !rules.isEmpty { response.append(("matchingRules", .object([("body", .object(rules))]))) }
        }
        var members: [(key: String, value: JSONValue)] = [
            ("description", .string(interaction.name)),
            ("key", .string(interaction.name)),
            ("pending", .bool(false)),
        ]
        if let state = interaction.providerState {
            members.append(("providerStates", .array([.object([("name", .string(state))])])))
        }
        members.append(("request", .object(request)))
        members.append(("response", .object(response)))
        members.append(("type", .string("Synchronous/HTTP")))
        return .object(members)
    }

    private static func body(_ content: JSONValue, contentType: String, encoded: Bool) -> JSONValue {
        .object([
            ("content", content), ("contentType", .string(contentType)),
            ("encoded", encoded ? .string("base64") : .bool(false)),
        ])
    }

    private static func rule(_ matchers: [(key: String, value: JSONValue)]) -> JSONValue {
        .object([("combine", .string("AND")), ("matchers", .array([.object(matchers)]))])
    }

    /// A leaf's rule: `match`, or `null` too when the consumer takes a `null` there (`"combine": "OR"`).
    private static func leafRule(_ match: String, nullable: Bool) -> JSONValue {
        guard nullable else { return rule([("match", .string(match))]) }
        return .object([
            ("combine", .string("OR")),
            ("matchers", .array([.object([("match", .string(match))]), .object([("match", .string("null"))])])),
        ])
    }

    /// The example value of `schema` (a contract's `reads`, or a part of it), adding the matching rules of it and
    /// of what is below it.
    private static func example(
        of schema: JSONValue, at path: String, pointer: String, rules: inout [(key: String, value: JSONValue)],
        notes: inout [String], interaction: String
    ) -> JSONValue? {
        var types: [String] = []
        switch schema["type"] {
        case .string(let name): types = [name]
        case .array(let names): types = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default: break
        }
        let shown = pointer.isEmpty ? "/" : pointer
        let nullable = types.contains("null")
        types.removeAll { $0 == "null" }
        if nullable, types.count == 1, types[0] == "object" || types[0] == "array" {
            notes.append("\(interaction) \(shown): may be null; the Pact file checks only its example's type")
        }
        if types.count > 1 {
            notes.append(
                "\(interaction) \(shown): one of \(types.joined(separator: ", ")); the Pact file checks \(types[0]) only"
            )
        }
        switch types.first {
        case "object":
            if let values = schema["additionalProperties"] {
                rules.append((path, rule([("match", .string("values"))])))
                let value = example(
                    of: values, at: path + ".*", pointer: pointer + "/*", rules: &rules, notes: &notes,
                    interaction: interaction)
                return .object(value.map { [("key", $0)] } ?? [])
            }
            var required = Set<String>()
            if case .array(let names) = schema["required"] {
                for case .string(let name) in names { required.insert(name) }
            }
            var members: [(key: String, value: JSONValue)] = []
            if case .object(let properties) = schema["properties"] {
                for (name, child) in properties {
                    let childPointer = pointer + "/" + JSONPointer.escape(name)
                    guard required.contains(name) else {
                        notes.append(
                            "\(interaction) \(childPointer): read as optional; Pact has no optional member, left out")
                        continue
                    }
                    if let value = example(
                        of: child, at: path + pactKey(name), pointer: childPointer, rules: &rules, notes: &notes,
                        interaction: interaction)
                    {
                        members.append((name, value))
                    }
                }
            }
            return .object(members)
        case "array":
            rules.append((path, rule([("match", .string("type")), ("min", .number("0"))])))
            guard let items = schema["items"],
                let item = example(
                    of: items, at: path + "[*]", pointer: pointer + "/*", rules: &rules, notes: &notes,
                    interaction: interaction)
            else { return .array([]) }
            return .array([item])
        case "integer":
            rules.append((path, leafRule("integer", nullable: nullable)))
            return exampleValue(schema) ?? .number("1")
        case "number":
            rules.append((path, leafRule("number", nullable: nullable)))
            return exampleValue(schema) ?? .number("1.5")
        case "string":
            rules.append((path, leafRule("type", nullable: nullable)))
            return exampleValue(schema) ?? .string("string")
        case "boolean":
            rules.append((path, leafRule("type", nullable: nullable)))
            return exampleValue(schema) ?? .bool(true)
        default:
            notes.append("\(interaction) \(shown): read whatever its type; Pact cannot say so, left out")
            return nil
        }
    }

    private static func exampleValue(_ schema: JSONValue) -> JSONValue? {
        if case .array(let values) = schema["examples"], let first = values.first, first != .null { return first }
        return nil
    }

    /// A member in a Pact path: `.name`, or `['na.me']` for a name that is not an identifier.
    private static func pactKey(_ name: String) -> String {
        if name.wholeMatch(of: /[A-Za-z_][A-Za-z0-9_]*/) != nil { return "." + name }
        return "['" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            + "']"
    }
}
