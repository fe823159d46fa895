/// A version of JSON Schema, or OpenAPI 3.0's schema object: which keywords mean what.
///
/// A schema's dialect comes from its `$schema` (per schema resource), else from ``SchemaOptions/defaultDialect``.
/// OpenAPI 3.1's schemas are 2020-12; OpenAPI 3.0's schema object is draft-04's keywords with `nullable`, boolean
/// `exclusiveMinimum`/`exclusiveMaximum`, `readOnly`/`writeOnly` by direction, and `$ref` siblings ignored.
package enum Dialect: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case draft4
    case draft6
    case draft7
    case draft2019_09
    case draft2020_12
    case openAPI30

    /// The dialect a `$schema` URI names, with or without an empty fragment; `nil` for any other URI.
    package init?(metaschemaURI: String) {
        var uri = metaschemaURI
        if uri.hasSuffix("#") { uri.removeLast() }
        switch uri {
        case "http://json-schema.org/draft-04/schema", "https://json-schema.org/draft-04/schema": self = .draft4
        case "http://json-schema.org/draft-06/schema", "https://json-schema.org/draft-06/schema": self = .draft6
        case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema": self = .draft7
        case "https://json-schema.org/draft/2019-09/schema": self = .draft2019_09
        case "https://json-schema.org/draft/2020-12/schema": self = .draft2020_12
        default: return nil
        }
    }

    /// The dialect a name gives (`2020-12`, `draft7`, `draft-07`, `openapi-3.0`), for options.
    package init?(name: String) {
        switch name.lowercased() {
        case "4", "draft4", "draft-04": self = .draft4
        case "6", "draft6", "draft-06": self = .draft6
        case "7", "draft7", "draft-07": self = .draft7
        case "2019-09", "draft2019-09": self = .draft2019_09
        case "2020-12", "draft2020-12": self = .draft2020_12
        case "openapi-3.0", "openapi30", "oas30": self = .openAPI30
        default: return nil
        }
    }

    /// The URI of the dialect's metaschema (OpenAPI 3.0 is checked against draft-04's).
    var metaschemaURI: String {
        switch self {
        case .draft4, .openAPI30: return "http://json-schema.org/draft-04/schema"
        case .draft6: return "http://json-schema.org/draft-06/schema"
        case .draft7: return "http://json-schema.org/draft-07/schema"
        case .draft2019_09: return "https://json-schema.org/draft/2019-09/schema"
        case .draft2020_12: return "https://json-schema.org/draft/2020-12/schema"
        }
    }

    package var description: String {
        switch self {
        case .draft4: return "draft-04"
        case .draft6: return "draft-06"
        case .draft7: return "draft-07"
        case .draft2019_09: return "2019-09"
        case .draft2020_12: return "2020-12"
        case .openAPI30: return "OpenAPI 3.0"
        }
    }

    /// Whether `$ref` hides the keywords beside it (up to draft-07, and in OpenAPI 3.0).
    var refOverridesSiblings: Bool { self == .draft4 || self == .draft6 || self == .draft7 || self == .openAPI30 }

    /// The keyword that names a schema resource: `id` in draft-04 (and OpenAPI 3.0, which has none: it is
    /// ignored there), `$id` after.
    var identifierKeyword: String? {
        switch self {
        case .draft4: return "id"
        case .openAPI30: return nil
        default: return "$id"
        }
    }

    /// Whether `true` and `false` are schemas (from draft-06 on).
    var allowsBooleanSchemas: Bool { self != .draft4 && self != .openAPI30 }

    /// Whether the dialect is 2019-09 or later (vocabularies, `$anchor`, `$defs`, the unevaluated keywords).
    var hasVocabularies: Bool { self == .draft2019_09 || self == .draft2020_12 }
}

/// The vocabularies of 2019-09 and 2020-12 that a metaschema may turn on or off with `$vocabulary`.
struct Vocabularies: OptionSet, Sendable, Hashable {
    let rawValue: UInt16
    init(rawValue: UInt16) { self.rawValue = rawValue }
    static let core = Vocabularies(rawValue: 1 << 0)
    static let applicator = Vocabularies(rawValue: 1 << 1)
    static let unevaluated = Vocabularies(rawValue: 1 << 2)
    static let validation = Vocabularies(rawValue: 1 << 3)
    static let metaData = Vocabularies(rawValue: 1 << 4)
    static let formatAnnotation = Vocabularies(rawValue: 1 << 5)
    static let formatAssertion = Vocabularies(rawValue: 1 << 6)
    static let content = Vocabularies(rawValue: 1 << 7)
    static let all: Vocabularies = [
        .core, .applicator, .unevaluated, .validation, .metaData, .formatAnnotation, .content,
    ]

    /// The vocabulary a URI names, in 2019-09 or 2020-12; `nil` for one this validator does not know.
    init?(uri: String) {
        let prefixes = ["https://json-schema.org/draft/2020-12/vocab/", "https://json-schema.org/draft/2019-09/vocab/"]
        guard let prefix = prefixes.first(where: { uri.hasPrefix($0) }) else { return nil }
        switch uri.dropFirst(prefix.count) {
        case "core": self = .core
        case "applicator": self = .applicator
        case "unevaluated": self = .unevaluated
        case "validation": self = .validation
        case "meta-data": self = .metaData
        case "format-annotation", "format": self = .formatAnnotation
        case "format-assertion": self = .formatAssertion
        case "content": self = .content
        default: return nil
        }
    }
}
