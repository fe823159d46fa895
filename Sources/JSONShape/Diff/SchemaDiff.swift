import APIProbeShared
public import Foundation
package import HTTPFixtures

/// What kind of change a ``SchemaChange`` is; the raw values are those of apiprobe's JSON output.
public struct ChangeKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A property appeared (`info`).
    public static let added = ChangeKind(rawValue: "added")
    /// A property disappeared (`breaking`).
    public static let removed = ChangeKind(rawValue: "removed")
    /// The value's types changed (`breaking`; `warning` when a value seen only as `null` gained a type; `info`
    /// when the new types only narrow the old ones).
    public static let typeChanged = ChangeKind(rawValue: "type-changed")
    /// The value may now be `null` (`breaking`).
    public static let becameNullable = ChangeKind(rawValue: "became-nullable")
    /// The value is no longer ever `null` (`info`).
    public static let becameNonNullable = ChangeKind(rawValue: "became-non-nullable")
    /// A property that was always present is now sometimes absent (`breaking`).
    public static let becameOptional = ChangeKind(rawValue: "became-optional")
    /// A property that was sometimes absent is now always present (`info`).
    public static let becameRequired = ChangeKind(rawValue: "became-required")
    /// A string format changed (`warning`).
    public static let formatChanged = ChangeKind(rawValue: "format-changed")
    /// An enum gained or lost a value (`warning`).
    public static let enumChanged = ChangeKind(rawValue: "enum-changed")
    /// One side accepts any value (a snapshot that knows nothing: no samples, or `{}`), so nothing can be
    /// compared (`warning`): never read as "no changes".
    public static let unconstrained = ChangeKind(rawValue: "unconstrained")

    public var description: String { rawValue }
}

/// How much a change matters to a client, most severe first.
public struct ChangeSeverity: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A client that decodes the old shape can fail on the new one.
    public static let breaking = ChangeSeverity(rawValue: "breaking")
    /// The values changed in a way a client may notice.
    public static let warning = ChangeSeverity(rawValue: "warning")
    /// Nothing a client relies on changed.
    public static let info = ChangeSeverity(rawValue: "info")

    private var rank: Int {
        switch rawValue {
        case "breaking": return 0
        case "warning": return 1
        case "info": return 2
        default: return 3
        }
    }

    /// Orders by severity, most severe first.
    public static func < (lhs: ChangeSeverity, rhs: ChangeSeverity) -> Bool { lhs.rank < rhs.rank }

    public var description: String { rawValue }
}

/// One difference between two schemas, at the highest path where it happens.
///
/// ```swift
/// change.path      // "/recipes/*/social_rank"
/// change.kind      // .typeChanged
/// change.severity  // .breaking
/// change.before    // "number"
/// change.after     // "string"
/// ```
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// A JSON Pointer with `*` for any array item (or any value of a map).
    public var path: String
    public var kind: ChangeKind
    public var severity: ChangeSeverity
    /// The old types (`string|null`), format, or enum values joined with `|`; `nil` when there was none.
    public var before: String?
    /// The new types, format or enum values; `nil` when there is none.
    public var after: String?
    /// The snapshot file the change was found in, when there are several (`snapshot check`).
    public var file: String?
    /// The definition (an OpenAPI component, a shared schema) the change is inside, when it is inside one: a
    /// change to a definition that many places use is one change, reached from each.
    public var definition: String?
    /// The change's path inside ``definition`` (`/error/param`); `nil` without a definition.
    public var pathInDefinition: String?

    public init(
        path: String,
        kind: ChangeKind,
        severity: ChangeSeverity,
        before: String?,
        after: String?,
        file: String? = nil
    ) {
        self.path = path
        self.kind = kind
        self.severity = severity
        self.before = before
        self.after = after
        self.file = file
    }

    /// `path kind: before → after`, as one line of text output: `/recipes/*/rank added: integer`.
    public var summary: String {
        let shownPath = path.isEmpty ? "/" : path
        if kind == .becameOptional || kind == .becameRequired { return "\(shownPath) \(kind)" }
        if kind == .enumChanged, before == nil || after == nil, let values = before ?? after {
            let list = values.split(separator: "|", omittingEmptySubsequences: false).joined(separator: ", ")
            return "\(shownPath) \(kind): " + (before == nil ? "now one of \(list)" : "no longer a list (was \(list))")
        }
        if kind == .enumChanged, let before, let after {
            // Two full lists on one line hide the difference: say what came and what went.
            let old = before.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let new = after.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let added = new.filter { !old.contains($0) }
            let removed = old.filter { !new.contains($0) }
            var parts: [String] = []
            if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
            if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
            if !parts.isEmpty { return "\(shownPath) \(kind): " + parts.joined(separator: "; ") }
        }
        switch (before, after) {
        case (let b?, let a?): return "\(shownPath) \(kind): \(b) → \(a)"
        case (nil, let a?): return "\(shownPath) \(kind): \(a)"
        case (let b?, nil): return "\(shownPath) \(kind): was \(b)"
        case (nil, nil): return "\(shownPath) \(kind)"
        }
    }

    public var description: String { "\(severity) \(summary)" }

    /// The order of reports: severity, then path, then kind.
    static func isOrderedBefore(_ a: SchemaChange, _ b: SchemaChange) -> Bool {
        if a.severity != b.severity { return a.severity < b.severity }
        if a.file != b.file { return precedesInByteOrder(a.file ?? "", b.file ?? "") }
        if a.path != b.path { return precedesInByteOrder(a.path, b.path) }
        return a.kind.rawValue < b.kind.rawValue
    }
}

