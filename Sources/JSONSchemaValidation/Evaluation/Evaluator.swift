import APIProbeShared
import Foundation
import HTTPFixtures

/// What in-place keywords evaluated of one instance, for `unevaluatedProperties` and `unevaluatedItems`.
struct Evaluated {
    var properties: Set<MemberName> = []
    var allProperties = false
    /// Items `0..<itemsPrefix` were evaluated (`prefixItems`).
    var itemsPrefix = 0
    var allItems = false
    /// Items `contains` matched (2020-12).
    var itemIndices: Set<Int> = []

    mutating func merge(_ other: Evaluated) {
        if other.allProperties { allProperties = true } else if !allProperties { properties.formUnion(other.properties) }
        if other.allItems { allItems = true }
        itemsPrefix = max(itemsPrefix, other.itemsPrefix)
        itemIndices.formUnion(other.itemIndices)
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
    private var instancePath: [String] = []
    private var keywordPath: [String] = []
    private var dynamicScope: [Int] = []
    private var depth = 0

    init(schema: CompiledSchema, collectsErrors: Bool) {
        self.schema = schema
        self.collectsErrors = collectsErrors
    }

    // MARK: Nodes

    mutating func evaluate(_ number: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?) -> Bool {
        let node = schema.nodes[number]
        switch node.kind {
        case .alwaysValid: return true
        case .alwaysInvalid:
            if collectsErrors {
                record(node, keyword: nil, "expected no value here (the schema is false), found \(describe(instance))")
            }
            return false
        case .keywords: break
        }
        guard limit == nil else { return false }
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth {
            limit = ValidationLimitError(
                instanceLocation: pointer(instancePath), absoluteKeywordLocation: node.absoluteLocation,
                message: "evaluation went \(Self.maximumDepth) subschemas deep (a reference cycle that never "
                    + "reaches a value?)")
            return false
        }
        let entersResource = schema.usesDynamicScope && dynamicScope.last != node.resource
        if entersResource { dynamicScope.append(node.resource) }
        defer { if entersResource { dynamicScope.removeLast() } }

        var local: Evaluated? = evaluated != nil || node.readsEvaluated ? Evaluated() : nil
        var valid = true
        for keyword in node.keywords {
            if case .nullable = keyword {
                if instance == .null { break }
                continue
            }
            if !check(keyword, of: node, instance, &local) {
                valid = false
                if !collectsErrors || limit != nil { return false }
            }
        }
        if valid, evaluated != nil, let local { evaluated!.merge(local) }
        return valid
    }

    /// Evaluates a subschema at a member or item of the instance.
    private mutating func evaluate(_ number: Int, _ instance: JSONValue, at token: String, via keywordTokens: String...)
        -> Bool
    {
        if collectsErrors {
            instancePath.append(token)
            keywordPath.append(contentsOf: keywordTokens)
        }
        var none: Evaluated?
        let valid = evaluate(number, instance, &none)
        if collectsErrors {
            instancePath.removeLast()
            keywordPath.removeLast(keywordTokens.count)
        }
        return valid
    }

    /// Evaluates a subschema in place (the same instance), merging its annotations.
    private mutating func evaluateInPlace(
        _ number: Int, _ instance: JSONValue, _ evaluated: inout Evaluated?, via keywordTokens: String...
    ) -> Bool {
        if collectsErrors { keywordPath.append(contentsOf: keywordTokens) }
        let valid = evaluate(number, instance, &evaluated)
        if collectsErrors { keywordPath.removeLast(keywordTokens.count) }
        return valid
    }

    // MARK: Keywords

    // swift-format-ignore: FunctionLength
    private mutating func check(
        _ keyword: CompiledKeyword, of node: CompiledNode, _ instance: JSONValue, _ evaluated: inout Evaluated?
    ) -> Bool {
        switch keyword {
        case .nullable:
            return true

        case .type(let types, let integerNeedsIntegralLiteral):
            if Self.instance(instance, isOneOf: types, integralLiteral: integerNeedsIntegralLiteral) { return true }
            return fail(node, keyword, "expected \(types.names), found \(describe(instance))")

        case .enumeration(let values):
            if values.contains(where: { InstanceEquality.equal($0, instance) }) { return true }
            let shown = values.prefix(8).map(\.compactText).joined(separator: ", ")
            return fail(
                node, keyword, "expected one of \(shown)\(values.count > 8 ? ", …" : ""), found \(describe(instance))")

        case .constant(let value):
            if InstanceEquality.equal(value, instance) { return true }
            return fail(node, keyword, "expected \(value.compactText), found \(describe(instance))")

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
            let count = text.unicodeScalars.count
            if count >= length { return true }
            return fail(node, keyword, "expected at least \(length) characters, found \(count)")

        case .pattern(let regex):
            guard case .string(let text) = instance else { return true }
            switch match(regex, text, node: node, keyword: keyword) {
            case true?: return true
            case false?: return fail(node, keyword, "expected a string matching /\(regex.pattern)/, found \(describe(instance))")
            case nil: return false
            }

        case .content(let encoding, let mediaType):
            guard case .string(let text) = instance else { return true }
            var bytes = Data(text.utf8)
            if encoding == "base64" {
                guard let decoded = Data(base64Encoded: text) else {
                    return fail(node, keyword, "expected base64 text, found \(describe(instance))")
                }
                bytes = decoded
            }
            if mediaType == "application/json", (try? JSONValue(parsing: bytes)) == nil {
                return fail(node, keyword, "expected a JSON document, found \(describe(instance))")
            }
            return true

        case .format(let format):
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

        case .required(let names):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for name in names where !members.contains(where: { $0.key.utf8.elementsEqual(name.utf8) }) {
                valid = false
                if !collectsErrors { return false }
                fail(node, keyword, "required property \"\(name)\" is missing", missing: name)
            }
            return valid
        case .dependentRequired(let dependencies, _):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, required) in dependencies where members.contains(where: { $0.key == name }) {
                for other in required where !members.contains(where: { $0.key.utf8.elementsEqual(other.utf8) }) {
                    valid = false
                    if !collectsErrors { return false }
                    fail(
                        node, keyword, "property \"\(other)\" is missing, and \"\(name)\" requires it",
                        missing: other)
                }
            }
            return valid

        case .properties(let byName, _):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, value) in members {
                guard let number = byName[MemberName(name)] else { continue }
                evaluated?.properties.insert(MemberName(name))
                if !evaluate(number, value, at: name, via: "properties", name) {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            return valid
        case .patternProperties(let patterns):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, value) in members {
                for (regex, number) in patterns {
                    guard let matched = match(regex, name, node: node, keyword: keyword) else { return false }
                    guard matched else { continue }
                    evaluated?.properties.insert(MemberName(name))
                    if !evaluate(number, value, at: name, via: "patternProperties", regex.pattern) {
                        valid = false
                        if !collectsErrors { return false }
                    }
                }
            }
            return valid
        case .additionalProperties(let number, let named, let patterns):
            guard case .object(let members) = instance else { return true }
            var valid = true
            members: for (name, value) in members {
                if named.contains(MemberName(name)) { continue }
                for regex in patterns {
                    guard let matched = match(regex, name, node: node, keyword: keyword) else { return false }
                    if matched { continue members }
                }
                if case .alwaysInvalid = schema.nodes[number].kind {
                    valid = false
                    if !collectsErrors { return false }
                    fail(
                        node, keyword, "property \"\(name)\" is not declared (additionalProperties is false)",
                        at: name)
                } else if !evaluate(number, value, at: name, via: "additionalProperties") {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            evaluated?.allProperties = true
            return valid
        case .propertyNames(let number):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, _) in members where !evaluate(number, .string(name), at: name, via: "propertyNames") {
                valid = false
                if !collectsErrors { return false }
            }
            return valid
        case .dependentSchemas(let dependencies, let keywordName):
            guard case .object(let members) = instance else { return true }
            var valid = true
            for (name, number) in dependencies where members.contains(where: { $0.key == name }) {
                if !evaluateInPlace(number, instance, &evaluated, via: keywordName, name) {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            return valid

        case .prefixItems(let numbers, let keywordName):
            guard case .array(let items) = instance else { return true }
            var valid = true
            for (index, item) in items.prefix(numbers.count).enumerated() {
                if !evaluate(numbers[index], item, at: String(index), via: keywordName, String(index)) {
                    valid = false
                    if !collectsErrors { return false }
                }
            }
            if evaluated != nil { evaluated!.itemsPrefix = max(evaluated!.itemsPrefix, min(items.count, numbers.count)) }
            return valid
        case .items(let number, let start, let keywordName):
            guard case .array(let items) = instance, items.count > start else { return true }
            var valid = true
            if case .alwaysInvalid = schema.nodes[number].kind {
                return fail(
                    node, keyword, "expected at most \(start) items (\(keywordName) is false past them), found \(items.count)")
            }
            for index in start..<items.count where !evaluate(number, items[index], at: String(index), via: keywordName) {
                valid = false
                if !collectsErrors { return false }
            }
            evaluated?.allItems = true
            return valid
        case .contains(let number, let minimum, let maximum, let reportsEvaluated):
            guard case .array(let items) = instance else { return true }
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
                    if reportsEvaluated { evaluated?.itemIndices.insert(index) }
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
                    node, keyword, "expected at least \(minimum) item\(minimum == 1 ? "" : "s") matching contains, found \(matched)")
            }
            if let maximum, matched > maximum {
                return fail(node, keyword, "expected at most \(maximum) items matching contains, found \(matched)")
            }
            return true

        case .allOf(let numbers):
            var valid = true
            for (index, number) in numbers.enumerated()
            where !evaluateInPlace(number, instance, &evaluated, via: "allOf", String(index)) {
                valid = false
                if !collectsErrors { return false }
            }
            return valid
        case .anyOf(let numbers):
            return checkAlternatives(numbers, keyword: keyword, of: node, instance, &evaluated, exactlyOne: false)
        case .oneOf(let numbers):
            return checkAlternatives(numbers, keyword: keyword, of: node, instance, &evaluated, exactlyOne: true)
        case .not(let number):
            let saved = errors.count
            var none: Evaluated?
            if collectsErrors { keywordPath.append("not") }
            let matched = evaluate(number, instance, &none)
            if collectsErrors { keywordPath.removeLast() }
            if errors.count > saved { errors.removeSubrange(saved...) }
            if limit != nil { return false }
            if !matched { return true }
            return fail(node, keyword, "expected a value that does not fit the schema under not, found \(describe(instance))")
        case .conditional(let condition, let then, let otherwise):
            let saved = errors.count
            var conditionEvaluated: Evaluated? = evaluated != nil ? Evaluated() : nil
            if collectsErrors { keywordPath.append("if") }
            let holds = evaluate(condition, instance, &conditionEvaluated)
            if collectsErrors { keywordPath.removeLast() }
            if errors.count > saved { errors.removeSubrange(saved...) }
            if limit != nil { return false }
            if holds, let conditionEvaluated { evaluated?.merge(conditionEvaluated) }
            if holds, let then { return evaluateInPlace(then, instance, &evaluated, via: "then") }
            if !holds, let otherwise { return evaluateInPlace(otherwise, instance, &evaluated, via: "else") }
            return true

        case .reference(let number, let keywordName):
            return evaluateInPlace(number, instance, &evaluated, via: keywordName)
        case .dynamicReference(let initial, let anchor):
            var target = initial
            if let anchor {
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
            let seen = evaluated ?? Evaluated()
            var valid = true
            if !seen.allProperties {
                for (name, value) in members where !seen.properties.contains(MemberName(name)) {
                    if case .alwaysInvalid = schema.nodes[number].kind {
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
                where !seen.itemIndices.contains(index) {
                    if case .alwaysInvalid = schema.nodes[number].kind {
                        valid = false
                        if !collectsErrors { return false }
                        fail(
                            node, keyword,
                            "expected no item \(index) (no keyword evaluates it, and unevaluatedItems is false), found \(describe(items[index]))"
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
        _ numbers: [Int], keyword: CompiledKeyword, of node: CompiledNode, _ instance: JSONValue,
        _ evaluated: inout Evaluated?, exactlyOne: Bool
    ) -> Bool {
        let name = keyword.name
        var fitting: [Int] = []
        var merged: Evaluated? = evaluated != nil ? Evaluated() : nil
        let saved = errors.count
        var closest: (index: Int, errors: [ValidationError], score: (Int, Int))?
        for (index, number) in numbers.enumerated() {
            let before = errors.count
            var alternative: Evaluated? = evaluated != nil ? Evaluated() : nil
            if collectsErrors { keywordPath.append(contentsOf: [name, String(index)]) }
            let fits = evaluate(number, instance, &alternative)
            if collectsErrors { keywordPath.removeLast(2) }
            if limit != nil { return false }
            if fits {
                fitting.append(index)
                if let alternative { merged?.merge(alternative) }
                // anyOf without annotations to gather stops at the first fit; oneOf at the second.
                if !exactlyOne && evaluated == nil { break }
                if exactlyOne && fitting.count > 1 && evaluated == nil && !collectsErrors { break }
            } else if collectsErrors {
                let found = Array(errors[before...])
                let score = Self.closeness(of: found, at: pointer(instancePath))
                if closest == nil || score > closest!.score { closest = (index, found, score) }
            }
            if errors.count > before { errors.removeSubrange(before...) }
        }
        if errors.count > saved { errors.removeSubrange(saved...) }
        if fitting.isEmpty {
            guard collectsErrors else { return false }
            let count = numbers.count
            var message = "expected a value that fits \(exactlyOne ? "exactly one" : "at least one") of the \(count) "
                + "alternative\(count == 1 ? "" : "s"), found \(describe(instance)), which fits none"
            if let closest { message += "; the closest is \(name)/\(closest.index), whose reasons follow" }
            fail(node, keyword, message)
            if let closest { errors += closest.errors }
            return false
        }
        if exactlyOne && fitting.count > 1 {
            let shown = fitting.map(String.init).joined(separator: ", ")
            return fail(
                node, keyword,
                "expected a value that fits exactly one of the \(numbers.count) alternatives, found "
                    + "\(describe(instance)), which fits \(fitting.count) (\(shown))")
        }
        if let merged { evaluated?.merge(merged) }
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

    private mutating func match(_ regex: ECMARegex, _ text: String, node: CompiledNode, keyword: CompiledKeyword) -> Bool? {
        do {
            return try regex.matches(text, timeLimit: schema.patternTimeLimit)
        } catch {
            limit = ValidationLimitError(
                instanceLocation: pointer(instancePath),
                absoluteKeywordLocation: Self.join(node.absoluteLocation, keyword.name),
                message: "\(error)")
            return nil
        }
    }

    private mutating func checkFormat(_ format: String, node: CompiledNode, keyword: CompiledKeyword, _ instance: JSONValue)
        -> Bool
    {
        switch instance {
        case .string(let text):
            guard FormatChecker.isValid(text, format: format) == false else { return true }
            return fail(node, keyword, "expected format \(format), found \(describe(instance))")
        case .number(let literal):
            // OpenAPI's integer formats bound the value.
            let ranges: [String: (String, String)] = [
                "int32": ("-2147483648", "2147483647"), "int64": ("-9223372036854775808", "9223372036854775807"),
            ]
            guard let (low, high) = ranges[format], let value = ExactNumber(literal),
                let lowest = ExactNumber(low), let highest = ExactNumber(high)
            else { return true }
            if value.isInteger, ExactNumber.compare(value, lowest) >= 0, ExactNumber.compare(value, highest) <= 0 {
                return true
            }
            return fail(node, keyword, "expected an integer that fits \(format), found \(literal)")
        default:
            return true
        }
    }

    static func isMultiple(_ literal: String, of step: NumberBound) -> Bool {
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
            if integralLiteral {
                return !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            }
            if !literal.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
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

    @discardableResult
    private mutating func fail(
        _ node: CompiledNode, _ keyword: CompiledKeyword, _ message: String, at member: String? = nil,
        missing: String? = nil
    ) -> Bool {
        guard collectsErrors else { return false }
        record(node, keyword: keyword.name, message, at: member, missing: missing)
        return false
    }

    private mutating func record(
        _ node: CompiledNode, keyword: String?, _ message: String, at member: String? = nil, missing: String? = nil
    ) {
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

    private func describe(_ instance: JSONValue) -> String { instance.briefDescription }
}

extension JSONValue {
    /// The value as compact JSON, cut at 60 characters, for messages.
    var compactText: String {
        let text = String(decoding: serialized(), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(60)) + "…" : text
    }
}
