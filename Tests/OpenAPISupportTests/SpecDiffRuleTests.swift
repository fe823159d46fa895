import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import JSONShape
import Testing

@testable import OpenAPISupport

/// `openapi diff` beside oasdiff's checks (issue 37, item 4): for each oasdiff rule that concerns a client, one
/// mutation of a real description (Adyen's Management API, `shared/real-collections/adyen/openapi.json`) and the
/// exact changes `openapi diff` must give for it on the operation it targets (place, path, kind, severity and the
/// component the change belongs to), or none where the rule is one apiprobe does not report. The table in
/// `Sources/apiprobe/Documentation.docc/OpenAPI.md` ("oasdiff's checks") is checked against this list, row by row.
// One rule at a time: each reads a large description twice, and the machine has two cores.
@Suite(.hangGuard, .serialized)
struct SpecDiffRuleTests {
    /// One rule of oasdiff's, and what `openapi diff` says of a mutation that breaks it.
    struct Rule: Sendable, CustomStringConvertible {
        var id: String
        /// oasdiff's level: ERR, WARN or INFO.
        var level: String
        var operation: String
        /// Applied to both versions first (a rule about something going away needs it there before).
        var base: (@Sendable (inout Any) throws -> Void)?
        var mutation: @Sendable (inout Any) throws -> Void
        /// `severity [place] path kind {component}` for each change on `operation`; empty: not reported.
        var expected: [String]
        var description: String { id }
        var hasBase: Bool { base != nil }
    }

    static let companies = "/paths/~1companies/get"
    static let merchants = "/paths/~1merchants/post"
    static let webhooks = "/paths/~1merchants~1{merchantId}~1webhooks/post"
    static let list = "/components/schemas/ListCompanyResponse"
    static let create = "/components/schemas/CreateMerchantRequest"
    static let listComponent = "{components/schemas/ListCompanyResponse}"
    static let createComponent = "{components/schemas/CreateMerchantRequest}"