/// The changes from one schema to another, judged from a client's side.
///
/// ```swift
/// let diff = SchemaDiff(from: snapshot.shape, to: inferred, usage: manifest)
/// diff.breakingCount   // 1
/// print(String(decoding: diff.jsonReport(), as: UTF8.self))
/// ```
///
/// Severities (see <doc:DriftAndSeverities>): `breaking` for a removed field, a required field become
/// optional, a type changed, a value become nullable; `warning` for a format or enum change and for a field
/// seen only as `null` that gained a type (`null → object|null`: a type learned); `info` for an added field,
/// items that appeared in an array that was always empty, a field become required or non-nullable, and a
/// type that only narrowed. With a usage manifest, a change at a path no model reads is `info`, and one that
/// only takes away a value the models read as optional is `info` (`became-optional`, `became-nullable`) or
/// `warning` (`removed`). Only the
/// highest path of a change is reported, and changes are ordered by severity, then path.
public struct SchemaDiff: Sendable, Hashable {
    /// Every change, ordered by severity then path.
    public var changes: [SchemaChange]

    /// Compares two schemas.
    ///
    /// - Parameters:
    ///   - old: the shape clients were built against (a snapshot).
    ///   - new: the shape seen now.
    ///   - usage: the paths the app's models read; changes elsewhere drop to `info`.
    /// - Complexity: O(*n* log *n*) in the number of properties of both shapes.
    public init(from old: ShapeNode, to new: ShapeNode, usage: UsageManifest? = nil) {
        var changes = Self.rootChanges(old, new)
        changes += Self.changes(from: old, to: new, units: Units())
        self.init(changes: changes, usage: usage)
    }

    /// The changes as they are, ordered; with `usage`, changes at unread paths become `info`, and at a path
    /// every model reads as optional, `became-optional` and `became-nullable` become `info` (the models accept
    /// an absent or `null` value) and `removed` becomes `warning` (they decode, but never get the value).
    public init(changes: [SchemaChange], usage: UsageManifest? = nil) {
        var changes = changes
        if let usage {
            for index in changes.indices where changes[index].severity != .info {
                let change = changes[index]
                if !usage.isRead(change.path) {
                    changes[index].severity = .info
                } else if change.kind == .becameOptional || change.kind == .becameNullable || change.kind == .removed,
                    usage.readsOptionally(change.path)
                {
                    changes[index].severity = change.kind == .removed ? .warning : .info
                }
            }
        }
        self.changes = changes.sorted(by: SchemaChange.isOrderedBefore)
    }

    /// The ways a sample breaks a schema: types or `null` the schema does not allow, required properties
    /// missing, formats or enum values that do not fit. What a schema allows but the sample lacks (an
    /// optional property, a type of a union) is not reported, nor are added properties.
    ///
    /// ```swift
    /// let sample = try ShapeNode.infer(from: body, options: InferenceOptions(detectsEnums: true))
    /// let problems = SchemaDiff(conformanceOf: sample, to: snapshot.shape)
    /// problems.changes.isEmpty  // the body fits the snapshot
    /// ```
    public init(conformanceOf sample: ShapeNode, to schema: ShapeNode, usage: UsageManifest? = nil) {
        self.init(
            changes: Self.changes(from: schema, to: sample, units: Units(conformance: true)), usage: usage)
    }

