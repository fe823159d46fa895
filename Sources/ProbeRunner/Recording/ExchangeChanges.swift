import Foundation
import HTTPFixtures
import JSONShape

/// A short, readable summary of how a re-recorded exchange differs from its fixture.
enum ExchangeChanges {
    /// Lines such as `status 200 → 503`, `header Retry-After added`, `breaking /recipes/*/social_rank removed`,
    /// `3 values changed`.
    static func summary(from old: Exchange, to new: Exchange) -> [String] {
        var lines: [String] = []
        if old.request.method != new.request.method || old.request.url != new.request.url {
            lines.append("request \(old.request.method) \(old.request.url) → \(new.request.method) \(new.request.url)")
        }
        if old.request.headers != new.request.headers || old.request.body != new.request.body {
            lines.append("request headers or body changed")
        }
        if old.response.status != new.response.status {
            lines.append("status \(old.response.status) → \(new.response.status)")
        }
        lines += headerChanges(from: old.response.headers, to: new.response.headers)
        lines += bodyChanges(from: old.response.body, to: new.response.body)
        if lines.isEmpty, old.metadata.redactions != new.metadata.redactions {
            lines.append("redactions: \(new.metadata.redactions.joined(separator: ", "))")
        }
        return lines
    }

    /// A line per header name (in any case) added, removed, or whose values (all of a repeated one) changed.
    private static func headerChanges(from old: HeaderFields, to new: HeaderFields) -> [String] {
        func byName(_ headers: HeaderFields) -> [String: String] {
            Dictionary(headers.map { ($0.name.lowercased(), $0.name) }, uniquingKeysWith: { first, _ in first })
        }
        let oldNames = byName(old)
        let newNames = byName(new)
        var lines: [String] = []
        for name in Set(oldNames.keys).union(newNames.keys).sorted() {
            switch (oldNames[name], newNames[name]) {
            case (nil, let added?): lines.append("header \(added) added")
            case (let removed?, nil): lines.append("header \(removed) removed")
            case (_, let after?) where old.values(for: name) != new.values(for: name):
                lines.append("header \(after) changed")
            default: break
            }
        }
        return lines
    }

    private static func bodyChanges(from old: FixtureBody?, to new: FixtureBody?) -> [String] {
        guard old != new else { return [] }
        switch (old, new) {
        case (.json(let before)?, .json(let after)?):
            var lines: [String] = []
            let options = InferenceOptions()
            if let oldShape = try? ShapeNode.infer(from: before.serialized(), options: options),
                let newShape = try? ShapeNode.infer(from: after.serialized(), options: options)
            {
                lines += SchemaDiff(from: oldShape, to: newShape).changes.map(\.description)
            }
            let changed = changedValues(before, after)
            if changed > 0 { lines.append("\(changed) value\(changed == 1 ? "" : "s") changed") }
            if lines.isEmpty { lines.append("body changed") }
            return lines
        default:
            return ["body \(describe(old)) → \(describe(new))"]
        }
    }

    /// How many values at the same place differ between two documents; places only on one side are
    /// counted by the schema diff, not here.
    static func changedValues(_ old: JSONValue, _ new: JSONValue) -> Int {
        switch (old, new) {
        case (.object(let a), .object(let b)):
            let newMembers = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
            var count = 0
            for member in a {
                if let other = newMembers[member.key] { count += changedValues(member.value, other) }
            }
            return count
        case (.array(let a), .array(let b)):
            return zip(a, b).reduce(0) { $0 + changedValues($1.0, $1.1) }
        default:
            return old == new ? 0 : 1
        }
    }

    private static func describe(_ body: FixtureBody?) -> String {
        switch body {
        case nil: return "empty"
        case .json(let value)?: return "JSON (\(value.serialized().count) bytes)"
        case .text(let text)?: return "text (\(text.utf8.count) bytes)"
        case .binary(let data)?: return "binary (\(data.count) bytes)"
        }
    }
}
