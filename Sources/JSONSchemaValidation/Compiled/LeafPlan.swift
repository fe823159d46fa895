// Plans: the keywords of the commonest kinds of node gathered into one plain value, which the fast path checks
// without going keyword by keyword.

/// The assertions of a leaf node (`{"type": "string", "maxLength": 20, "pattern": "^[a-z]+$"}`) gathered into
/// one plain value, so that the fast path checks a value against them without going keyword by keyword. Only
/// keywords whose verdict does not depend on their order are gathered (none of them can stop with a limit); a node
/// with any other keyword has no plan.
struct LeafPlan: Sendable {
    /// The types allowed (all of them without `type`), and whether an integer must be written without a fraction.
    var types: TypeSet = [.null, .boolean, .object, .array, .number, .string, .integer]
    var integerNeedsIntegralLiteral = false
    /// OpenAPI 3.0 `nullable: true` without `type`: `null` passes every keyword.
    var nullable = false
    var minLength = 0
    var maxLength = Int.max
    var pattern: SimplePattern?
    var format: FormatKind = .none
    var formatName: Held<Box<String>>?
    var minimum: NumberBound?
    var maximum: NumberBound?
    var exclusiveMinimum: NumberBound?
    var exclusiveMaximum: NumberBound?
    var multipleOf: NumberBound?
    var enumeration: Ref<EnumValues>?

    /// The plan of `keywords`; `nil` when one of them is not of the kinds gathered.
    init?(_ keywords: [CompiledKeyword]) {
        for keyword in keywords {
            switch keyword {
            case .type(let types, let integral):
                self.types = types
                integerNeedsIntegralLiteral = integral
            case .nullable: nullable = true
            case .minLength(let length): minLength = length
            case .maxLength(let length): maxLength = length
            case .pattern(let held):
                guard let simple = held.object.simple else { return nil }
                pattern = simple
            case .format(let held, let known):
                guard known else { continue }
                format = FormatKind(held.object.value)
                formatName = held
            case .minimum(let bound): minimum = bound
            case .maximum(let bound): maximum = bound
            case .exclusiveMinimum(let bound): exclusiveMinimum = bound
            case .exclusiveMaximum(let bound): exclusiveMaximum = bound
            case .multipleOf(let bound): multipleOf = bound
            case .enumeration(let values): enumeration = values
            default: return nil
            }
        }
    }
}

/// The formats a leaf plan checks by a direct call; `other` goes through ``FormatChecker/isValid(_:format:)`` by
/// name.
enum FormatKind: UInt8, Sendable {
    case none
    case dateTime
    case date
    case email
    case uuid
    case uri
    case hostname
    /// `int32` and `int64` (numbers).
    case integer
    case other

    init(_ name: String) {
        switch name {
        case "date-time": self = .dateTime
        case "date": self = .date
        case "email": self = .email
        case "uuid": self = .uuid
        case "uri": self = .uri
        case "hostname": self = .hostname
        case "int32", "int64": self = .integer
        default: self = .other
        }
    }
}

/// The keywords of an object node gathered (`type`, `minProperties`, `maxProperties`, `required` looked up in
/// `properties`, `properties` of at most 64 names, `additionalProperties` without `patternProperties`,
/// `unevaluatedProperties`), so that the fast path checks an object in one look-up pass and one pass per keyword
/// that evaluates members, in the keywords' order, without going keyword by keyword. A node with any other keyword
/// (an in-place applicator, above all) has no plan.
struct ObjectPlan: Sendable {
    var types: TypeSet = [.null, .boolean, .object, .array, .number, .string, .integer]
    var integerNeedsIntegralLiteral = false
    var minProperties = 0
    var maxProperties = Int.max
    var required: Ref<RequiredNames>?
    var properties: Ref<PropertyTable>?
    /// The nodes of `additionalProperties` and `unevaluatedProperties`; -1 for none.
    var additional = -1
    var unevaluated = -1

    init?(_ keywords: [CompiledKeyword]) {
        for keyword in keywords {
            switch keyword {
            case .type(let types, let integral):
                self.types = types
                integerNeedsIntegralLiteral = integral
            case .maxProperties(let count): maxProperties = count
            case .minProperties(let count): minProperties = count
            case .required(let names):
                // Only when `required` looks its names up in `properties`.
                guard names.value.properties != nil else { return nil }
                required = names
            case .properties(let table):
                guard table.value.names.count <= 64 else { return nil }
                properties = table
            case .additionalProperties(let additional):
                guard additional.value.patterns == nil else { return nil }
                self.additional = additional.value.node
            case .unevaluatedProperties(let node): unevaluated = node
            default: return nil
            }
        }
        if required != nil && properties == nil { return nil }
    }
}