    /// The diff from `old` to `new` with the units of earlier diffs of the same documents (``Units``).
    ///
    /// The changes are in the order of the walk, not sorted: the caller sorts all the changes it gathers once.
    package init(from old: ShapeNode, to new: ShapeNode, units: Units) {
        changes = Self.rootChanges(old, new) + Self.changes(from: old, to: new, units: units)
    }

    /// A change at the root when one side knows nothing (accepts any value).
    static func rootChanges(_ old: ShapeNode, _ new: ShapeNode) -> [SchemaChange] {
        let before = old.resolved.types
        let after = new.resolved.types
        guard before.isEmpty != after.isEmpty || before.isEmpty else { return [] }
        // A snapshot that accepts anything (no samples, `{}`) says nothing a diff could miss: say so.
        return [
            SchemaChange(
                path: "", kind: .unconstrained, severity: .warning,
                before: before.isEmpty ? "any value" : before.description,
                after: after.isEmpty ? "any value" : after.description)
        ]
    }

    /// The number of breaking changes.
    public var breakingCount: Int { changes.count { $0.severity == .breaking } }
    /// The number of warnings.
    public var warningCount: Int { changes.count { $0.severity == .warning } }
    /// The number of informational changes.
    public var infoCount: Int { changes.count { $0.severity == .info } }
    /// Whether any change is breaking.
    public var hasBreakingChanges: Bool { changes.contains { $0.severity == .breaking } }

    /// The stable JSON report (see <doc:DriftAndSeverities>):
    /// `{"changes": [...], "breaking": 1, "warnings": 0, "info": 0}`, keys sorted, two-space indent, trailing
    /// newline. A change from a snapshot file carries `"file"`.
    public func jsonReport() -> Data {
        Self.reportTree(changes, extra: []).fileData
    }

    static func reportTree(_ changes: [SchemaChange], extra: [(key: String, value: JSONValue)]) -> JSONValue {
        let items: [JSONValue] = changes.map { change in
            var members: [(key: String, value: JSONValue)] = [
                ("path", .string(change.path)),
                ("kind", .string(change.kind.rawValue)),
                ("severity", .string(change.severity.rawValue)),
                ("before", change.before.map(JSONValue.string) ?? .null),
                ("after", change.after.map(JSONValue.string) ?? .null),
            ]
            if let file = change.file { members.append(("file", .string(file))) }
            return .object(members)
        }
        let count = { (severity: ChangeSeverity) in JSONValue.number(String(changes.count { $0.severity == severity }))
        }
        return .object(
            [
                ("changes", .array(items)), ("breaking", count(.breaking)), ("warnings", count(.warning)),
                ("info", count(.info)),
            ] + extra
        )
    }

    /// A JSON report with extra top-level members (lists of file names), for `snapshot check`.
    public func jsonReport(adding lists: [String: [String]]) -> Data {
        jsonReport(adding: lists, extra: [])
    }

    /// A JSON report with extra top-level members: lists of file names, and members of any value.
    package func jsonReport(adding lists: [String: [String]], extra: [(key: String, value: JSONValue)]) -> Data {
        let listed = lists.map { ($0.key, JSONValue.array($0.value.map(JSONValue.string))) }
        return Self.reportTree(changes, extra: listed + extra).fileData
    }

    // MARK: Comparison

    /// The comparison of two graphs of references, cut into units: a unit is what lies between references (a
    /// definition's own keywords on both sides, down to the next reference on either side), compared once, with
    /// its changes (paths relative to it) and the units below it. A diff walks the units from its root, each
    /// once, so a definition that many places reach is compared where it is first reached, and cycles end.
    struct Unit {
        struct Edge {
            var path: String
            var old: ShapeNode
            var oldPlace: ShapeNode.WalkPlace
            var new: ShapeNode
            var newPlace: ShapeNode.WalkPlace
        }

        var changes: [SchemaChange] = []
        var edges: [Edge] = []
    }

    struct UnitKey: Hashable {
        var old: ShapeNode.WalkPlace
        var new: ShapeNode.WalkPlace
    }

    /// The units of the comparisons of one pair of documents, shared by the diffs of all their operations: their
    /// cost grows with the size of the documents, not with how many operations reach each definition.
    package final class Units {
        var compared: [UnitKey: Unit] = [:]
        let conformance: Bool

        package init(conformance: Bool = false) {
            self.conformance = conformance
        }
    }

    /// A unit being compared.
    struct Walk {
        var changes: [SchemaChange] = []
        var edges: [Unit.Edge] = []
        var conformance: Bool
        /// The definition the unit is (the old side's, or the new side's), when it is one.
        var definition: String?

