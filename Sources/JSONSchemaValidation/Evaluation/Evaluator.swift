import APIProbeShared
import Foundation
import HTTPFixtures

/// What in-place keywords evaluated of one instance, for `unevaluatedProperties` and `unevaluatedItems`. Plain
/// values only, so that making and dropping one costs nothing; what does not fit is in the evaluator's ``Evaluator``
/// overflow sets.
struct Evaluated {
    /// The first 64 members evaluated, as bits of their index in the instance object (the same object throughout:
    /// in-place keywords evaluate the instance itself).
    var properties: UInt64 = 0
    var allProperties = false
    /// Items `0..<itemsPrefix` were evaluated (`prefixItems`).
    var itemsPrefix = 0
    var allItems = false
    /// The evaluator's overflow sets of this value (members from the 64th on, items `contains` matched); -1 for
    /// none. Each value has its own: a merge copies the sets' contents.
    var overflow = -1
}

/// For one node and one object of up to 64 members: each member's index in the node's `properties`, found by
/// `required` and read by `properties` (one lookup for both keywords). A byte per member, the index plus one (0:
/// not a property).
struct MemberPlan {
    private var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)

    @inline(__always)
    mutating func note(member: Int, property: Int) {
        withUnsafeMutableBytes(of: &bytes) { $0[member] = UInt8(property + 1) }
    }

    @inline(__always)
    func property(of member: Int) -> Int? {
        let byte = withUnsafeBytes(of: bytes) { $0[member] }
        return byte == 0 ? nil : Int(byte) - 1
    }
}

/// One validation of one instance against a compiled schema. With `collectsErrors` false it answers yes or no and
/// stops at the first failure; with it true it goes on and records every ``ValidationError``.
struct Evaluator {
    /// Evaluation levels (subschemas in a chain, through references) before validation stops with a limit error.
    static let maximumDepth = 2_000

    let schema: CompiledSchema
    let collectsErrors: Bool
    var errors: [ValidationError] = []
    var limit: ValidationLimitError?
    private let nodes: [CompiledNode]
    private let usesDynamicScope: Bool
    private var instancePath: [String] = []
    private var keywordPath: [String] = []
    private var dynamicScope: [Int] = []
    private var depth = 0
    /// The sets of ``Evaluated`` values beyond their bits.
    private var overflow: [(members: Set<Int>, items: Set<Int>)] = []

    init(schema: CompiledSchema, collectsErrors: Bool) {
        self.schema = schema
        self.collectsErrors = collectsErrors
        nodes = schema.nodes
        usesDynamicScope = schema.usesDynamicScope
    }

    // MARK: Nodes

    mutating func evaluate(_ start: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?) -> Bool {
        var number = start
        // A node that is only a `$ref` is passed through, each counting one level as if evaluated (the reporting
        // path, which names the `$ref`s in its locations, and the dynamic scope, which they may enter, take them).
        var skipped = 0
        if !collectsErrors, !usesDynamicScope, nodes[number].forward >= 0 {
            guard limit == nil else { return false }
            while nodes[number].forward >= 0 {
                skipped += 1
                if depth + skipped > Self.maximumDepth {
                    return evaluate(number, instance, &evaluated, skipped: skipped - 1)
                }
                number = nodes[number].forward
            }
        }
        return evaluate(number, instance, &evaluated, skipped: skipped)
    }

    @inline(__always)
    private mutating func evaluate(
        _ number: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?, skipped: Int
    ) -> Bool {
        depth += skipped
        defer { depth -= skipped }
        switch nodes[number].kind {
        case .alwaysValid: return true
        case .alwaysInvalid:
            if collectsErrors {
                record(
                    number, keyword: nil,
                    "expected no value here (the schema is false), found \(Self.describe(instance))")
            }
            return false
        case .keywords: break
        }
        guard limit == nil else { return false }
        if !collectsErrors, !usesDynamicScope, let plan = nodes[number].objectPlan, depth < Self.maximumDepth {
            depth += 1
            defer { depth -= 1 }
            if let verdict = objectIsValid(plan.pointer, instance, &evaluated) { return verdict }
        }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth {
            limit = ValidationLimitError(
                instanceLocation: pointer(instancePath), absoluteKeywordLocation: nodes[number].absoluteLocation,
                message: "evaluation went \(Self.maximumDepth) subschemas deep (a reference cycle that never "
                    + "reaches a value?)")
            return false
        }
        let resource = nodes[number].resource
        let entersResource = usesDynamicScope && dynamicScope.last != resource
        if entersResource { dynamicScope.append(resource) }
        defer { if entersResource { dynamicScope.removeLast() } }

        var local: Evaluated? = evaluated != nil || nodes[number].readsEvaluated ? Evaluated() : nil
        var valid = true
        var plan: MemberPlan?
        for keyword in nodes[number].keywords {
            if case .nullable = keyword {
                if case .null = instance { break }
                continue
            }
            if !check(keyword, of: number, instance, &local, &plan) {
                valid = false
                if !collectsErrors || limit != nil { return false }
            }
        }
        if valid, let local { merge(local, into: &evaluated) }
        return valid
    }

    /// The fast path's verdict on a member or item: a leaf by its assertions, anything else by `evaluate`.
    @inline(__always)
    private mutating func childIsValid(_ number: Int, _ instance: JSONValue) -> Bool {
        if nodes[number].isLeaf, depth < Self.maximumDepth { return leafIsValid(number, instance) }
        var none: Evaluated?
        return evaluate(number, instance, &none)
    }

