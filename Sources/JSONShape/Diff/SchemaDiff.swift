import APIProbeShared
public import Foundation

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
        if a.file != b.file { return (a.file ?? "").utf8.lexicographicallyPrecedes((b.file ?? "").utf8) }
        if a.path != b.path { return a.path.utf8.lexicographicallyPrecedes(b.path.utf8) }
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
    public init(from old: Shape, to new: Shape, usage: UsageManifest? = nil) {
        var changes: [SchemaChange] = []
        Self.compare(old, new, path: "", conformance: false, into: &changes)
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
    /// let sample = try Shape.infer(from: body, options: InferenceOptions(detectsEnums: true))
    /// let problems = SchemaDiff(conformanceOf: sample, to: snapshot.shape)
    /// problems.changes.isEmpty  // the body fits the snapshot
    /// ```
    public init(conformanceOf sample: Shape, to schema: Shape, usage: UsageManifest? = nil) {
        var changes: [SchemaChange] = []
        Self.compare(schema, sample, path: "", conformance: true, into: &changes)
        self.init(changes: changes, usage: usage)
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
        Data(Self.reportTree(changes, extra: []).fileBytes)
    }

    static func reportTree(_ changes: [SchemaChange], extra: [(String, JSONTree)]) -> JSONTree {
        let items: [JSONTree] = changes.map { change in
            var members: [(String, JSONTree)] = [
                ("path", .string(change.path)),
                ("kind", .string(change.kind.rawValue)),
                ("severity", .string(change.severity.rawValue)),
                ("before", change.before.map(JSONTree.string) ?? .null),
                ("after", change.after.map(JSONTree.string) ?? .null),
            ]
            if let file = change.file { members.append(("file", .string(file))) }
            return .object(members)
        }
        let count = { (severity: ChangeSeverity) in JSONTree.number(String(changes.count { $0.severity == severity })) }
        return .object(
            [
                ("changes", .array(items)), ("breaking", count(.breaking)), ("warnings", count(.warning)),
                ("info", count(.info)),
            ] + extra
        )
    }

    /// A JSON report with extra top-level members (lists of file names), for `snapshot check`.
    public func jsonReport(adding lists: [String: [String]]) -> Data {
        let extra = lists.map { ($0.key, JSONTree.array($0.value.map(JSONTree.string))) }
        return Data(Self.reportTree(changes, extra: extra).fileBytes)
    }

    // MARK: Comparison

    private static func compare(
        _ old: Shape,
        _ new: Shape,
        path: String,
        conformance: Bool,
        into changes: inout [SchemaChange]
    ) {
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
                    changes.append(
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
            changes.append(
                SchemaChange(
                    path: path,
                    kind: .becameNullable,
                    severity: .breaking,
                    before: old.types.description,
                    after: new.types.description
                )
            )
        } else if old.types.contains(.null) && !new.types.contains(.null) && !conformance {
            changes.append(
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
                changes.append(
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
                changes.append(
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
                    changes.append(
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
            if oldItems.types.isEmpty && !newItems.types.isEmpty && !conformance {
                // An array that was always empty has items now: nothing a client decoded changed.
                changes.append(
                    SchemaChange(
                        path: path + "/*", kind: .added, severity: .info, before: nil,
                        after: newItems.types.description))
            } else {
                compare(oldItems, newItems, path: path + "/*", conformance: conformance, into: &changes)
            }
        }

        guard old.types.contains(.object) && new.types.contains(.object) else { return }
        switch (old.additionalProperties, new.additionalProperties) {
        case (let oldValue?, let newValue?):
            compare(oldValue, newValue, path: path + "/*", conformance: conformance, into: &changes)
        case (let oldValue?, nil):
            for key in new.properties.keys.sorted() {
                compare(
                    oldValue,
                    new.properties[key] ?? .empty,
                    path: path + "/" + JSONPointer.escape(key),
                    conformance: conformance,
                    into: &changes
                )
            }
        case (nil, let newValue?):
            for key in old.properties.keys.sorted() {
                compare(
                    old.properties[key] ?? .empty,
                    newValue,
                    path: path + "/" + JSONPointer.escape(key),
                    conformance: conformance,
                    into: &changes
                )
            }
        case (nil, nil):
            compareProperties(old, new, path: path, conformance: conformance, into: &changes)
        }
    }

    private static func compareProperties(
        _ old: Shape,
        _ new: Shape,
        path: String,
        conformance: Bool,
        into changes: inout [SchemaChange]
    ) {
        for (key, oldProperty) in old.properties {
            let here = path + "/" + JSONPointer.escape(key)
            let wasRequired = old.required.contains(key)
            guard let newProperty = new.properties[key] else {
                if !conformance || wasRequired {
                    changes.append(
                        SchemaChange(
                            path: here,
                            kind: .removed,
                            severity: .breaking,
                            before: oldProperty.types.description,
                            after: nil
                        )
                    )
                }
                continue
            }
            let isRequired = new.required.contains(key)
            if wasRequired && !isRequired {
                changes.append(
                    SchemaChange(
                        path: here,
                        kind: .becameOptional,
                        severity: .breaking,
                        before: oldProperty.types.description,
                        after: newProperty.types.description
                    )
                )
            } else if !wasRequired && isRequired && !conformance {
                changes.append(
                    SchemaChange(
                        path: here,
                        kind: .becameRequired,
                        severity: .info,
                        before: oldProperty.types.description,
                        after: newProperty.types.description
                    )
                )
            }
            compare(oldProperty, newProperty, path: here, conformance: conformance, into: &changes)
        }
        guard !conformance else { return }
        for (key, newProperty) in new.properties where old.properties[key] == nil {
            changes.append(
                SchemaChange(
                    path: path + "/" + JSONPointer.escape(key),
                    kind: .added,
                    severity: .info,
                    before: nil,
                    after: newProperty.types.description
                )
            )
        }
    }
}