        mutating func append(_ change: SchemaChange) {
            var change = change
            if let definition {
                change.definition = definition
                change.pathInDefinition = change.path
            }
            changes.append(change)
        }
    }

    /// The changes from `old` to `new`, walking their units (reusing those `units` already holds).
    static func changes(from old: ShapeNode, to new: ShapeNode, units: Units) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        var visited = Set<UnitKey>()
        var pending = [
            Unit.Edge(path: "", old: old, oldPlace: .root, new: new, newPlace: .root)
        ]
        while let edge = pending.popLast() {
            let key = UnitKey(old: edge.oldPlace.entering(edge.old), new: edge.newPlace.entering(edge.new))
            let isReference = edge.old.referenceName != nil || edge.new.referenceName != nil
            if isReference, !visited.insert(key).inserted { continue }
            // A unit inside definitions on both sides is the same wherever it is reached; one that starts from an
            // operation's own schema is that operation's.
            let shared = key.old.definitions != nil && key.new.definitions != nil
            let unit: Unit
            if shared, let known = units.compared[key] {
                unit = known
            } else {
                var walk = Walk(conformance: units.conformance)
                // The definition the changes belong to: the new side's when the reference now leads elsewhere (a
                // property that names another component: its changes are that component's, not the one it left).
                walk.definition = edge.new.referenceName ?? edge.old.referenceName
                compareResolved(edge.old.resolved, key.old, edge.new.resolved, key.new, path: "", &walk)
                unit = Unit(changes: walk.changes, edges: walk.edges)
                if shared { units.compared[key] = unit }
            }
            for change in unit.changes {
                var change = change
                change.path = edge.path + change.path
                changes.append(change)
            }
            for next in unit.edges.reversed() {
                var next = next
                next.path = edge.path + next.path
                pending.append(next)
            }
        }
        return changes
    }

    private static func compare(
        _ old: ShapeNode, _ oldPlace: ShapeNode.WalkPlace, _ new: ShapeNode, _ newPlace: ShapeNode.WalkPlace,
        path: String,
        _ walk: inout Walk
    ) {
        if old.referenceName != nil || new.referenceName != nil {
            walk.edges.append(Unit.Edge(path: path, old: old, oldPlace: oldPlace, new: new, newPlace: newPlace))
            return
        }
        compareResolved(old, oldPlace, new, newPlace, path: path, &walk)
    }

    private static func compareResolved(
        _ old: ShapeNode, _ oldPlace: ShapeNode.WalkPlace, _ new: ShapeNode, _ newPlace: ShapeNode.WalkPlace,
        path: String,
        _ walk: inout Walk
    ) {
        let conformance = walk.conformance
        // Nothing known on one side (an array never seen with items, `{}`): nothing to compare.
        guard !old.types.isEmpty, !new.types.isEmpty else { return }
        let oldValues = old.types.subtracting(.null)
        let newValues = new.types.subtracting(.null)
        if oldValues.isEmpty || newValues.isEmpty {
            // One side is only ever `null`: one type change says it all. A field seen only as `null` that
            // now carries a value is a type learned (`warning`): a model that decoded `null` declares it
            // optional already, and decodes the value if its type is right.
            if old.types != new.types {
                let narrowing = new.types.isSubset(ofAccepted: old.types)
                let learned = oldValues.isEmpty
                if !(narrowing && conformance) {
                    walk.append(
                        SchemaChange(
                            path: path,
                            kind: .typeChanged,
                            severity: narrowing ? .info : learned ? .warning : .breaking,
                            before: old.types.description,
                            after: new.types.description
                        )
                    )
                }
            }
            return
        }
        if new.types.contains(.null) && !old.types.contains(.null) {
            walk.append(
                SchemaChange(
                    path: path,
                    kind: .becameNullable,
                    severity: .breaking,
                    before: old.types.description,
                    after: new.types.description
                )
            )
        } else if old.types.contains(.null) && !new.types.contains(.null) && !conformance {
            walk.append(
                SchemaChange(
                    path: path,
                    kind: .becameNonNullable,
                    severity: .info,
                    before: old.types.description,
                    after: new.types.description
                )
            )
        }
        if oldValues != newValues {
            let narrowing = newValues.isSubset(ofAccepted: oldValues)
            if !(narrowing && conformance) {
                walk.append(
                    SchemaChange(
                        path: path,
                        kind: .typeChanged,
                        severity: narrowing ? .info : .breaking,
                        before: oldValues.description,
                        after: newValues.description
                    )
                )
            }
        }

        if old.types.contains(.string) && new.types.contains(.string) {
            if old.format != new.format && !(conformance && old.format == nil) {
                walk.append(
                    SchemaChange(
                        path: path,
                        kind: .formatChanged,
                        severity: .warning,
                        before: old.format?.rawValue,
                        after: new.format?.rawValue
                    )
                )
            }
            if old.enumValues != new.enumValues {
                let report: Bool
                if conformance {
                    if let allowed = old.enumValues {
                        report = !(new.enumValues.map { Set($0).isSubset(of: allowed) } ?? false)
                    } else {
                        report = false
                    }
                } else {
                    report = true
                }
                if report {
                    walk.append(
                        SchemaChange(
                            path: path,
                            kind: .enumChanged,
                            severity: .warning,
                            before: old.enumValues?.joined(separator: "|"),
                            after: new.enumValues?.joined(separator: "|")
                        )
                    )
                }
            }
        }

        if old.types.contains(.array) && new.types.contains(.array) {
            let oldItems = old.items ?? .empty
            let newItems = new.items ?? .empty
            if oldItems.resolved.types.isEmpty && !newItems.resolved.types.isEmpty && !conformance {
                // An array that was always empty has items now: nothing a client decoded changed.
                walk.append(
                    SchemaChange(
                        path: path + "/*", kind: .added, severity: .info, before: nil,
                        after: newItems.resolved.types.description))
            } else {
                compare(oldItems, oldPlace.child("*"), newItems, newPlace.child("*"), path: path + "/*", &walk)
            }
        }

        guard old.types.contains(.object) && new.types.contains(.object) else { return }
        switch (old.additionalProperties, new.additionalProperties) {
        case (let oldValue?, let newValue?):
            compare(oldValue, oldPlace.child("-"), newValue, newPlace.child("-"), path: path + "/*", &walk)
        case (let oldValue?, nil):
            for key in new.properties.keys.sorted() {
                compare(
                    oldValue, oldPlace.child("-"), new.properties[key] ?? .empty, newPlace.child(key),
                    path: path + "/" + JSONPointer.escape(key), &walk)
            }
        case (nil, let newValue?):
            for key in old.properties.keys.sorted() {
                compare(
                    old.properties[key] ?? .empty, oldPlace.child(key), newValue, newPlace.child("-"),
                    path: path + "/" + JSONPointer.escape(key), &walk)
            }
        case (nil, nil):
            compareProperties(old, oldPlace, new, newPlace, path: path, &walk)
        }
    }

    private static func compareProperties(
        _ old: ShapeNode, _ oldPlace: ShapeNode.WalkPlace, _ new: ShapeNode, _ newPlace: ShapeNode.WalkPlace,
        path: String,
        _ walk: inout Walk
    ) {
        let conformance = walk.conformance
        // In the names' order: the first place a definition is reached from, where its changes are reported, is
        // the same in every run.
        for key in old.properties.keys.sorted(by: precedesInByteOrder) {
            guard let oldProperty = old.properties[key] else { continue }
            let here = path + "/" + JSONPointer.escape(key)
            let wasRequired = old.required.contains(key)
            guard let newProperty = new.properties[key] else {
                if !conformance || wasRequired {
                    walk.append(
                        SchemaChange(
                            path: here,
                            kind: .removed,
                            severity: .breaking,
                            before: oldProperty.resolved.types.description,
                            after: nil
                        )
                    )
                }
                continue
            }
            let isRequired = new.required.contains(key)
            if wasRequired && !isRequired {
                walk.append(
                    SchemaChange(
                        path: here,
                        kind: .becameOptional,
                        severity: .breaking,
                        before: oldProperty.resolved.types.description,
                        after: newProperty.resolved.types.description
                    )
                )
            } else if !wasRequired && isRequired && !conformance {
                walk.append(
                    SchemaChange(
                        path: here,
                        kind: .becameRequired,
                        severity: .info,
                        before: oldProperty.resolved.types.description,
                        after: newProperty.resolved.types.description
                    )
                )
            }
            compare(oldProperty, oldPlace.child(key), newProperty, newPlace.child(key), path: here, &walk)
        }
        guard !conformance else { return }
        for key in new.properties.keys.sorted(by: precedesInByteOrder) where old.properties[key] == nil {
            guard let newProperty = new.properties[key] else { continue }
            walk.append(
                SchemaChange(
                    path: path + "/" + JSONPointer.escape(key),
                    kind: .added,
                    severity: .info,
                    before: nil,
                    after: newProperty.resolved.types.description
                )
            )
        }
    }
}