    static let rules: [Rule] = [
        // Paths and operations.
        Rule(
            id: "api-path-removed-without-deprecation", level: "ERR", operation: "GET /companies",
            mutation: { try remove(&$0, "/paths/~1companies") }, expected: ["breaking [] / removed {-}"]),
        Rule(
            id: "api-removed-without-deprecation", level: "ERR", operation: "GET /companies",
            mutation: { try remove(&$0, companies) }, expected: ["breaking [] / removed {-}"]),
        Rule(
            id: "endpoint-added", level: "INFO", operation: "PUT /companies",
            mutation: { try set(&$0, "/paths/~1companies/put", try value($0, companies)) },
            expected: ["info [] / added {-}"]),
        Rule(
            id: "endpoint-deprecated", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/deprecated", true) }, expected: []),
        Rule(
            id: "api-operation-id-removed", level: "INFO", operation: "GET /companies",
            mutation: { try remove(&$0, companies + "/operationId") }, expected: []),
        Rule(
            id: "api-security-removed", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/security", [Any]()) }, expected: []),

        // Request parameters (GET /companies: pageNumber and pageSize, optional integers in the query).
        Rule(
            id: "new-required-request-parameter", level: "ERR", operation: "GET /companies",
            mutation: { try append(&$0, companies + "/parameters", parameter("filter", required: true)) },
            expected: ["breaking [query parameter filter] / added {-}"]),
        Rule(
            id: "new-optional-request-parameter", level: "INFO", operation: "GET /companies",
            mutation: { try append(&$0, companies + "/parameters", parameter("filter", required: false)) },
            expected: ["info [query parameter filter] / added {-}"]),
        Rule(
            id: "request-parameter-removed", level: "WARN", operation: "GET /companies",
            mutation: { try remove(&$0, companies + "/parameters/1") },
            expected: ["warning [query parameter pageSize] / removed {-}"]),
        Rule(
            id: "request-parameter-became-required", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/parameters/0/required", true) },
            expected: ["breaking [query parameter pageNumber] / became-required {-}"]),
        Rule(
            id: "request-parameter-became-optional", level: "INFO", operation: "GET /companies",
            base: { try set(&$0, companies + "/parameters/0/required", true) },
            mutation: { try set(&$0, companies + "/parameters/0/required", false) },
            expected: ["info [query parameter pageNumber] / became-optional {-}"]),
        Rule(
            id: "request-parameter-type-changed", level: "ERR", operation: "GET /companies",
            mutation: {
                try set(&$0, companies + "/parameters/0/schema", ["type": "string"])
            },
            expected: ["breaking [query parameter pageNumber] / type-changed {-}"]),
        Rule(
            id: "request-parameter-type-generalized", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/parameters/0/schema", ["type": "number"]) },
            expected: ["info [query parameter pageNumber] / type-changed {-}"]),
        Rule(
            id: "request-parameter-became-enum", level: "ERR", operation: "GET /companies",
            base: { try append(&$0, companies + "/parameters", parameter("channel", required: false)) },
            mutation: { try set(&$0, companies + "/parameters/2/schema/enum", ["web", "pos"]) },
            expected: ["breaking [query parameter channel] / enum-changed {-}"]),
        Rule(
            id: "request-parameter-enum-value-removed", level: "ERR", operation: "GET /companies",
            base: { try append(&$0, companies + "/parameters", parameter("channel", enum: ["web", "pos", "moto"])) },
            mutation: { try set(&$0, companies + "/parameters/2/schema/enum", ["web", "pos"]) },
            expected: ["breaking [query parameter channel] / enum-changed {-}"]),
        Rule(
            id: "request-parameter-enum-value-added", level: "INFO", operation: "GET /companies",
            base: { try append(&$0, companies + "/parameters", parameter("channel", enum: ["web", "pos"])) },
            mutation: { try set(&$0, companies + "/parameters/2/schema/enum", ["web", "pos", "moto"]) },
            expected: ["info [query parameter channel] / enum-changed {-}"]),
        Rule(
            id: "request-parameter-became-nullable", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/parameters/0/schema/type", ["integer", "null"]) },
            expected: ["info [query parameter pageNumber] / became-nullable {-}"]),
        Rule(
            id: "request-parameter-became-not-nullable", level: "ERR", operation: "GET /companies",
            base: { try set(&$0, companies + "/parameters/0/schema/type", ["integer", "null"]) },
            mutation: { try set(&$0, companies + "/parameters/0/schema/type", "integer") },
            expected: ["breaking [query parameter pageNumber] / became-non-nullable {-}"]),
        Rule(
            id: "request-parameter-max-decreased", level: "ERR", operation: "GET /companies",
            base: { try set(&$0, companies + "/parameters/1/schema/maximum", 100) },
            mutation: { try set(&$0, companies + "/parameters/1/schema/maximum", 50) }, expected: []),

        // Request bodies (POST /merchants: CreateMerchantRequest, `companyId` required, `description` optional).
        Rule(
            id: "request-body-added-required", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/requestBody", body(required: true)) },
            expected: ["breaking [request body] / added {-}"]),
        Rule(
            id: "request-body-added-optional", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/requestBody", body(required: false)) },
            expected: ["info [request body] / added {-}"]),
        Rule(
            id: "request-body-removed", level: "ERR", operation: "POST /merchants",
            mutation: { try remove(&$0, merchants + "/requestBody") },
            expected: ["warning [request body] / removed {-}"]),
        Rule(
            id: "request-body-became-required", level: "ERR", operation: "POST /merchants",
            mutation: { try set(&$0, merchants + "/requestBody/required", true) },
            expected: ["breaking [request body] / became-required {-}"]),
        Rule(
            id: "request-body-became-optional", level: "INFO", operation: "POST /merchants",
            base: { try set(&$0, merchants + "/requestBody/required", true) },
            mutation: { try set(&$0, merchants + "/requestBody/required", false) },
            expected: ["info [request body] / became-optional {-}"]),
        Rule(
            id: "new-required-request-property", level: "ERR", operation: "POST /merchants",
            mutation: {
                try set(&$0, create + "/properties/channel", ["type": "string"])
                try append(&$0, create + "/required", "channel")
            },
            expected: ["breaking [request body] /channel added \(createComponent)"]),
        Rule(
            id: "new-optional-request-property", level: "INFO", operation: "POST /merchants",
            mutation: { try set(&$0, create + "/properties/channel", ["type": "string"]) },
            expected: ["info [request body] /channel added \(createComponent)"]),
        Rule(
            id: "request-property-removed", level: "WARN", operation: "POST /merchants",
            mutation: { try remove(&$0, create + "/properties/description") },
            expected: ["warning [request body] /description removed \(createComponent)"]),
        Rule(
            id: "request-property-became-required", level: "ERR", operation: "POST /merchants",
            mutation: { try append(&$0, create + "/required", "description") },
            expected: ["breaking [request body] /description became-required \(createComponent)"]),
        Rule(
            id: "request-property-became-optional", level: "INFO", operation: "POST /merchants",
            mutation: { try set(&$0, create + "/required", [Any]()) },
            expected: ["info [request body] /companyId became-optional \(createComponent)"]),
        Rule(
            id: "request-property-type-changed", level: "ERR", operation: "POST /merchants",
            mutation: { try set(&$0, create + "/properties/description/type", "integer") },
            expected: ["breaking [request body] /description type-changed \(createComponent)"]),
        Rule(
            id: "request-property-became-nullable", level: "INFO", operation: "POST /merchants",
            mutation: { try set(&$0, create + "/properties/description/type", ["string", "null"]) },
            expected: ["info [request body] /description became-nullable \(createComponent)"]),
        Rule(
            id: "request-property-became-not-nullable", level: "ERR", operation: "POST /merchants",
            base: { try set(&$0, create + "/properties/description/type", ["string", "null"]) },
            mutation: { try set(&$0, create + "/properties/description/type", "string") },
            expected: ["breaking [request body] /description became-non-nullable \(createComponent)"]),
        Rule(
            id: "request-property-became-enum", level: "ERR", operation: "POST /merchants",
            mutation: { try set(&$0, create + "/properties/description/enum", ["a", "b"]) },
            expected: ["breaking [request body] /description enum-changed \(createComponent)"]),
        Rule(
            id: "request-property-enum-value-removed", level: "ERR",
            operation: "POST /merchants/{merchantId}/webhooks",
            mutation: {
                try set(
                    &$0, "/components/schemas/CreateMerchantWebhookRequest/properties/communicationFormat/enum",
                    ["http", "json"])
            },
            expected: [
                "breaking [request body] /communicationFormat enum-changed {components/schemas/CreateMerchantWebhookRequest}"
            ]),
        Rule(
            id: "request-property-enum-value-added", level: "INFO", operation: "POST /merchants/{merchantId}/webhooks",
            mutation: {
                try set(
                    &$0, "/components/schemas/CreateMerchantWebhookRequest/properties/communicationFormat/enum",
                    ["http", "json", "soap", "xml"])
            },
            expected: [
                "info [request body] /communicationFormat enum-changed {components/schemas/CreateMerchantWebhookRequest}"
            ]),
        Rule(
            id: "request-property-max-length-decreased", level: "ERR", operation: "POST /merchants",
            base: { try set(&$0, create + "/properties/description/maxLength", 300) },
            mutation: { try set(&$0, create + "/properties/description/maxLength", 100) }, expected: []),

        // Responses (GET /companies 200: ListCompanyResponse, `itemsTotal` a required integer, `_links` optional).
        Rule(
            id: "response-success-status-removed", level: "ERR", operation: "GET /companies",
            mutation: { try remove(&$0, companies + "/responses/200") },
            expected: ["breaking [response 200] / removed {-}"]),
        Rule(
            id: "response-non-success-status-removed", level: "INFO", operation: "GET /companies",
            mutation: { try remove(&$0, companies + "/responses/400") },
            expected: ["info [response 400] / removed {-}"]),
        Rule(
            id: "response-success-status-added", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/responses/201", try value($0, companies + "/responses/200")) },
            expected: ["info [response 201] / added {-}"]),
        Rule(
            id: "response-non-success-status-added", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, companies + "/responses/418", try value($0, companies + "/responses/400")) },
            expected: ["info [response 418] / added {-}"]),
        Rule(
            id: "response-required-property-removed", level: "ERR", operation: "GET /companies",
            mutation: {
                try remove(&$0, list + "/properties/itemsTotal")
                try set(&$0, list + "/required", ["pagesTotal"])
            },
            expected: ["breaking [response 200] /itemsTotal removed \(listComponent)"]),
        Rule(
            id: "response-optional-property-removed", level: "WARN", operation: "GET /companies",
            mutation: { try remove(&$0, list + "/properties/_links") },
            expected: ["warning [response 200] /_links removed \(listComponent)"]),
        Rule(
            id: "response-required-property-added", level: "INFO", operation: "GET /companies",
            mutation: {
                try set(&$0, list + "/properties/region", ["type": "string"])
                try append(&$0, list + "/required", "region")
            },
            expected: ["info [response 200] /region added \(listComponent)"]),
        Rule(
            id: "response-optional-property-added", level: "INFO", operation: "GET /companies",
            mutation: { try set(&$0, list + "/properties/region", ["type": "string"]) },
            expected: ["info [response 200] /region added \(listComponent)"]),
        Rule(
            id: "response-property-became-optional", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, list + "/required", ["pagesTotal"]) },
            expected: ["breaking [response 200] /itemsTotal became-optional \(listComponent)"]),
        Rule(
            id: "response-property-became-required", level: "INFO", operation: "GET /companies",
            mutation: { try append(&$0, list + "/required", "_links") },
            expected: ["info [response 200] /_links became-required \(listComponent)"]),
        Rule(
            id: "response-property-type-changed", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, list + "/properties/itemsTotal", ["type": "string"]) },
            expected: ["breaking [response 200] /itemsTotal type-changed \(listComponent)"]),
        Rule(
            id: "response-property-type-generalized", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, list + "/properties/itemsTotal", ["type": "number"]) },
            expected: ["breaking [response 200] /itemsTotal type-changed \(listComponent)"]),
        Rule(
            id: "response-property-type-specialized", level: "INFO", operation: "GET /companies",
            base: { try set(&$0, list + "/properties/itemsTotal", ["type": "number"]) },
            mutation: { try set(&$0, list + "/properties/itemsTotal", ["type": "integer"]) },
            expected: ["info [response 200] /itemsTotal type-changed \(listComponent)"]),
        Rule(
            id: "response-property-became-nullable", level: "ERR", operation: "GET /companies",
            mutation: { try set(&$0, list + "/properties/itemsTotal/type", ["integer", "null"]) },
            expected: ["breaking [response 200] /itemsTotal became-nullable \(listComponent)"]),
        Rule(
            id: "response-property-became-not-nullable", level: "INFO", operation: "GET /companies",
            base: { try set(&$0, list + "/properties/itemsTotal/type", ["integer", "null"]) },
            mutation: { try set(&$0, list + "/properties/itemsTotal/type", "integer") },
            expected: ["info [response 200] /itemsTotal became-non-nullable \(listComponent)"]),
        Rule(
            id: "response-property-enum-value-added", level: "WARN", operation: "GET /stores/{storeId}",
            mutation: {
                try set(
                    &$0, "/components/schemas/Store/properties/status/enum", ["active", "closed", "inactive", "paused"])
            },
            expected: ["warning [response 200] /status enum-changed {components/schemas/Store}"]),
        Rule(
            id: "response-property-enum-value-removed", level: "INFO", operation: "GET /stores/{storeId}",
            mutation: { try set(&$0, "/components/schemas/Store/properties/status/enum", ["active", "inactive"]) },
            expected: ["info [response 200] /status enum-changed {components/schemas/Store}"]),
        Rule(
            id: "response-property-max-increased", level: "ERR", operation: "GET /companies",
            base: { try set(&$0, list + "/properties/itemsTotal/maximum", 100) },
            mutation: { try set(&$0, list + "/properties/itemsTotal/maximum", 1000) }, expected: []),
        Rule(
            id: "response-header-added", level: "INFO", operation: "GET /companies",
            mutation: {
                try set(&$0, companies + "/responses/200/headers", ["X-Rate-Limit": ["schema": ["type": "integer"]]])
            }, expected: []),
        // The component a change belongs to is the one whose own definition changed, not the one that reaches it.
        Rule(
            id: "(attribution) a property added to a nested component", level: "-", operation: "GET /companies",
            mutation: {
                try set(&$0, "/components/schemas/PaginationLinks/properties/extra", ["type": "string"])
                try append(&$0, "/components/schemas/PaginationLinks/required", "extra")
            },
            expected: ["info [response 200] /_links/extra added {components/schemas/PaginationLinks}"]),
        Rule(
            id: "(attribution) a property added to the inline part of an allOf", level: "-",
            operation: "GET /companies",
            base: {
                try set(
                    &$0, "/components/schemas/Paging",
                    ["type": "object", "properties": ["itemsTotal": ["type": "integer"]]])
                try set(
                    &$0, list,
                    [
                        "type": "object", "description": "As PayPal writes one (vault_response and its wallet's).",
                        "allOf": [
                            ["$ref": "#/components/schemas/Paging"],
                            ["type": "object", "properties": ["pagesTotal": ["type": "integer"]]],
                        ],
                    ])
            },
            mutation: { try set(&$0, list + "/allOf/1/properties/region", ["type": "string"]) },
            expected: ["info [response 200] /region added \(listComponent)"]),
        Rule(
            id: "(attribution) a reference moved to a new component that adds a property", level: "-",
            operation: "GET /companies",
            mutation: {
                // PayPal's orders description between two commits: `vault` went from `vault_response` to a new
                // `paypal_wallet_vault_response` = allOf [vault_response, {owner_id}]; `owner_id added` was
                // attributed to `vault_response`, which did not change.
                try set(
                    &$0, "/components/schemas/CompanyPage",
                    [
                        "type": "object",
                        "allOf": [
                            ["$ref": "#/components/schemas/ListCompanyResponse"],
                            ["properties": ["region": ["type": "string"]]],
                        ],
                    ])
                try set(
                    &$0, companies + "/responses/200/content/application~1json/schema",
                    ["$ref": "#/components/schemas/CompanyPage"])
            },
            expected: ["info [response 200] /region added {components/schemas/CompanyPage}"]),
        Rule(
            id: "(attribution) a property removed from one alternative of a oneOf", level: "-",
            operation: "POST /terminals/scheduleActions",
            mutation: {
                try remove(&$0, "/components/schemas/ReleaseUpdateDetails/properties/updateAtFirstMaintenanceCall")
            },
            expected: [
                "warning [request body] /actionDetails/updateAtFirstMaintenanceCall removed {components/schemas/ReleaseUpdateDetails}",
                "warning [response 200] /actionDetails/updateAtFirstMaintenanceCall removed {components/schemas/ReleaseUpdateDetails}",
            ]),
    ]

    /// The description unchanged, read once.
    /// The paths the rules change, kept with every component (the rest of the 80 paths only make each of the
    /// hundred readings slower: a third of a second each in a debug build).
    static let paths: Set<String> = [
        "/companies", "/merchants", "/merchants/{merchantId}/webhooks", "/stores/{storeId}",
        "/terminals/scheduleActions",
    ]

    /// The description with only ``paths`` and the component schemas they reach (by `$ref`, through any other
    /// component): the rest makes each reading slower and changes none of the rules' results. Made once.
    static let pruned: Result<Data, any Error> = Result {
        guard let url = description else { throw NoSuchPlace(pointer: "adyen/openapi.json") }
        var document = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        try edit(&document, "/paths") { paths in
            (paths as? [String: Any] ?? [:]).filter { Self.paths.contains($0.key) }
        }
        let schemas = try value(document, "/components/schemas") as? [String: Any] ?? [:]
        var others = try value(document, "/components") as? [String: Any] ?? [:]
        others["schemas"] = nil
        func references(_ value: Any) throws -> Set<String> {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
                .replacingOccurrences(of: "\\/", with: "/")
            return Set(
                text.matches(of: /"\$ref"\s*:\s*"#\/components\/schemas\/([^"]+)"/).map {
                    JSONPointer.unescape(String($0.1))
                })
        }
        var reached = try references(try value(document, "/paths")).union(try references(others))
        var pending = Array(reached)
        while let name = pending.popLast() {
            guard let schema = schemas[name] else { continue }
            for next in try references(schema) where reached.insert(next).inserted { pending.append(next) }
        }
        try edit(&document, "/components/schemas") { _ in schemas.filter { reached.contains($0.key) } }
        // Examples (a fifth of the file) are annotations the diff never reads.
        func withoutExamples(_ value: Any) -> Any {
            if let object = value as? [String: Any] {
                return object.filter { $0.key != "examples" && $0.key != "example" }.mapValues(withoutExamples)
            }
            if let array = value as? [Any] { return array.map(withoutExamples) }
            return value
        }
        return try JSONSerialization.data(withJSONObject: withoutExamples(document))
    }

    /// A fresh copy of ``pruned``, to change.
    static func load(_ url: URL) throws -> Any {
        try JSONSerialization.jsonObject(with: try pruned.get())
    }

    /// The description unchanged, read once.
    static let original: Result<OpenAPISpec, any Error> = Result {
        guard let url = description else { throw NoSuchPlace(pointer: "adyen/openapi.json") }
        return try OpenAPISpec(data: try JSONSerialization.data(withJSONObject: try load(url)), file: "old.json")
    }

    static var description: URL? {
        RealCollections.folder?.appendingPathComponent("adyen/openapi.json")
    }

    @Test(arguments: rules)
    func eachOasdiffRuleGivesExactlyItsChange(_ rule: Rule) async throws {
        guard let url = Self.description, FileManager.default.fileExists(atPath: url.path) else {
            withKnownIssue("Adyen's description is not here: put shared/real-collections beside the checkout") {
                Issue.record("no adyen/openapi.json")
            }
            return
        }
        // Every step on a thread of its own (reading the description takes a debug build a third of a second):
        // Swift's cooperative pool, two threads here, stays free for the other tests.
        let changes = try await onLargeStack {
            var old = try Self.load(url)
            try rule.base?(&old)
            var new = old
            try rule.mutation(&new)
            // The description as it is, read once for every rule that needs no change before.
            let before =
                rule.hasBase
                ? try OpenAPISpec(data: try JSONSerialization.data(withJSONObject: old), file: "old.json")
                : try Self.original.get()
            let after = try OpenAPISpec(data: try JSONSerialization.data(withJSONObject: new), file: "new.json")
            return SpecDiff(from: before, to: after).changes
        }
        let signature = { (change: SpecChange) in
            "\(change.change.severity) [\(change.place)] \(change.change.path.isEmpty ? "/" : change.change.path) "
                + "\(change.change.kind) {\(change.component ?? "-")}"
        }
        let onOperation = changes.filter { $0.operation == rule.operation }.map(signature)
        #expect(onOperation == rule.expected, "\(rule.id): \(changes.map(\.description))")
        // Nothing else: a shared schema's change may reach other operations (at other paths), the same change of
        // the same component each time.
        let projection = { (change: SpecChange) in
            "\(change.change.severity) \(change.change.kind) {\(change.component ?? "-")}"
        }
        let expected = Set(changes.filter { $0.operation == rule.operation }.map(projection))
        let elsewhere = Set(changes.filter { $0.operation != rule.operation }.map(projection))
        #expect(elsewhere.isSubset(of: expected), "\(rule.id): \(elsewhere.sorted())")
    }

    /// The article's table ("oasdiff's checks") says what this list says: the same rules, in the same order, each
    /// with oasdiff's level and what `openapi diff` reports (the first change's severity and kind, or "not
    /// reported").
    @Test func theArticlesTableIsThisList() throws {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/apiprobe/Documentation.docc/OpenAPI.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init)
        let expected = Self.rules.map { rule -> String in
            var summary = "not reported"
            if let first = rule.expected.first {
                let words = first.split(separator: " ")
                let kind = words.count >= 4 ? words[words.count - 2] : ""
                summary = "\(words[0]), `\(kind)`"
            }
            return "| `\(rule.id)` | \(rule.level) | \(summary) |"
        }
        #expect(rows == expected)
        #expect(text.contains("(`SpecDiffRuleTests`, \(Self.rules.count) rows)"))
    }

    // MARK: - Editing a JSON document

    static func tokens(_ pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { JSONPointer.unescape($0) }
    }

    struct NoSuchPlace: Error, CustomStringConvertible {
        var pointer: String
        var description: String { "no \(pointer) in the description" }
    }

    static func value(_ document: Any, _ pointer: String) throws -> Any {
        var current: Any = document
        for token in tokens(pointer) {
            if let object = current as? [String: Any], let next = object[token] {
                current = next
            } else if let array = current as? [Any], let index = Int(token), array.indices.contains(index) {
                current = array[index]
            } else {
                throw NoSuchPlace(pointer: pointer)
            }
        }
        return current
    }

    /// `document` with the value at `pointer` replaced by what `edit` returns (`nil`: removed).
    static func edit(_ document: inout Any, _ pointer: String, _ edit: (Any?) throws -> Any?) throws {
        func go(_ value: Any, _ rest: ArraySlice<String>) throws -> Any? {
            guard let token = rest.first else { return try edit(value) }
            if var object = value as? [String: Any] {
                if rest.count == 1 {
                    object[token] = try edit(object[token])
                } else {
                    guard let child = object[token] else { throw NoSuchPlace(pointer: pointer) }
                    object[token] = try go(child, rest.dropFirst())
                }
                return object
            }
            if var array = value as? [Any], let index = Int(token), array.indices.contains(index) {
                if let changed = try go(array[index], rest.dropFirst()) {
                    array[index] = changed
                } else {
                    array.remove(at: index)
                }
                return array
            }
            throw NoSuchPlace(pointer: pointer)
        }
        document = try go(document, tokens(pointer)[...]) ?? document
    }

    static func set(_ document: inout Any, _ pointer: String, _ value: Any) throws {
        try edit(&document, pointer) { _ in value }
    }

    static func remove(_ document: inout Any, _ pointer: String) throws {
        _ = try value(document, pointer)
        try edit(&document, pointer) { _ in nil }
    }

    static func append(_ document: inout Any, _ pointer: String, _ item: Any) throws {
        try edit(&document, pointer) { (($0 as? [Any]) ?? []) + [item] }
    }

    static func parameter(_ name: String, required: Bool = false, enum values: [String]? = nil) -> [String: Any] {
        var schema: [String: Any] = ["type": "string"]
        if let values { schema["enum"] = values }
        return ["name": name, "in": "query", "required": required, "schema": schema]
    }

    static func body(required: Bool) -> [String: Any] {
        [
            "required": required,
            "content": ["application/json": ["schema": ["type": "object", "properties": ["q": ["type": "string"]]]]],
        ]
    }
}