    /// The fast path's verdict on a node with an ``ObjectPlan`` (its level counted by the caller): what the
    /// keywords one by one would answer, in their order (the assertions, then each keyword that evaluates members,
    /// member by member); `nil` for an object of more than 64 members, which takes the keywords one by one.
    private mutating func objectIsValid(
        _ plan: UnsafePointer<ObjectPlan>, _ instance: JSONValue, _ evaluated: inout Evaluated?
    ) -> Bool? {
        guard
            Self.instance(
                instance, isOneOf: plan.pointee.types, integralLiteral: plan.pointee.integerNeedsIntegralLiteral)
        else { return false }
        // Every other keyword passes anything but an object.
        guard case .object(let members) = instance else { return true }
        guard members.count <= 64 else { return nil }
        if members.count > plan.pointee.maxProperties || members.count < plan.pointee.minProperties { return false }
        return members.withUnsafeBufferPointer { members -> Bool in
            // Each member's property: one look-up for `required` and `properties`.
            var found = MemberPlan()
            var present: UInt64 = 0
            let table = plan.pointee.properties?.value
            if let table {
                var hint = 0
                for index in members.indices {
                    guard let position = table.names.index(of: members[index].key, hint: hint) else { continue }
                    present |= 1 << UInt64(position)
                    hint = position + 1
                    found.note(member: index, property: position)
                }
            }
            if let required = plan.pointee.required?.value, present & required.propertyMask != required.propertyMask {
                return false
            }
            var local: Evaluated? = evaluated != nil ? Evaluated() : nil
            if let table {
                for index in members.indices {
                    guard let position = found.property(of: index) else { continue }
                    noteMember(index, &local)
                    if !childIsValid(table.nodes.numbers[position], members[index].value) { return false }
                }
            }
            // `additionalProperties`, then `unevaluatedProperties` (which has nothing left when the first is
            // there): the members `properties` does not name.
            var allEvaluated = false
            for keyword in 0..<2 {
                let rest = keyword == 0 ? plan.pointee.additional : plan.pointee.unevaluated
                guard rest >= 0 else { continue }
                if !allEvaluated, nodes[rest].kind != .alwaysValid {
                    for index in members.indices where found.property(of: index) == nil {
                        if !childIsValid(rest, members[index].value) { return false }
                    }
                }
                allEvaluated = true
                local?.allProperties = true
            }
            if let local { merge(local, into: &evaluated) }
            return true
        }
    }

    /// The fast path's verdict on a node whose keywords are all assertions on the instance itself: what `evaluate`
    /// answers, without the levels, the dynamic scope and the annotations that only subschemas need (the caller
    /// makes sure one more level stays within the limit).
    private mutating func leafIsValid(_ number: Int, _ instance: JSONValue) -> Bool {
        if let plan = nodes[number].leafPlan { return Self.accepts(plan.pointer, instance) }
        if case .alwaysInvalid = nodes[number].kind { return false }
        var plan: MemberPlan?
        for keyword in nodes[number].keywords {
            switch keyword {
            case .nullable:
                if case .null = instance { return true }
            case .type(let types, let integerNeedsIntegralLiteral):
                if !Self.instance(instance, isOneOf: types, integralLiteral: integerNeedsIntegralLiteral) {
                    return false
                }
            case .maxLength(let length):
                guard case .string(let text) = instance, text.utf8.count > length else { continue }
                var none: Evaluated?
                if !check(keyword, of: number, instance, &none, &plan) { return false }
            case .minimum(let bound):
                guard case .number(let literal) = instance else { continue }
                if bound.compare(instance: literal) < 0 { return false }
            case .maximum(let bound):
                guard case .number(let literal) = instance else { continue }
                if bound.compare(instance: literal) > 0 { return false }
            case .pattern(let held):
                guard case .string(let text) = instance else { continue }
                if let matched = held.with({ $0.simple?.matches(text) }) {
                    if !matched { return false }
                } else {
                    var none: Evaluated?
                    if !check(keyword, of: number, instance, &none, &plan) { return false }
                }
            case .format(let held, let known):
                guard known, case .string(let text) = instance else {
                    var none: Evaluated?
                    if known && !check(keyword, of: number, instance, &none, &plan) { return false }
                    continue
                }
                if held.with({ FormatChecker.isValid(text, format: $0.value) }) == false { return false }
            case .enumeration(let allowed):
                if !Self.fits(allowed, instance) { return false }
            default:
                var none: Evaluated?
                if !check(keyword, of: number, instance, &none, &plan) { return false }
            }
        }
        return true
    }

    // MARK: Evaluated members and items

    /// Adds `other` to `evaluated` (when there is one).
    private mutating func merge(_ other: Evaluated, into evaluated: inout Evaluated?) {
        guard evaluated != nil else { return }
        if other.allProperties {
            evaluated!.allProperties = true
        } else if !evaluated!.allProperties {
            evaluated!.properties |= other.properties
        }
        if other.allItems { evaluated!.allItems = true }
        evaluated!.itemsPrefix = max(evaluated!.itemsPrefix, other.itemsPrefix)
        guard other.overflow >= 0 else { return }
        let slot = overflowSlot(&evaluated!)
        let (members, items) = overflow[other.overflow]
        if !evaluated!.allProperties { overflow[slot].members.formUnion(members) }
        overflow[slot].items.formUnion(items)
    }

