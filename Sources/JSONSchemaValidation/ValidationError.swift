package import APIProbeShared
package import HTTPFixtures

/// One way an instance breaks a schema, as the standard's "basic" output structure has it.
///
/// ```
/// /items/3/price: maximum: expected a number at most 100, found integer 250 (schema #/properties/items/items/properties/price/maximum)
/// ```
package struct ValidationError: Sendable, Hashable, CustomStringConvertible {
    /// The failing value: a JSON Pointer into the instance (`""` is the whole instance).
    package var instanceLocation: String
    /// The keyword by the path evaluation took, through references (`/properties/a/$ref/type`).
    package var keywordLocation: String
    /// The keyword where it is written: its schema resource's URI and a JSON Pointer fragment.
    package var absoluteKeywordLocation: String
    /// The keyword's name (`maximum`, `oneOf`).
    package var keyword: String
    /// What was expected and what was found, for a person.
    package var message: String
    /// The member the error is about when it is not at ``instanceLocation`` itself: a `required` (or
    /// `dependentRequired`) property that is missing from the object there.
    package var property: String?

    package var description: String {
        "\(instanceLocation.isEmpty ? "/" : instanceLocation): \(keyword): \(message)"
    }
}

/// Why a schema cannot be compiled: the place in the schema and what is wrong, as an ``InputError``.
package typealias SchemaError = InputError

/// A validation that stopped before a verdict: a limit was reached (a pattern's time limit, evaluation depth).
package struct ValidationLimitError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The instance location being judged when the limit was reached.
    package var instanceLocation: String
    /// The keyword's schema location.
    var absoluteKeywordLocation: String
    /// What limit, in words.
    package var message: String

    package var description: String {
        "\(instanceLocation.isEmpty ? "/" : instanceLocation): not judged: \(message) (schema \(absoluteKeywordLocation))"
    }
}

/// How a schema is read.
package struct SchemaOptions: Sendable {
    /// The dialect of a schema without `$schema`.
    package var defaultDialect: Dialect = .draft2020_12
    /// Whether `format` is an assertion (a string that is not a valid `date-time` fails). apiprobe asserts by
    /// default: a contract names a format because the client parses it. Unknown formats never fail.
    package var assertsFormat = true
    /// The URI of the root document, against which relative `$id` and `$ref` resolve.
    package var baseURI = "apiprobe:///schema.json"
    /// The schema is checked against its dialect's metaschema before it is compiled, so a misspelt keyword value
    /// (`"minimum": "10"`) is an error naming its place rather than a keyword ignored.
    package var checksAgainstMetaschema = true
    /// Which way the instance travels, for `readOnly` and `writeOnly` (OpenAPI): a property hidden in that direction
    /// is not required. `nil`: both count.
    package var direction: MessageDirection?
    /// Said after a reference to a document that is neither in the schema nor one the validator may read
    /// (OpenAPI: "external references are not read; bundle the description into one file").
    package var unreadableReferenceAdvice: String?
    /// How long one `pattern` match may run before validation stops with ``ValidationLimitError`` (a pattern ICU
    /// matches: a regular one is answered by `ECMARegex`'s automaton in bounded time).
    var patternTimeLimit: Duration = .seconds(1)
    /// A pattern that is not valid with the `u` flag but is in ECMA-262's Annex B (the syntax real descriptions'
    /// patterns are written and tested in, without the flag) is compiled by Annex B instead of refused. Whoever sets
    /// this says so: ``legacyPattern(in:)`` tells which patterns need it. Off for JSON Schema as such.
    package var acceptsAnnexBPatterns = false

    package init() {}
}

/// Which way a message travels, for `readOnly` (not in requests) and `writeOnly` (not in responses).
package enum MessageDirection: Sendable, Hashable {
    case request
    case response
}

/// A keyword the validator ignored because the schema's dialect does not define it, with where it is.
package struct IgnoredKeyword: Sendable, Hashable, CustomStringConvertible {
    /// The keyword's location in the schema: resource URI and JSON Pointer fragment.
    package var location: String
    package var keyword: String
    /// Why it was ignored (`not a keyword of draft-07`, `beside $ref, which hides it in draft-07`).
    package var reason: String

    /// The JSON Pointer of the keyword in its document: the location's fragment, then the keyword.
    package var pointer: String {
        let fragment = location.firstIndex(of: "#").map { String(location[location.index(after: $0)...]) } ?? ""
        return fragment + "/" + JSONPointer.escape(keyword)
    }

    package var description: String { "\(location): \(keyword): \(reason)" }
}

extension ValidationLimitError: ExitStatusReporting {
    /// A schema or document beyond the validator's limits (its nesting, its size): bad input, status 2.
    package var exitStatus: ExitStatus { .badInput }
}

extension SchemaOptions {
    /// Why `pattern` needs ``acceptsAnnexBPatterns``: the `u` flag's error, when the pattern is valid in Annex B and
    /// not with the flag; `nil` otherwise (valid with the flag, or valid in neither).
    package static func legacyPattern(_ pattern: String) -> String? {
        do {
            _ = try ECMARegex(pattern)
            return nil
        } catch {
            guard (try? ECMARegex(pattern, annexB: true)) != nil else { return nil }
            return "\(error)"
        }
    }
}
