import HTTPFixtures

/// One subschema, compiled: its keywords in evaluation order, each with what it needs resolved (references to
/// node numbers, patterns compiled, bounds read).
struct CompiledNode: Sendable {
    enum Kind: Sendable {
        /// `true`, or an object schema whose keywords all pass anything.
        case alwaysValid
        /// `false`.
        case alwaysInvalid
        case keywords
    }

    var kind: Kind
    var keywords: [CompiledKeyword]
    /// The schema resource (an `$id`, or a document) the subschema belongs to: the dynamic scope is made of these.
    var resource: Int
    /// Where the subschema is: its resource's URI and a JSON Pointer fragment, for `absoluteKeywordLocation`.
    var absoluteLocation: String
    /// Whether a keyword of this node reads what other keywords evaluated (`unevaluatedProperties`/`Items`).
    var readsEvaluated: Bool
}

/// A number bound (`minimum: 10`), read both ways: `Double` for speed, exactly where `Double` cannot decide.
struct NumberBound: Sendable {
    let literal: String
    let double: Double
    let exact: ExactNumber?

    init?(_ value: JSONValue) {
        guard case .number(let literal) = value, let double = Double(literal) else { return nil }
        self.literal = literal
        self.double = double
        self.exact = ExactNumber(literal)
    }

    /// The order of an instance's number literal against the bound: -1, 0 or 1.
    func compare(instance literal: String) -> Int {
        guard let value = Double(literal) else { return 0 }
        if value < double { return -1 }
        if value > double { return 1 }
        // Rounding is monotonic, so unequal Doubles decide; equal ones may hide a difference in the digits.
        guard let exact, let instance = ExactNumber(literal) else { return 0 }
        return ExactNumber.compare(instance, exact)
    }
}

/// JSON types as a set, for `type`.
struct TypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = TypeSet(rawValue: 1 << 0)
    static let boolean = TypeSet(rawValue: 1 << 1)
    static let object = TypeSet(rawValue: 1 << 2)
    static let array = TypeSet(rawValue: 1 << 3)
    static let number = TypeSet(rawValue: 1 << 4)
    static let string = TypeSet(rawValue: 1 << 5)
    static let integer = TypeSet(rawValue: 1 << 6)

    init(rawValue: UInt8) { self.rawValue = rawValue }

    init?(name: String) {
        switch name {
        case "null": self = .null
        case "boolean": self = .boolean
        case "object": self = .object
        case "array": self = .array
        case "number": self = .number
        case "string": self = .string
        case "integer": self = .integer
        default: return nil
        }
    }

    /// `string`, `string or null`.
    var names: String {
        let all: [(TypeSet, String)] = [
            (.object, "object"), (.array, "array"), (.string, "string"), (.integer, "integer"), (.number, "number"),
            (.boolean, "boolean"), (.null, "null"),
        ]
        let shown = all.filter { contains($0.0) }.map(\.1)
        return shown.count <= 1 ? shown.joined() : shown.dropLast().joined(separator: ", ") + " or " + shown.last!
    }
}