    private mutating func overflowSlot(_ evaluated: inout Evaluated) -> Int {
        if evaluated.overflow < 0 {
            evaluated.overflow = overflow.count
            overflow.append(([], []))
        }
        return evaluated.overflow
    }

    /// Notes member `index` of the instance as evaluated.
    @inline(__always)
    private mutating func noteMember(_ index: Int, _ evaluated: inout Evaluated?) {
        guard evaluated != nil else { return }
        if index < 64 {
            evaluated!.properties |= 1 << UInt64(index)
        } else {
            overflow[overflowSlot(&evaluated!)].members.insert(index)
        }
    }

    @inline(__always)
    private func isEvaluated(member index: Int, _ evaluated: Evaluated?) -> Bool {
        guard let evaluated else { return false }
        if index < 64 { return evaluated.properties & (1 << UInt64(index)) != 0 }
        return evaluated.overflow >= 0 && overflow[evaluated.overflow].members.contains(index)
    }

    private mutating func noteItem(_ index: Int, _ evaluated: inout Evaluated?) {
        guard evaluated != nil else { return }
        overflow[overflowSlot(&evaluated!)].items.insert(index)
    }

    private func isEvaluated(item index: Int, _ evaluated: Evaluated) -> Bool {
        evaluated.overflow >= 0 && overflow[evaluated.overflow].items.contains(index)
    }

    /// Evaluates a subschema at a member or item of the instance. The tokens of the paths are made only when errors
    /// are collected.
    @inline(__always)
    private mutating func evaluate(
        _ number: Int, _ instance: JSONValue, at token: @autoclosure () -> String, via keyword: String,
        _ second: @autoclosure () -> String? = nil
    ) -> Bool {
        var none: Evaluated?
        guard collectsErrors else {
            if nodes[number].isLeaf, depth < Self.maximumDepth { return leafIsValid(number, instance) }
            return evaluate(number, instance, &none)
        }
        instancePath.append(token())
        keywordPath.append(keyword)
        let extra = second()
        if let extra { keywordPath.append(extra) }
        let valid = evaluate(number, instance, &none)
        instancePath.removeLast()
        keywordPath.removeLast(extra == nil ? 1 : 2)
        return valid
    }

    /// Evaluates a subschema in place (the same instance), merging its annotations.
    @inline(__always)
    private mutating func evaluateInPlace(
        _ number: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?, via keyword: String,
        _ second: @autoclosure () -> String? = nil
    ) -> Bool {
        guard collectsErrors else { return evaluate(number, instance, &evaluated) }
        keywordPath.append(keyword)
        let extra = second()
        if let extra { keywordPath.append(extra) }
        let valid = evaluate(number, instance, &evaluated)
        keywordPath.removeLast(extra == nil ? 1 : 2)
        return valid
    }

    // MARK: Keywords

