import APIProbeShared
public import Foundation
import HTTPFixtures
public import JSONShape

/// One change between two versions of a spec: a ``SchemaChange`` with the operation it is in and where in that
/// operation (`response 200`, `request body`, `query parameter page`, or `""` for the operation itself).
public struct SpecChange: Sendable, Hashable, CustomStringConvertible {
    /// `GET /repos/{owner}/{repo}`, as the new spec writes it (the old one for a removed operation).
    public var operation: String
    /// `response 200`, `request body`, `query parameter page`, or `""`.
    public var place: String
    public var change: SchemaChange

    public var description: String {
        "\(change.severity) \(operation)\(place.isEmpty ? "" : " \(place)"): \(change.summary)"
    }
}

/// What changed between two versions of a spec, judged from a client's side.
///
/// - A removed operation or response status is breaking; an added one is info.
/// - A response body: as ``SchemaDiff`` judges drift (a field removed, retyped, made optional or nullable is
///   breaking; an enum that changed is a warning; additions are info).
/// - A request (parameters and body), where the client is the sender: a new required parameter or body field,
///   one that became required, a changed type or a value that can no longer be `null` is breaking; a removed
///   parameter or field and a changed enum or format are warnings; the rest is info.
///
/// ```swift
/// let diff = SpecDiff(from: try OpenAPISpec(contentsOf: old), to: try OpenAPISpec(contentsOf: new))
/// diff.hasBreakingChanges
/// ```
public struct SpecDiff: Sendable, Hashable {
    public var changes: [SpecChange]

    public init(from old: OpenAPISpec, to new: OpenAPISpec) {
        var changes: [SpecChange] = []
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
            changes += Self.compare(before, after)
        }
        for after in new.operations where !oldKeys.contains(Self.key(after)) {
            changes.append(
                SpecChange(
                    operation: after.name, place: "",
                    change: SchemaChange(path: "", kind: .added, severity: .info, before: nil, after: "operation")))
        }
        self.changes = changes.sorted {
            if $0.change.severity != $1.change.severity { return $0.change.severity < $1.change.severity }
            if $0.operation != $1.operation { return $0.operation.utf8.lexicographicallyPrecedes($1.operation.utf8) }
            if $0.place != $1.place { return $0.place < $1.place }
            if $0.change.path != $1.change.path {
                return $0.change.path.utf8.lexicographicallyPrecedes($1.change.path.utf8)
            }
            return $0.change.kind.rawValue < $1.change.kind.rawValue
        }
    }

    public var hasBreakingChanges: Bool { changes.contains { $0.change.severity == .breaking } }

    /// The `schema diff` JSON report with `operation` (and `place`) on each change: keys sorted, two-space indent,
    /// trailing newline.
    public func jsonReport() -> Data {
        let items: [JSONValue] = changes.map {
            .object([
                ("operation", .string($0.operation)), ("place", .string($0.place)), ("path", .string($0.change.path)),
                ("kind", .string($0.change.kind.rawValue)), ("severity", .string($0.change.severity.rawValue)),
                ("before", $0.change.before.map(JSONValue.string) ?? .null),
                ("after", $0.change.after.map(JSONValue.string) ?? .null),
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

    private static func compare(_ old: SpecOperation, _ new: SpecOperation) -> [SpecChange] {
        var changes: [SpecChange] = []
        func add(_ place: String, _ change: SchemaChange) {
            changes.append(SpecChange(operation: new.name, place: place, change: change))
        }
        // Responses.
        for response in old.responses {
            guard let after = new.responses.first(where: { $0.status == response.status }) else {
                add(
                    "response \(response.status)",
                    SchemaChange(path: "", kind: .removed, severity: .breaking, before: "status", after: nil))
                continue
            }
            if let before = response.shape, let now = after.shape {
                for change in SchemaDiff(from: before, to: now).changes { add("response \(response.status)", change) }
            }
        }
        for response in new.responses where !old.responses.contains(where: { $0.status == response.status }) {
            add(
                "response \(response.status)",
                SchemaChange(path: "", kind: .added, severity: .info, before: nil, after: "status"))
        }
        // Parameters (path parameters are matched by position, so only query, header and cookie by name).
        let named = { (operation: SpecOperation) in operation.parameters.filter { $0.location != "path" } }
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
            }
            for change in requestChanges(from: parameter.shape, to: after.shape) { add(place, change) }
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
            }
            for change in requestChanges(from: before.shape, to: after.shape) { add("request body", change) }
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

    /// Changes to a schema the client sends, judged from the sender's side.
    static func requestChanges(from old: Shape, to new: Shape) -> [SchemaChange] {
        SchemaDiff(from: old, to: new).changes.map { change in
            var change = change
            switch change.kind {
            case .added:
                change.severity = isRequired(change.path, in: new) ? .breaking : .info
            case .removed, .enumChanged, .formatChanged:
                change.severity = .warning
            case .becameRequired, .becameNonNullable, .typeChanged:
                change.severity = .breaking
            default:
                change.severity = .info
            }
            return change
        }
    }

    /// Whether the property at `path` (no `*` steps into maps) is required by its parent in `shape`.
    static func isRequired(_ path: String, in shape: Shape) -> Bool {
        guard var tokens = JSONPointer.tokens(of: path), let last = tokens.popLast() else { return false }
        var current = shape
        for token in tokens {
            if token == "*", let items = current.items {
                current = items
            } else if let next = current.properties[token] {
                current = next
            } else {
                return false
            }
        }
        return current.required.contains(last)
    }
}
