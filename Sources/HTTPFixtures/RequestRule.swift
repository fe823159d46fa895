import APIProbeShared

/// A parameter an operation declares, as the request rule reads it.
package protocol DeclaredParameter {
    /// `path`, `query`, `header` or `cookie`.
    var location: String { get }
    var name: String { get }
    var isRequired: Bool { get }
}

/// The one rule by which a request is checked against the operation it calls, shared by `apiprobe openapi
/// check` (recorded fixtures against the spec) and ContractTesting's `expectRequestsConform` (a client's
/// requests against `operations.json`); each brings its own schema check for a value.
///
/// - A required path, query or header parameter that is not sent is missing.
/// - Each value sent is checked against its parameter's schema.
/// - A query parameter the operation does not declare is reported once.
/// - `Accept`, `Content-Type` and `Authorization` are not parameters (OpenAPI ignores them); a header value
///   the redactor masked is present but not checked, and so is a path value that is a placeholder (`{storeId}`,
///   which the Postman import keeps for a variable with no value).
/// - A required request body that is not sent is missing.
package enum RequestRule {
    /// Whether a header parameter named so is one OpenAPI ignores (`Accept`, `Content-Type`, `Authorization`: the
    /// media types and the security scheme say them): never checked as a parameter, and never a change in
    /// `openapi diff`.
    package static func ignores(headerParameter name: String) -> Bool {
        ["accept", "content-type", "authorization"].contains(name.lowercased())
    }

    package struct Problem: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            case parameter, requestBody
        }

        /// `/query/sort`, `/path/id`, `/header/X-Page`, `/body`.
        package var pointer: String
        package var kind: Kind
        /// What is wrong, without the pointer: `query parameter "sort" is not declared`.
        package var message: String
    }

    /// The problems of a request's parameters.
    ///
    /// - Parameters:
    ///   - query: the query items in order (a name may repeat).
    ///   - pathValues: the values the path template matched.
    ///   - header: a header's value by name (any case), or `nil`.
    ///   - check: the problems of one value against its parameter's schema: a pointer below the parameter
    ///     (often empty) and what is wrong.
    package static func parameterProblems<Parameter: DeclaredParameter>(
        _ parameters: [Parameter],
        query: [(name: String, value: String)],
        pathValues: [String: String],
        header: (String) -> String?,
        check: (Parameter, String) -> [(pointer: String, message: String)]
    ) -> [Problem] {
        var problems: [Problem] = []
        for parameter in parameters {
            let place = "/\(parameter.location)/" + JSONPointer.escape(parameter.name)
            let values: [String]
            switch parameter.location {
            case "path":
                // The placeholder an importer keeps for a path variable it had no value for (`{storeId}`):
                // present, and not checked against the schema, as a masked value.
                if let value = pathValues[parameter.name], value.count > 2, value.first == "{", value.last == "}",
                    !value.dropFirst().dropLast().contains(where: { $0 == "{" || $0 == "}" })
                {
                    continue
                }
                values = pathValues[parameter.name].map { [$0] } ?? []
            case "query":
                values = query.filter { $0.name == parameter.name }.map(\.value)
            case "header":
                guard !ignores(headerParameter: parameter.name) else { continue }
                guard let value = header(parameter.name) else {
                    values = []
                    break
                }
                // Sent, but masked by the redactor: present, and not checked against the schema.
                if value == RedactionPolicy.default.marker { continue }
                values = [value]
            default:
                continue
            }
            if values.isEmpty {
                if parameter.isRequired {
                    problems.append(
                        Problem(
                            pointer: place, kind: .parameter,
                            message: "required \(parameter.location) parameter \"\(parameter.name)\" is missing"))
                }
                continue
            }
            for value in values {
                for found in check(parameter, value) {
                    problems.append(
                        Problem(
                            pointer: place + found.pointer, kind: .parameter,
                            message: "\(parameter.location) parameter \"\(parameter.name)\": \(found.message)"))
                }
            }
        }
        let declared = Set(parameters.filter { $0.location == "query" }.map(\.name))
        var reported = Set<String>()
        for item in query where !declared.contains(item.name) && reported.insert(item.name).inserted {
            problems.append(
                Problem(
                    pointer: "/query/" + JSONPointer.escape(item.name), kind: .parameter,
                    message: "query parameter \"\(item.name)\" is not declared"))
        }
        return problems
    }

    /// A required request body that was not sent; `nil` otherwise (a body sent is checked by the caller's
    /// schema check).
    package static func missingBody(isRequired: Bool, isSent: Bool) -> Problem? {
        guard isRequired, !isSent else { return nil }
        return Problem(pointer: "/body", kind: .requestBody, message: "the request body is required")
    }
}