/// One keyword of a compiled node. Node numbers index ``CompiledSchema/nodes``.
enum CompiledKeyword: Sendable {
    case type(TypeSet, integerNeedsIntegralLiteral: Bool)
    case enumeration([JSONValue])
    case constant(JSONValue)
    case multipleOf(NumberBound)
    case maximum(NumberBound)
    case exclusiveMaximum(NumberBound)
    case minimum(NumberBound)
    case exclusiveMinimum(NumberBound)
    case maxLength(Int)
    case minLength(Int)
    case pattern(ECMARegex)
    case format(String)
    case maxItems(Int)
    case minItems(Int)
    case uniqueItems
    case maxProperties(Int)
    case minProperties(Int)
    case required([String])
    case dependentRequired([(name: String, required: [String])], keyword: String)
    case properties([MemberName: Int], order: [(name: String, node: Int)])
    case patternProperties([(regex: ECMARegex, node: Int)])
    /// Applies to members that neither `properties` nor `patternProperties` of the same node name.
    case additionalProperties(node: Int, named: Set<MemberName>, patterns: [ECMARegex])
    case propertyNames(Int)
    case dependentSchemas([(name: String, node: Int)], keyword: String)
    /// 2020-12 `prefixItems`, or the array form of `items` before it.
    case prefixItems([Int], keyword: String)
    /// Items from `start` on: 2020-12 `items`, the schema form of `items` before it (start 0), or `additionalItems`
    /// (start: the number of `items` schemas).
    case items(node: Int, start: Int, keyword: String)
    case contains(node: Int, minimum: Int, maximum: Int?, reportsEvaluated: Bool)
    case allOf([Int])
    case anyOf([Int])
    case oneOf([Int])
    case not(Int)
    case conditional(condition: Int, then: Int?, else: Int?)
    case reference(Int, keyword: String)
    /// `$dynamicRef`: the node the reference resolves to statically, and the anchor name to look for in the dynamic
    /// scope when that node itself has such a `$dynamicAnchor`.
    case dynamicReference(initial: Int, anchor: String?)
    /// 2019-09 `$recursiveRef`: the initial target, and whether it has `$recursiveAnchor: true`.
    case recursiveReference(initial: Int, targetIsRecursiveAnchor: Bool)
    case unevaluatedProperties(Int)
    case unevaluatedItems(Int)
    /// OpenAPI 3.0 `nullable: true`: `null` passes the type and value keywords of the node.
    case nullable
    /// draft-07's `contentEncoding` (`base64`) and `contentMediaType` (`application/json`) as assertions; later
    /// drafts made them annotations only.
    case content(encoding: String?, mediaType: String?)

    /// The keyword as written in the schema, for locations and messages.
    var name: String {
        switch self {
        case .type: return "type"
        case .enumeration: return "enum"
        case .constant: return "const"
        case .multipleOf: return "multipleOf"
        case .maximum: return "maximum"
        case .exclusiveMaximum: return "exclusiveMaximum"
        case .minimum: return "minimum"
        case .exclusiveMinimum: return "exclusiveMinimum"
        case .maxLength: return "maxLength"
        case .minLength: return "minLength"
        case .pattern: return "pattern"
        case .format: return "format"
        case .maxItems: return "maxItems"
        case .minItems: return "minItems"
        case .uniqueItems: return "uniqueItems"
        case .maxProperties: return "maxProperties"
        case .minProperties: return "minProperties"
        case .required: return "required"
        case .dependentRequired(_, let keyword): return keyword
        case .properties: return "properties"
        case .patternProperties: return "patternProperties"
        case .additionalProperties: return "additionalProperties"
        case .propertyNames: return "propertyNames"
        case .dependentSchemas(_, let keyword): return keyword
        case .prefixItems(_, let keyword): return keyword
        case .items(_, _, let keyword): return keyword
        case .contains: return "contains"
        case .allOf: return "allOf"
        case .anyOf: return "anyOf"
        case .oneOf: return "oneOf"
        case .not: return "not"
        case .conditional: return "if"
        case .reference(_, let keyword): return keyword
        case .dynamicReference: return "$dynamicRef"
        case .recursiveReference: return "$recursiveRef"
        case .unevaluatedProperties: return "unevaluatedProperties"
        case .unevaluatedItems: return "unevaluatedItems"
        case .nullable: return "nullable"
        case .content(let encoding, _): return encoding != nil ? "contentEncoding" : "contentMediaType"
        }
    }
}

/// A schema resource: its URI and the dynamic anchors (2020-12) or recursive anchor (2019-09) it declares.
struct CompiledResource: Sendable {
    var uri: String
    var dynamicAnchors: [String: Int]
    /// The resource's root node, when it has `$recursiveAnchor: true`.
    var recursiveAnchor: Int?
}
