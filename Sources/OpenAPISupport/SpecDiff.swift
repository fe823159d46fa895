import APIProbeShared
package import Foundation
import HTTPFixtures
package import JSONShape

/// One change between two versions of a spec: a ``SchemaChange`` with the operation it is in and where in that
/// operation (`response 200`, `request body`, `query parameter page`, or `""` for the operation itself).
package struct SpecChange: Sendable, Hashable, CustomStringConvertible {
    /// `GET /repos/{owner}/{repo}`, as the new spec writes it (the old one for a removed operation).
    package var operation: String
    /// `response 200`, `request body`, `query parameter page`, or `""`.
    package var place: String
    package var change: SchemaChange
    /// The shared schema the change came through (`components/schemas/charge`), or `nil` for a change that is
    /// the operation's own.
    package var component: String?

    package var description: String {
        "\(change.severity) \(operation)\(place.isEmpty ? "" : " \(place)"): \(change.summary)"
    }
}

/// What changed between two versions of a spec, judged from a client's side.
///
/// - A removed operation or success status is breaking; a removed error status, and an added operation or status,
///   is info.
/// - A response body: as ``SchemaDiff`` judges drift (a required field removed, a field retyped, made optional or
///   nullable is breaking; an optional field removed, an enum that gained values and a changed format are
///   warnings; additions are info).
/// - A request (parameters and body), where the client is the sender: a new required parameter or body field,
///   one that became required, a narrowed type, a value that can no longer be `null`, or an enum that lost values
///   is breaking; a removed parameter or field and a changed format are warnings; the rest is info.
///
/// The DocC article's table ("oasdiff's checks") maps oasdiff's rules onto these, each with its test.
///
/// ```swift
/// let diff = SpecDiff(from: try OpenAPISpec(contentsOf: old), to: try OpenAPISpec(contentsOf: new))
/// diff.hasBreakingChanges
/// ```
package struct SpecDiff: Sendable, Hashable {
    package var changes: [SpecChange]

    package init(from old: OpenAPISpec, to new: OpenAPISpec) {
        var changes: [SpecChange] = []
        // The comparisons of the two documents' definitions, made once for all operations.
        let units = SchemaDiff.Units()
        let names = ComponentNames(old: old, new: new)
        let newByKey = Dictionary(new.operations.map { (Self.key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let oldKeys = Set(old.operations.map(Self.key))
        for before in old.operations {
            guard let after = newByKey[Self.key(before)] else {
                changes.append(
                    SpecChange(
                        operation: before.name, place: "",
                        change: SchemaChange(
                            path: "", kind: .removed, severity: .breaking, before: "operation", after: nil)))
                continue
            }
            changes += Self.compare(before, after, names: names, units: units)
        }
        for after in new.operations where !oldKeys.contains(Self.key(after)) {
            changes.append(
                SpecChange(
                    operation: after.name, place: "",
                    change: SchemaChange(path: "", kind: .added, severity: .info, before: nil, after: "operation")))
        }
        // Indices are sorted, not the changes (a large description has a hundred thousand of them to move), and
        // by the rank of their operation and place, sorted once, before their paths.
        // Spelled out with its types: as one ternary in a closure it took the type checker 0.6 s (issue 25).
        func precedes(_ a: OperationPlace, _ b: OperationPlace) -> Bool {
            if a.operation != b.operation { return precedesInByteOrder(a.operation, b.operation) }
            return a.place < b.place
        }
        let places: Set<OperationPlace> = Set(
            changes.map { (change: SpecChange) -> OperationPlace in
                OperationPlace(operation: change.operation, place: change.place)
            })
        let groups: [OperationPlace] = places.sorted(by: precedes)
        var rank: [OperationPlace: Int] = [:]
        for (offset, group) in groups.enumerated() { rank[group] = offset }
        let keys: [(severity: ChangeSeverity, group: Int)] = changes.map { (change: SpecChange) in
            (change.change.severity, rank[OperationPlace(operation: change.operation, place: change.place)] ?? 0)
        }
        let order = changes.withUnsafeBufferPointer { changes in
            changes.indices.sorted { i, j in
                if keys[i].severity != keys[j].severity { return keys[i].severity < keys[j].severity }
                if keys[i].group != keys[j].group { return keys[i].group < keys[j].group }
                if changes[i].change.path != changes[j].change.path {
                    return precedesInByteOrder(changes[i].change.path, changes[j].change.path)
                }
                return changes[i].change.kind.rawValue < changes[j].change.kind.rawValue
            }
        }
        self.changes = order.map { changes[$0] }
    }

    package var hasBreakingChanges: Bool { changes.contains { $0.change.severity == .breaking } }

    private struct OperationPlace: Hashable {
        var operation: String
        var place: String
    }

    /// A change to a shared schema, once, with every operation it reaches.
    package struct ComponentChange: Sendable, Hashable {
        /// `components/schemas/charge`.
        package var component: String
        /// The change, its path inside the component.
        package var change: SchemaChange
        /// `GET /v1/charges response 200`, each operation and place the change reaches, sorted.
        package var reaches: [String]
        /// The number of operations among ``reaches``.
        package var operationCount: Int
    }

    /// The changes to shared schemas, each once (most severe first, then by component and path), for a reader:
    /// a change to the shared `error` schema is one entry reaching 275 operations, not 275 lines.
    package var componentChanges: [ComponentChange] {
        struct Key: Hashable {
            var component: String
            var path: String
            var kind: ChangeKind
            var severity: ChangeSeverity
            var before: String?
            var after: String?
        }
        // Operations and places are numbered once; a group keeps the numbers of those it reaches.
        var places: [OperationPlace: Int] = [:]
        var placeNames: [String] = []
        var operationNumbers: [String: Int] = [:]
        var groups: [Key: (change: SchemaChange, reaches: Set<Int>, operations: Set<Int>)] = [:]
        var order: [Key] = []
        for entry in changes {
            guard let component = entry.component, let path = entry.change.pathInDefinition else { continue }
            let key = Key(
                component: component, path: path, kind: entry.change.kind, severity: entry.change.severity,
                before: entry.change.before, after: entry.change.after)
            let place = OperationPlace(operation: entry.operation, place: entry.place)
            let placeNumber: Int
            if let known = places[place] {
                placeNumber = known
            } else {
                placeNumber = placeNames.count
                places[place] = placeNumber
                placeNames.append(entry.place.isEmpty ? entry.operation : "\(entry.operation) \(entry.place)")
            }
            let operationNumber: Int
            if let known = operationNumbers[entry.operation] {
                operationNumber = known
            } else {
                operationNumber = operationNumbers.count
                operationNumbers[entry.operation] = operationNumber
            }
            if groups[key] == nil {
                var change = entry.change
                change.path = path
                change.definition = nil
                change.pathInDefinition = nil
                order.append(key)
                groups[key] = (change, [], [])
            }
            groups[key]?.reaches.insert(placeNumber)
            groups[key]?.operations.insert(operationNumber)
        }
        return order.compactMap { key in
            groups[key].map {
                ComponentChange(
                    component: key.component, change: $0.change,
                    reaches: $0.reaches.map { placeNames[$0] }.sorted(by: precedesInByteOrder),
                    operationCount: $0.operations.count)
            }
        }.sorted {
            if $0.change.severity != $1.change.severity { return $0.change.severity < $1.change.severity }
            if $0.component != $1.component { return precedesInByteOrder($0.component, $1.component) }
            if $0.change.path != $1.change.path { return precedesInByteOrder($0.change.path, $1.change.path) }
            return $0.change.kind.rawValue < $1.change.kind.rawValue
        }
    }

    /// The `schema diff` JSON report with `operation` (and `place`) on each change: keys sorted, two-space indent,
    /// trailing newline.
    package func jsonReport() -> Data {
        let items: [JSONValue] = changes.map {
            .object([
                ("operation", .string($0.operation)), ("place", .string($0.place)), ("path", .string($0.change.path)),
                ("kind", .string($0.change.kind.rawValue)), ("severity", .string($0.change.severity.rawValue)),
                ("before", $0.change.before.map(JSONValue.string) ?? .null),
                ("after", $0.change.after.map(JSONValue.string) ?? .null),
                ("component", $0.component.map(JSONValue.string) ?? .null),
                (
                    "pathInComponent",
                    $0.component == nil ? .null : $0.change.pathInDefinition.map(JSONValue.string) ?? .null
                ),
            ])
        }
        let count = { (severity: ChangeSeverity) in
            JSONValue.number(String(changes.count { $0.change.severity == severity }))
        }
        let report = JSONValue.object([
            ("changes", .array(items)), ("breaking", count(.breaking)), ("warnings", count(.warning)),
            ("info", count(.info)),
        ])
        return report.serialized(pretty: true, sortedKeys: true) + Data("\n".utf8)
    }

    /// An operation's identity across versions: the method and the path with parameter names blanked.
    static func key(_ operation: SpecOperation) -> String {
        let segments = OpenAPISpec.segments(operation.path).map { $0.hasPrefix("{") && $0.hasSuffix("}") ? "{}" : $0 }
        return operation.method + " /" + segments.joined(separator: "/")
    }

    /// The names of definitions as ``componentName(_:path:old:new:)`` gives them, each worked out once.
    final class ComponentNames {
        let old: OpenAPISpec
        let new: OpenAPISpec
        private var known: [String: String] = [:]
        private var combined: [String: [String: String]] = [:]

        init(old: OpenAPISpec, new: OpenAPISpec) {
            self.old = old
            self.new = new
        }

        func name(of definition: String, path: String?) -> String {
            if let name = known[definition] { return name }
            // Only a union's name depends on the path (on its first step).
            guard definition.utf8.contains(where: { $0 == UInt8(ascii: "|") || $0 == UInt8(ascii: "&") }) else {
                let name = SpecDiff.componentName(definition, path: path, old: old, new: new)
                known[definition] = name
                return name
            }
            let first = path.flatMap { JSONPointer.tokens(of: $0)?.first } ?? ""
            if let name = combined[definition]?[first] { return name }
            let name = SpecDiff.componentName(definition, path: path, old: old, new: new)
            combined[definition, default: [:]][first] = name
            return name
        }
    }

    /// A definition's name as a reader finds it in the description: `components/schemas/NAME` for a schema
    /// component. A change inside the union of several (`string|subscription_schedule`, an expandable field) is
    /// the change of the one part whose schema has the property it starts at; when no single part has it, the
    /// union is named by its first parts (`anyOf card, source, … (5 schemas)`).
    static func componentName(_ name: String, path: String?, old: OpenAPISpec, new: OpenAPISpec) -> String {
        func component(_ name: String) -> String? {
            let pointer = "/components/schemas/" + JSONPointer.escape(name)
            return old.root.value(at: pointer) != nil || new.root.value(at: pointer) != nil
                ? "components/schemas/" + name : nil
        }
        let separator: Character = name.contains("|") ? "|" : "&"
        guard name.contains("|") || name.contains("&") else { return component(name) ?? name }
        let parts = name.split(separator: separator).map(String.init).filter { component($0) != nil }
        let first = path.flatMap { JSONPointer.tokens(of: $0)?.first }
        let owners = parts.filter { part in
            guard let first else { return false }
            let pointer = "/components/schemas/\(JSONPointer.escape(part))/properties/\(JSONPointer.escape(first))"
            return old.root.value(at: pointer) != nil || new.root.value(at: pointer) != nil
        }
        if owners.count == 1 || parts.count == 1, let only = owners.first ?? parts.first, let named = component(only) {
            return named
        }
        let all = name.split(separator: separator).map(String.init)
        let shown = all.prefix(3).joined(separator: ", ") + (all.count > 3 ? ", …" : "")
        return "\(separator == "|" ? "anyOf" : "allOf") \(shown) (\(all.count) schemas)"
    }

    private static func compare(
        _ old: SpecOperation, _ new: SpecOperation, names: ComponentNames, units: SchemaDiff.Units
    ) -> [SpecChange] {
        var changes: [SpecChange] = []
        func add(_ place: String, _ change: SchemaChange) {
            changes.append(
                SpecChange(
                    operation: new.name, place: place, change: change,
                    component: change.definition.map { names.name(of: $0, path: change.pathInDefinition) }))
        }
        // Responses.
        for response in old.responses {
            guard let after = new.responses.first(where: { $0.status == response.status }) else {
                // A success the client relied on is gone; an error it handled no longer comes, which breaks
                // nothing (oasdiff's response-success-status-removed, error; -non-success-, info).
                add(
                    "response \(response.status)",
                    SchemaChange(
                        path: "", kind: .removed, severity: response.isSuccess ? .breaking : .info, before: "status",
                        after: nil))
                continue
            }
            if let before = response.shape, let now = after.shape {
                for change in responseChanges(from: before, to: now, units: units) {
                    add("response \(response.status)", change)
                }
            }
        }
        for response in new.responses where !old.responses.contains(where: { $0.status == response.status }) {
            add(
                "response \(response.status)",
                SchemaChange(path: "", kind: .added, severity: .info, before: nil, after: "status"))
        }
        // Parameters (path parameters are matched by position, so only query, header and cookie by name). A header
        // parameter OpenAPI ignores (Content-Type, Accept, Authorization) is not one: the check ignores it too.
        let named = { (operation: SpecOperation) in
            operation.parameters.filter {
                $0.location != "path" && !($0.location == "header" && RequestRule.ignores(headerParameter: $0.name))
            }
        }
        for parameter in named(old) {
            let place = "\(parameter.location) parameter \(parameter.name)"
            guard
                let after = named(new).first(where: { $0.location == parameter.location && $0.name == parameter.name })
            else {
                add(place, SchemaChange(path: "", kind: .removed, severity: .warning, before: "parameter", after: nil))
                continue
            }
            if !parameter.isRequired && after.isRequired {
                add(
                    place,
                    SchemaChange(
                        path: "", kind: .becameRequired, severity: .breaking, before: "optional", after: "required"))
            } else if parameter.isRequired && !after.isRequired {
                // The client may now leave it out: nothing it sends breaks, but a server that relied on it should
                // know (oasdiff's request-parameter-became-optional, info).
                add(
                    place,
                    SchemaChange(
                        path: "", kind: .becameOptional, severity: .info, before: "required", after: "optional"))
            }
            for change in requestChanges(from: parameter.shape, to: after.shape, units: units) { add(place, change) }
        }
        for parameter in named(new)
        where !named(old).contains(where: { $0.location == parameter.location && $0.name == parameter.name }) {
            add(
                "\(parameter.location) parameter \(parameter.name)",
                SchemaChange(
                    path: "", kind: .added, severity: parameter.isRequired ? .breaking : .info, before: nil,
                    after: parameter.isRequired ? "required parameter" : "optional parameter"))
        }
        // Request body.
        switch (old.requestBody, new.requestBody) {
        case (let before?, let after?):
            if !before.isRequired && after.isRequired {
                add(
                    "request body",
                    SchemaChange(
                        path: "", kind: .becameRequired, severity: .breaking, before: "optional", after: "required"))
            } else if before.isRequired && !after.isRequired {
                add(
                    "request body",
                    SchemaChange(
                        path: "", kind: .becameOptional, severity: .info, before: "required", after: "optional"))
            }
            for change in requestChanges(from: before.shape, to: after.shape, units: units) {
                add("request body", change)
            }
        case (nil, let after?):
            add(
                "request body",
                SchemaChange(
                    path: "", kind: .added, severity: after.isRequired ? .breaking : .info, before: nil,
                    after: "request body"))
        case (_?, nil):
            add(
                "request body",
                SchemaChange(path: "", kind: .removed, severity: .warning, before: "request body", after: nil))
        case (nil, nil): break
        }
        return changes
    }

    /// Changes to a schema the client receives, as ``SchemaDiff`` judges drift, and as oasdiff's response rules do
    /// where the two differ: a property removed that was optional is a warning (the client could not count on it);
    /// an enum that gained values is a warning (a value the client does not know may come), one that only lost
    /// values or became a list is info.
    static func responseChanges(from old: ShapeNode, to new: ShapeNode, units: SchemaDiff.Units) -> [SchemaChange] {
        SchemaDiff(from: old, to: new, units: units).changes.map { change in
            var change = change
            switch change.kind {
            case .removed where !change.path.isEmpty && !isRequired(change.path, in: old):
                change.severity = .warning
            case .enumChanged:
                let (added, _) = enumDifference(change)
                change.severity = (added.map { !$0.isEmpty } ?? true) ? .warning : .info
            default:
                break
            }
            return change
        }
    }

    /// Changes to a schema the client sends, judged from the sender's side: a new required member, one that became
    /// required, a narrowed type, a value that can no longer be `null`, an enum that lost values or became one:
    /// breaking; a removed member and a changed format: warnings; a widened type (`integer` → `number`) and the rest:
    /// info (oasdiff's request rules).
    static func requestChanges(from old: ShapeNode, to new: ShapeNode, units: SchemaDiff.Units) -> [SchemaChange] {
        SchemaDiff(from: old, to: new, units: units).changes.map { change in
            var change = change
            switch change.kind {
            case .added:
                change.severity = isRequired(change.path, in: new) ? .breaking : .info
            case .removed, .formatChanged:
                change.severity = .warning
            case .enumChanged:
                let (_, removed) = enumDifference(change)
                change.severity = (removed.map { !$0.isEmpty } ?? true) ? .breaking : .info
            case .typeChanged:
                change.severity = isWidening(from: change.before, to: change.after) ? .info : .breaking
            case .becameRequired, .becameNonNullable:
                change.severity = .breaking
            default:
                change.severity = .info
            }
            return change
        }
    }

    /// The values an enum change added and removed; `nil` for "every value" (no list on that side: a list that
    /// appeared removed every other value, one that went away added them).
    static func enumDifference(_ change: SchemaChange) -> (added: [String]?, removed: [String]?) {
        let old = change.before.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        let new = change.after.map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
        switch (old, new) {
        case (let old?, let new?): return (new.filter { !old.contains($0) }, old.filter { !new.contains($0) })
        case (nil, _?): return ([], nil)
        case (_?, nil): return (nil, [])
        case (nil, nil): return ([], [])
        }
    }

    /// Whether every type of `before` is one of `after`'s (`integer` one of `number`): `integer` → `number`,
    /// `string` → `string|integer`.
    static func isWidening(from before: String?, to after: String?) -> Bool {
        guard let before, let after else { return false }
        let old = before.split(separator: "|").map(String.init)
        let new = Set(after.split(separator: "|").map(String.init))
        return old.allSatisfy { new.contains($0) || ($0 == "integer" && new.contains("number")) }
    }

    /// Whether the property at `path` (no `*` steps into maps) is required by its parent in `shape`.
    static func isRequired(_ path: String, in shape: ShapeNode) -> Bool {
        guard var tokens = JSONPointer.tokens(of: path), let last = tokens.popLast() else { return false }
        var current = shape.resolved
        for token in tokens {
            current = current.resolved
            if token == "*", let items = current.items {
                current = items
            } else if let next = current.properties[token] {
                current = next
            } else {
                return false
            }
        }
        return current.resolved.required.contains(last)
    }
}