    /// One keyword's verdict on `instance`, its errors recorded when they are collected.
    ///
    /// - Parameter plan: the members' indices in the node's `properties`, when `required` looked them up there,
    ///   for `properties` to read.
    // swift-format-ignore: FunctionLength
    private mutating func check(
        _ keyword: CompiledKeyword, of node: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?,
        _ plan: inout MemberPlan?
    ) -> Bool {
        switch keyword {
        case .nullable:
            return true

        case .type(let types, let integerNeedsIntegralLiteral):
            if Self.instance(instance, isOneOf: types, integralLiteral: integerNeedsIntegralLiteral) { return true }
            return fail(node, keyword, "expected \(types.names), found \(Self.describe(instance))")

        case .enumeration(let allowed):
            if Self.fits(allowed, instance) { return true }
            guard collectsErrors else { return false }
            let values = allowed.value.values.object.value
            let shown = values.prefix(8).map(\.compactText).joined(separator: ", ")
            return fail(
                node, keyword,
                "expected one of \(shown)\(values.count > 8 ? ", …" : ""), found \(Self.describe(instance))")

        case .constant(let held):
            if held.with({ InstanceEquality.equal($0.value, instance) }) { return true }
            return fail(node, keyword, "expected \(held.object.value.compactText), found \(Self.describe(instance))")

        case .multipleOf(let step):
            guard case .number(let literal) = instance else { return true }
            if Self.isMultiple(literal, of: step) { return true }
            return fail(node, keyword, "expected a multiple of \(step.literal), found \(literal)")

        case .maximum(let bound):
            guard case .number(let literal) = instance, bound.compare(instance: literal) > 0 else { return true }
            return fail(node, keyword, "expected a number at most \(bound.literal), found \(literal)")
        case .exclusiveMaximum(let bound):
            guard case .number(let literal) = instance, bound.compare(instance: literal) >= 0 else { return true }
            return fail(node, keyword, "expected a number less than \(bound.literal), found \(literal)")
        case .minimum(let bound):
            guard case .number(let literal) = instance, bound.compare(instance: literal) < 0 else { return true }
            return fail(node, keyword, "expected a number at least \(bound.literal), found \(literal)")
        case .exclusiveMinimum(let bound):
            guard case .number(let literal) = instance, bound.compare(instance: literal) <= 0 else { return true }
            return fail(node, keyword, "expected a number greater than \(bound.literal), found \(literal)")

        case .maxLength(let length):
            guard case .string(let text) = instance else { return true }
            // Length is in code points (RFC 8259 characters), not grapheme clusters; ASCII is one byte each.
            if text.utf8.count <= length { return true }
            let count = text.unicodeScalars.count
            if count <= length { return true }
            return fail(node, keyword, "expected at most \(length) characters, found \(count)")
        case .minLength(let length):
            guard case .string(let text) = instance else { return true }
            // A code point takes at most four bytes.
            if (text.utf8.count + 3) / 4 >= length { return true }
            let count = text.unicodeScalars.count
            if count >= length { return true }
            return fail(node, keyword, "expected at least \(length) characters, found \(count)")

        case .pattern(let held):
            guard case .string(let text) = instance else { return true }
            let simple = held.with { $0.simple?.matches(text) }
            switch simple ?? match(held.object, text, node: node, keyword: keyword) {
            case true?: return true
            case false?:
                return fail(
                    node, keyword,
                    "expected a string matching /\(held.object.pattern)/, found \(Self.describe(instance))")
            case nil: return false
            }

        case .content(let held):
            guard case .string(let text) = instance else { return true }
            let (encoding, mediaType) = held.object.value
            var bytes = Data(text.utf8)
            if encoding == "base64" {
                guard let decoded = Data(base64Encoded: text) else {
                    return fail(node, keyword, "expected base64 text, found \(Self.describe(instance))")
                }
                bytes = decoded
            }
            if mediaType == "application/json", (try? JSONValue(parsing: bytes)) == nil {
                return fail(node, keyword, "expected a JSON document, found \(Self.describe(instance))")
            }
            return true

        case .format(let format, let known):
            guard known else { return true }
            return checkFormat(format, node: node, keyword: keyword, instance)

        case .maxItems(let count):
            guard case .array(let items) = instance, items.count > count else { return true }
            return fail(node, keyword, "expected at most \(count) items, found \(items.count)")
        case .minItems(let count):
            guard case .array(let items) = instance, items.count < count else { return true }
            return fail(node, keyword, "expected at least \(count) items, found \(items.count)")
        case .uniqueItems:
            guard case .array(let items) = instance, let (first, second) = Self.firstDuplicate(items) else {
                return true
            }
            return fail(node, keyword, "expected unique items, found items \(first) and \(second) equal")
        case .maxProperties(let count):
            guard case .object(let members) = instance, members.count > count else { return true }
            return fail(node, keyword, "expected at most \(count) properties, found \(members.count)")
        case .minProperties(let count):
            guard case .object(let members) = instance, members.count < count else { return true }
            return fail(node, keyword, "expected at least \(count) properties, found \(members.count)")

        case .required(let held):
            guard case .object(let members) = instance else { return true }
            // Which names the members have, as bits (a table of more than 64 names is searched name by name).
            let required = held.value
            let (count, found) = { () -> (Int, UInt64) in
                if let properties = required.properties?.value {
                    // Each member's property, noted for `properties` (of up to 64 members); then the required ones
                    // among them.
                    let planned = members.count <= 64
                    var noted = MemberPlan()
                    var present: UInt64 = 0
                    members.withUnsafeBufferPointer { members in
                        var hint = 0
                        for index in members.indices {
                            guard let position = properties.names.index(of: members[index].key, hint: hint) else {
                                continue
                            }
                            present |= 1 << UInt64(position)
                            hint = position + 1
                            if planned { noted.note(member: index, property: position) }
                        }
                    }
                    if planned { plan = noted }
                    if present & required.propertyMask == required.propertyMask {
                        return (
                            required.names.count,
                            required.names.count == 64 ? ~0 : (1 << UInt64(required.names.count)) - 1
                        )
                    }
                    var found: UInt64 = 0
                    for (position, property) in required.propertyIndices!.numbers.enumerated()
                    where present & (1 << UInt64(property)) != 0 {
                        found |= 1 << UInt64(position)
                    }
                    return (required.names.count, found)
                }
                let names = required.names
                guard names.count <= 64 else { return (names.count, 0) }
                var found: UInt64 = 0
                members.withUnsafeBufferPointer { members in
                    var hint = 0
                    for index in members.indices {
                        guard let position = names.index(of: members[index].key, hint: hint) else { continue }
                        found |= 1 << UInt64(position)
                        hint = position + 1
                    }
                }
                return (names.count, found)
            }()
            if count <= 64 {
                if found == (count == 64 ? ~0 : (1 << UInt64(count)) - 1) { return true }
                if !collectsErrors { return false }
            }
            let names = required.names
            var valid = true
            for position in required.written.numbers {
                let present =
                    names.count <= 64
                    ? found & (1 << UInt64(position)) != 0
                    : members.contains(where: { names.index(of: $0.key, hint: position) == position })
                if present { continue }
                valid = false
                if !collectsErrors { return false }
                let name = names.name(at: position)
                fail(node, keyword, "required property \"\(name)\" is missing", missing: name)
            }
            return valid
        case .dependentRequired(let held, _):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, required) in held.object.value where members.contains(where: { $0.key == name }) {
                for other in required where !members.contains(where: { $0.key.utf8.elementsEqual(other.utf8) }) {
                    valid = false
                    if !collectsErrors { return false }
                    fail(
                        node, keyword, "property \"\(other)\" is missing, and \"\(name)\" requires it",
                        missing: other)
                }
            }
            return valid

        case .properties(let held):
            guard case .object(let members) = instance else { return true }
            let planned = plan
            let table = held.value
            return members.withUnsafeBufferPointer { members in
                var valid = true
                var hint = 0
                for index in members.indices {
                    let found: Int
                    if let planned {
                        // `required` looked this member up already.
                        guard let property = planned.property(of: index) else { continue }
                        found = property
                    } else {
                        guard let position = table.names.index(of: members[index].key, hint: hint) else { continue }
                        found = position
                        hint = found + 1
                    }
                    noteMember(index, &evaluated)
                    let name = members[index].key
                    if !evaluate(table.nodes.numbers[found], members[index].value, at: name, via: "properties", name) {
                        valid = false
                        if !collectsErrors { return false }
                    }
                }
                return valid
            }
        case .patternProperties(let held):
            guard case .object(let members) = instance else { return true }
            let patterns = held.object.value
            var valid = true
            for index in members.indices {
                let name = members[index].key
                for (matcher, number) in patterns {
                    guard let matched = match(matcher, name, node: node, keyword: keyword) else { return false }
                    guard matched else { continue }
                    noteMember(index, &evaluated)
                    if !evaluate(number, members[index].value, at: name, via: "patternProperties", matcher.pattern) {
                        valid = false
                        if !collectsErrors { return false }
                    }
                }
            }
            return valid
        case .additionalProperties(let held):
            guard case .object(let members) = instance else { return true }
            // nil: stopped early (a pattern's limit, or the first failure when errors are not collected).
            let additional = held.value
            let verdict = { () -> Bool? in
                let number = additional.node
                if case .alwaysValid = nodes[number].kind, additional.patterns == nil { return true }
                let patterns = additional.patterns?.object.value ?? []
                var valid = true
                var hint = 0
                members: for index in members.indices {
                    let name = members[index].key
                    if let named = additional.named, let found = named.value.names.index(of: name, hint: hint) {
                        hint = found + 1
                        continue
                    }
                    for matcher in patterns {
                        guard let matched = match(matcher, name, node: node, keyword: keyword) else { return nil }
                        if matched { continue members }
                    }
                    let value = members[index].value
                    if case .alwaysInvalid = nodes[number].kind {
                        valid = false
                        if !collectsErrors { return nil }
                        fail(
                            node, keyword, "property \"\(name)\" is not declared (additionalProperties is false)",
                            at: name)
                    } else if !evaluate(number, value, at: name, via: "additionalProperties") {
                        valid = false
                        if !collectsErrors { return nil }
                    }
                }
                return valid
            }()
            guard let verdict else { return false }
            evaluated?.allProperties = true
            return verdict
        case .propertyNames(let number):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, _) in members where !evaluate(number, .string(name), at: name, via: "propertyNames") {
                valid = false
                if !collectsErrors { return false }
            }
            return valid
        case .dependentSchemas(let held, let keywordName):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, number) in held.object.value where members.contains(where: { $0.key == name }) {
                if !evaluateInPlace(number, instance, &evaluated, via: keywordName.text, name) {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            return valid

        case .prefixItems(let list, let keywordName):
            guard case .array(let items) = instance else { return true }
            let numbers = list.numbers
            var valid = true
            for (index, item) in items.prefix(numbers.count).enumerated() {
                if !evaluate(numbers[index], item, at: String(index), via: keywordName.text, String(index)) {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            if evaluated != nil {
                evaluated!.itemsPrefix = max(evaluated!.itemsPrefix, min(items.count, numbers.count))
            }
            return valid
        case .items(let node32, let start32, let keywordName):
            let number = Int(node32)
            let start = Int(start32)
            guard case .array(let items) = instance, items.count > start else { return true }
            var valid = true
            if case .alwaysInvalid = nodes[number].kind {
                return fail(
                    node, keyword,
                    "expected at most \(start) items (\(keywordName.text) is false past them), found \(items.count)")
            }
            valid = items.withUnsafeBufferPointer { items in
                var valid = true
                for index in start..<items.count
                where !evaluate(number, items[index], at: String(index), via: keywordName.text) {
                    valid = false
                    if !collectsErrors { return false }
                }
                return valid
            }
            if !valid && !collectsErrors { return false }
            evaluated?.allItems = true
            return valid
        case .contains(let held):
            guard case .array(let items) = instance else { return true }
            let (number, minimum, maximum, reportsEvaluated) = held.object.value
            var matched = 0
            var saved = errors.count
            for (index, item) in items.enumerated() {
                var none: Evaluated?
                if collectsErrors { instancePath.append(String(index)) }
                let fits = evaluate(number, item, &none)
                if collectsErrors { instancePath.removeLast() }
                if limit != nil { return false }
                if fits {
                    matched += 1
                    if reportsEvaluated { noteItem(index, &evaluated) }
                } else if !collectsErrors, maximum == nil, evaluated == nil, matched >= minimum {
                    break
                }
                if !collectsErrors, maximum == nil, evaluated == nil, matched >= minimum { break }
            }
            // The items that do not match are not errors of their own: only the count is.
            if errors.count > saved { errors.removeSubrange(saved...) }
            saved = 0
            if matched < minimum {
                return fail(
                    node, keyword,
                    "expected at least \(minimum) item\(minimum == 1 ? "" : "s") matching contains, found \(matched)")
            }
            if let maximum, matched > maximum {
                return fail(node, keyword, "expected at most \(maximum) items matching contains, found \(matched)")
            }
            return true

        case .allOf(let list):
            var valid = true
            for (index, number) in list.numbers.enumerated()
            where !evaluateInPlace(number, instance, &evaluated, via: "allOf", String(index)) {
                valid = false
                if !collectsErrors { return false }
            }
            return valid
        case .anyOf(let list):
            return checkAlternatives(list.numbers, keyword: keyword, of: node, instance, &evaluated, exactlyOne: false)
        case .oneOf(let list):
            return checkAlternatives(list.numbers, keyword: keyword, of: node, instance, &evaluated, exactlyOne: true)
        case .not(let number):
            let saved = errors.count
            var none: Evaluated?
            if collectsErrors { keywordPath.append("not") }
            let matched = evaluate(number, instance, &none)
            if collectsErrors { keywordPath.removeLast() }
            if errors.count > saved { errors.removeSubrange(saved...) }
            if limit != nil { return false }
            if !matched { return true }
            return fail(
                node, keyword,
                "expected a value that does not fit the schema under not, found \(Self.describe(instance))")
        case .conditional(let condition32, let then32, let otherwise32):
            let condition = Int(condition32)
            let then = then32 < 0 ? nil : Int(then32)
            let otherwise = otherwise32 < 0 ? nil : Int(otherwise32)
            let saved = errors.count
            var conditionEvaluated: Evaluated? = evaluated != nil ? Evaluated() : nil
            if collectsErrors { keywordPath.append("if") }
            let holds = evaluate(condition, instance, &conditionEvaluated)
            if collectsErrors { keywordPath.removeLast() }
            if errors.count > saved { errors.removeSubrange(saved...) }
            if limit != nil { return false }
            if holds, let conditionEvaluated { merge(conditionEvaluated, into: &evaluated) }
            if holds, let then { return evaluateInPlace(then, instance, &evaluated, via: "then") }
            if !holds, let otherwise { return evaluateInPlace(otherwise, instance, &evaluated, via: "else") }
            return true

        case .reference(let number, let keywordName):
            return evaluateInPlace(number, instance, &evaluated, via: keywordName.text)
        case .dynamicReference(let initial, let held):
            var target = initial
            if let anchor = held?.object.value {
                for resource in dynamicScope {
                    if let found = schema.resources[resource].dynamicAnchors[anchor] {
                        target = found
                        break
                    }
                }
            }
            return evaluateInPlace(target, instance, &evaluated, via: "$dynamicRef")
        case .recursiveReference(let initial, let isAnchor):
            var target = initial
            if isAnchor {
                for resource in dynamicScope {
                    if let found = schema.resources[resource].recursiveAnchor, found >= 0 {
                        target = found
                        break
                    }
                }
            }
            return evaluateInPlace(target, instance, &evaluated, via: "$recursiveRef")

        case .unevaluatedProperties(let number):
            guard case .object(let members) = instance else { return true }
            var valid = true
            if evaluated?.allProperties != true {
                for index in members.indices where !isEvaluated(member: index, evaluated) {
                    let (name, value) = members[index]
                    if case .alwaysInvalid = nodes[number].kind {
                        valid = false
                        if !collectsErrors { return false }
                        fail(
                            node, keyword,
                            "property \"\(name)\" is not evaluated by any keyword (unevaluatedProperties is false)",
                            at: name)
                    } else if !evaluate(number, value, at: name, via: "unevaluatedProperties") {
                        valid = false
                        if !collectsErrors { return false }
                    }
                }
            }
            evaluated?.allProperties = true
            return valid
        case .unevaluatedItems(let number):
            guard case .array(let items) = instance else { return true }
            let seen = evaluated ?? Evaluated()
            var valid = true
            if !seen.allItems {
                for index in seen.itemsPrefix..<max(seen.itemsPrefix, items.count)
                where !isEvaluated(item: index, seen) {
                    if case .alwaysInvalid = nodes[number].kind {
                        valid = false
                        if !collectsErrors { return false }
                        fail(
                            node, keyword,
                            "expected no item \(index) (no keyword evaluates it, and unevaluatedItems is false), found \(Self.describe(items[index]))"
                        )
                    } else if !evaluate(number, items[index], at: String(index), via: "unevaluatedItems") {
                        valid = false
                        if !collectsErrors { return false }
                    }
                }
            }
            evaluated?.allItems = true
            return valid
        }
    }

    /// `anyOf` (some alternative fits) and `oneOf` (exactly one does), with a message that names how many fit and,
    /// when none does, the closest alternative's reasons.
    private mutating func checkAlternatives(
        _ numbers: UnsafeBufferPointer<Int>, keyword: CompiledKeyword, of node: Int, _ instance: JSONValue,
        _ evaluated: inout Evaluated?, exactlyOne: Bool
    ) -> Bool {
        // The indices of the fitting alternatives are listed only for a message.
        var fitting: [Int] = []
        var fittingCount = 0
        var merged: Evaluated? = evaluated != nil ? Evaluated() : nil
        let saved = errors.count
        var closest: (index: Int, errors: [ValidationError], score: (Int, Int))?
        for (index, number) in numbers.enumerated() {
            let before = errors.count
            var alternative: Evaluated? = evaluated != nil ? Evaluated() : nil
            if collectsErrors { keywordPath.append(contentsOf: [keyword.name, String(index)]) }
            let fits = evaluate(number, instance, &alternative)
            if collectsErrors { keywordPath.removeLast(2) }
            if limit != nil { return false }
            if fits {
                fittingCount += 1
                if collectsErrors { fitting.append(index) }
                if let alternative { merge(alternative, into: &merged) }
                // anyOf without annotations to gather stops at the first fit; oneOf at the second.
                if !exactlyOne && evaluated == nil { break }
                if exactlyOne && fittingCount > 1 && evaluated == nil && !collectsErrors { break }
            } else if collectsErrors {
                let found = Array(errors[before...])
                let score = Self.closeness(of: found, at: pointer(instancePath))
                if closest == nil || score > closest!.score { closest = (index, found, score) }
            }
            if errors.count > before { errors.removeSubrange(before...) }
        }
        if errors.count > saved { errors.removeSubrange(saved...) }
        if fittingCount == 0 {
            guard collectsErrors else { return false }
            let count = numbers.count
            var message =
                "expected a value that fits \(exactlyOne ? "exactly one" : "at least one") of the \(count) "
                + "alternative\(count == 1 ? "" : "s"), found \(Self.describe(instance)), which fits none"
            if let closest { message += "; the closest is \(keyword.name)/\(closest.index), whose reasons follow" }
            fail(node, keyword, message)
            if let closest { errors += closest.errors }
            return false
        }
        if exactlyOne && fittingCount > 1 {
            guard collectsErrors else { return false }
            let shown = fitting.map(String.init).joined(separator: ", ")
            return fail(
                node, keyword,
                "expected a value that fits exactly one of the \(numbers.count) alternatives, found "
                    + "\(Self.describe(instance)), which fits \(fitting.count) (\(shown))")
        }
        if let merged { merge(merged, into: &evaluated) }
        return true
    }

    /// How close a failing alternative came: failures deeper in the instance mean the outer shape fitted; fewer
    /// failures mean less to change.
    private static func closeness(of errors: [ValidationError], at location: String) -> (Int, Int) {
        let typeFailedHere = errors.contains { $0.instanceLocation == location && $0.keyword == "type" }
        let deepest = errors.map { $0.instanceLocation.count }.max() ?? 0
        return (typeFailedHere ? -1 : deepest, -errors.count)
    }

    // MARK: Helpers

    /// Whether `matcher` matches `text`: by its own automaton when the pattern is simple, else by the engine;
    /// `nil` (with ``limit`` set) when the engine gave up.
    @inline(__always)
    private mutating func match(_ matcher: PatternMatcher, _ text: String, node: Int, keyword: CompiledKeyword) -> Bool?
    {
        if let simple = matcher.simple { return simple.matches(text) }
        do {
            return try matcher.regex.matches(text, timeLimit: schema.patternTimeLimit)
        } catch {
            limit = ValidationLimitError(
                instanceLocation: pointer(instancePath),
                absoluteKeywordLocation: Self.join(nodes[node].absoluteLocation, keyword.name),
                message: "\(error)")
            return nil
        }
    }

    private mutating func checkFormat(
        _ held: Held<Box<String>>, node: Int, keyword: CompiledKeyword, _ instance: JSONValue
    ) -> Bool {
        switch instance {
        case .string(let text):
            guard held.with({ FormatChecker.isValid(text, format: $0.value) }) == false else { return true }
            return fail(node, keyword, "expected format \(held.object.value), found \(Self.describe(instance))")
        case .number(let literal):
            let format = held.object.value
            // OpenAPI's integer formats bound the value.
            if Self.fitsIntegerFormat(literal, format) { return true }
            return fail(node, keyword, "expected an integer that fits \(format), found \(literal)")
        default:
            return true
        }
    }

    /// The verdict of a leaf's gathered assertions (``LeafPlan``) on `instance`.
    private static func accepts(_ plan: UnsafePointer<LeafPlan>, _ instance: JSONValue) -> Bool {
        if plan.pointee.nullable, case .null = instance { return true }
        guard
            Self.instance(
                instance, isOneOf: plan.pointee.types, integralLiteral: plan.pointee.integerNeedsIntegralLiteral)
        else { return false }
        switch instance {
        case .string(let text):
            let bytes = text.utf8.count
            // Lengths count code points: at most one per byte, at least one per four.
            if bytes > plan.pointee.maxLength, text.unicodeScalars.count > plan.pointee.maxLength { return false }
            if (bytes + 3) / 4 < plan.pointee.minLength, text.unicodeScalars.count < plan.pointee.minLength {
                return false
            }
            if let pattern = plan.pointee.pattern, !pattern.matches(text) { return false }
            switch plan.pointee.format {
            case .none, .integer: break
            case .dateTime: if !FormatChecker.isValidDateTime(text) { return false }
            case .date: if !FormatChecker.isValidDate(text) { return false }
            case .email: if !FormatChecker.isValidEmail(text) { return false }
            case .uuid: if !FormatChecker.isValidUUID(text) { return false }
            case .uri: if !FormatChecker.isValidURI(text) { return false }
            case .hostname: if !FormatChecker.isValidHostname(text) { return false }
            case .other:
                if plan.pointee.formatName!.with({ FormatChecker.isValid(text, format: $0.value) }) == false {
                    return false
                }
            }
        case .number(let literal):
            if let bound = plan.pointee.minimum, bound.compare(instance: literal) < 0 { return false }
            if let bound = plan.pointee.maximum, bound.compare(instance: literal) > 0 { return false }
            if let bound = plan.pointee.exclusiveMinimum, bound.compare(instance: literal) <= 0 { return false }
            if let bound = plan.pointee.exclusiveMaximum, bound.compare(instance: literal) >= 0 { return false }
            if let step = plan.pointee.multipleOf, !isMultiple(literal, of: step) { return false }
            if plan.pointee.format == .integer, !fitsIntegerFormat(literal, plan.pointee.formatName!.object.value) {
                return false
            }
        default:
            break
        }
        if let values = plan.pointee.enumeration, !fits(values, instance) { return false }
        return true
    }

    /// Whether a number fits OpenAPI's `int32` or `int64`.
    static func fitsIntegerFormat(_ literal: String, _ format: String) -> Bool {
        let bounds: (low: String, high: String)
        switch format {
        case "int32": bounds = ("-2147483648", "2147483647")
        case "int64": bounds = ("-9223372036854775808", "9223372036854775807")
        default: return true
        }
        if let small = NumberLiteral.smallInteger(literal) {
            // Up to 15 digits: an int64 always, an int32 when in range.
            if format == "int64" || (Int(Int32.min)...Int(Int32.max)).contains(small) { return true }
        }
        guard let value = ExactNumber(literal), let lowest = ExactNumber(bounds.low),
            let highest = ExactNumber(bounds.high)
        else { return true }
        return value.isInteger && ExactNumber.compare(value, lowest) >= 0 && ExactNumber.compare(value, highest) <= 0
    }

    /// Whether `instance` is one of an `enum`'s values.
    @inline(__always)
    static func fits(_ allowed: Ref<EnumValues>, _ instance: JSONValue) -> Bool {
        let allowed = allowed.value
        // Only strings equal a string: those are found by their bytes.
        if case .string(let text) = instance { return allowed.strings.index(of: text, hint: 0) != nil }
        return allowed.values.with { $0.value.contains(where: { InstanceEquality.equal($0, instance) }) }
    }

    static func isMultiple(_ literal: String, of step: NumberBound) -> Bool {
        // Integers of up to 15 digits: exactly, by the remainder.
        if let integer = step.integer, integer > 0, let value = NumberLiteral.smallInteger(literal) {
            return value % integer == 0
        }
        if let exact = step.exact, let value = ExactNumber(literal), let answer = value.isMultiple(of: exact) {
            return answer
        }
        guard let value = Double(literal) else { return true }
        let quotient = value / step.double
        // Beyond Double's range every number is a whole multiple of a step that divides 1 (as the suite expects
        // of 1e308 and 0.5); a non-finite quotient of anything else cannot be decided.
        guard quotient.isFinite else { return (1 / step.double).rounded() == 1 / step.double }
        return quotient.rounded() == quotient
    }

    @inline(__always)
    static func instance(_ instance: JSONValue, isOneOf types: TypeSet, integralLiteral: Bool) -> Bool {
        switch instance {
        case .null: return types.contains(.null)
        case .bool: return types.contains(.boolean)
        case .string: return types.contains(.string)
        case .array: return types.contains(.array)
        case .object: return types.contains(.object)
        case .number(let literal):
            if types.contains(.number) { return true }
            guard types.contains(.integer) else { return false }
            if NumberLiteral.smallInteger(literal) != nil { return true }
            if integralLiteral {
                return !literal.utf8.contains {
                    $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
                }
            }
            if !literal.utf8.contains(where: {
                $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E")
            }) {
                return true
            }
            return ExactNumber(literal)?.isInteger ?? false
        }
    }

    /// The first pair of equal items, by index.
    static func firstDuplicate(_ items: [JSONValue]) -> (Int, Int)? {
        if items.count < 16 {
            for i in items.indices {
                for j in (i + 1)..<items.count where InstanceEquality.equal(items[i], items[j]) { return (i, j) }
            }
            return nil
        }
        var seen: [HashableInstance: Int] = [:]
        for (index, item) in items.enumerated() {
            if let first = seen.updateValue(index, forKey: HashableInstance(value: item)) { return (first, index) }
        }
        return nil
    }

    /// Records an error when errors are collected (the message is made only then); `false`.
    @discardableResult
    @inline(__always)
    private mutating func fail(
        _ node: Int, _ keyword: CompiledKeyword, _ message: @autoclosure () -> String, at member: String? = nil,
        missing: String? = nil
    ) -> Bool {
        guard collectsErrors else { return false }
        record(node, keyword: keyword.name, message(), at: member, missing: missing)
        return false
    }

    private mutating func record(
        _ number: Int, keyword: String?, _ message: String, at member: String? = nil, missing: String? = nil
    ) {
        let node = nodes[number]
        var instanceTokens = instancePath
        if let member { instanceTokens.append(member) }
        var keywordTokens = keywordPath
        if let keyword { keywordTokens.append(keyword) }
        errors.append(
            ValidationError(
                instanceLocation: pointer(instanceTokens), keywordLocation: pointer(keywordTokens),
                absoluteKeywordLocation: keyword.map { Self.join(node.absoluteLocation, $0) } ?? node.absoluteLocation,
                keyword: keyword ?? "false", message: message, property: missing))
    }

    private func pointer(_ tokens: [String]) -> String {
        tokens.isEmpty ? "" : "/" + tokens.map(JSONPointer.escape).joined(separator: "/")
    }

    private static func join(_ location: String, _ keyword: String) -> String {
        location + (location.hasSuffix("#") ? "/" : "/") + JSONPointer.escape(keyword)
    }

    private static func describe(_ instance: JSONValue) -> String { instance.briefDescription }
}

extension JSONValue {
    /// The value as compact JSON, cut at 60 characters, for messages.
    var compactText: String {
        let text = String(decoding: serialized(), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
