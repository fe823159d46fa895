import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONSchemaValidation
import JSONShape

/// What kind of violation a fixture has; the raw values are those of `openapi check --format json`.
package struct ViolationKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    /// A value of a type the schema does not allow (`null` included).
    static let type = ViolationKind(rawValue: "type")
    /// A required property is missing.
    static let required = ViolationKind(rawValue: "required")
    /// A value outside the schema's `enum` (or `const`).
    static let `enum` = ViolationKind(rawValue: "enum")
    /// A property the schema does not declare, where `additionalProperties` is `false`.
    static let additional = ViolationKind(rawValue: "additional")
    /// A string that does not fit the schema's `format`.
    static let format = ViolationKind(rawValue: "format")
    /// The response status is not among the operation's responses.
    static let statusUndeclared = ViolationKind(rawValue: "status-undeclared")
    /// A path, query or header parameter missing, undeclared (query), or of the wrong type.
    static let parameter = ViolationKind(rawValue: "parameter")
    /// The request body is missing or does not fit its schema.
    static let requestBody = ViolationKind(rawValue: "request-body")
    /// No operation of the spec has the fixture's method and path.
    static let noOperation = ViolationKind(rawValue: "no-operation")

    package var description: String { rawValue }
}

/// One way a fixture breaks the spec.
///
/// ```
/// Stubs/recipes/get.json: GET /api/get: /recipe/title: type: expected string, found null
/// ```
package struct SpecViolation: Sendable, Hashable, CustomStringConvertible {
    /// The fixture file.
    var file: String
    /// The operation (`GET /api/get`); empty when none matched.
    var operation: String
    /// A JSON Pointer into the response body, the request body (`/body/…`) or the parameters
    /// (`/query/page`, `/path/id`, `/header/X-Request-Id`); `""` for the exchange as a whole.
    package var pointer: String
    package var kind: ViolationKind
    package var message: String

    package var description: String {
        let place = pointer.isEmpty ? "" : "\(pointer): "
        let operation = operation.isEmpty ? "" : "\(operation): "
        return "\(file): \(operation)\(place)\(kind): \(message)"
    }
}

/// The result of checking fixtures against a spec.
package struct SpecCheckReport: Sendable, Hashable {
    /// How many fixtures were read.
    package var fixtureCount: Int
    /// How many operations the spec has.
    package var operationCount: Int
    package var violations: [SpecViolation]
    /// The fixtures that match no operation.
    package var unmatched: [String]

    /// Whether every fixture matched an operation and fits it.
    package var passed: Bool { violations.isEmpty }

    /// `{"fixtures": N, "operations": N, "violations": [...], "unmatched": [...], "passed": bool}`, keys sorted,
    /// two-space indent, trailing newline.
    package func jsonReport() -> Data {
        let items: [JSONValue] = violations.map {
            .object([
                ("file", .string($0.file)), ("operation", .string($0.operation)), ("pointer", .string($0.pointer)),
                ("kind", .string($0.kind.rawValue)), ("message", .string($0.message)),
            ])
        }
        let report = JSONValue.object([
            ("fixtures", .number(String(fixtureCount))), ("operations", .number(String(operationCount))),
            ("violations", .array(items)), ("unmatched", .array(unmatched.map(JSONValue.string))),
            ("passed", .bool(passed)),
        ])
        return report.serialized(pretty: true, sortedKeys: true) + Data("\n".utf8)
    }
}

extension OpenAPISpec {
    /// The fixtures a spec of the API `api` is checked against: `<stubs>/<api>/` when the folder holds one of
    /// that name (the other folders are other APIs' fixtures), else the whole folder.
    ///
    /// ```swift
    /// let store = OpenAPISpec.fixtures(of: "recipes", in: URL(fileURLWithPath: "Stubs"))  // Stubs/recipes
    /// ```
    package static func fixtures(of api: String, in stubs: URL) -> FixtureStore {
        let folder = stubs.appendingPathComponent(SafePath.fileName(api, fallback: "api"), isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return FixtureStore(directory: folder)
        }
        return FixtureStore(directory: stubs)
    }

    /// Checks every fixture in `store`: the request's method and path match an operation, its path and query
    /// parameters and JSON body fit, the response status is declared and its JSON body fits that status's schema.
    /// The request of a fixture that records a declared 4xx answer is not checked: it is a bad request on purpose.
    ///
    /// ```swift
    /// let report = try spec.check(FixtureStore(directory: URL(fileURLWithPath: "Stubs/recipes")))
    /// report.passed  // true when every fixture is truthful to the spec
    /// ```
    /// - Parameters:
    ///   - store: the fixtures.
    ///   - redactor: masks secrets in the messages (a fixture URL's credentials).
    ///   - displayRoot: the fixtures are named relative to it (the current folder by default).
    /// - Throws: ``InputError`` for a fixture that cannot be read.
    ///   - assertsFormat: whether `format` fails a value that does not fit it (the default); `false` reads it as an
    ///     annotation, as JSON Schema's own default is.
    package func check(
        _ store: FixtureStore, redactor: Redactor = Redactor(), displayRoot: URL? = nil, assertsFormat: Bool = true
    ) throws(InputError) -> SpecCheckReport {
        let names = store.names()
        var violations: [SpecViolation] = []
        var unmatched: [String] = []
        let validator = validators
        let formats = assertsFormat
        for name in names {
            let url = store.url(for: name)
            let fileName = APIProbeShared.displayPath(url, relativeTo: displayRoot)
            let exchange = try Exchange.load(from: url, displayName: fileName)
            let method = exchange.request.method.uppercased()
            guard let (operation, pathValues) = self.operation(method: method, url: exchange.request.url) else {
                unmatched.append(fileName)
                let path = redactor.redact(text: Self.path(of: exchange.request.url))
                violations.append(
                    SpecViolation(
                        file: fileName, operation: "", pointer: "", kind: .noOperation,
                        message: "no operation for \(method) \(path)"))
                continue
            }
            var found: [SchemaProblem] = []
            // A fixture that records a declared 4xx answer records a bad request on purpose: its request is
            // not checked, its response is.
            let status = exchange.response.status
            if !((400..<500).contains(status) && operation.response(for: status) != nil) {
                found += try requestProblems(
                    operation, exchange.request, pathValues: pathValues, validator, assertsFormat: formats)
            }
            found += try responseProblems(operation, exchange.response, validator, assertsFormat: formats)
            violations += found.map {
                SpecViolation(
                    file: fileName, operation: operation.name, pointer: $0.pointer, kind: $0.kind,
                    message: redactor.redact(text: $0.message))
            }
        }
        return SpecCheckReport(
            fixtureCount: names.count, operationCount: operations.count, violations: violations,
            unmatched: unmatched)
    }

    /// Compiles every schema of the description for both directions now, so that a schema that is not one is an
    /// error before `serve` answers its first request.
    ///
    /// - Throws: ``InputError`` naming the description and the schema's place.
    package func compileSchemas() throws(InputError) {
        _ = try validators.schema(at: "", direction: .request)
        _ = try validators.schema(at: "", direction: .response)
    }

    /// What a request gets wrong for its operation: its parameters and its JSON body. The one request rule of
    /// `openapi check` and `apiprobe serve --validate-requests`.
    func requestProblems(
        _ operation: SpecOperation, _ request: RecordedRequest, pathValues: [String: String],
        _ validator: SpecValidators, assertsFormat: Bool = true
    ) throws(InputError) -> [SchemaProblem] {
        try parameterProblems(operation, request, pathValues: pathValues, validator, assertsFormat: assertsFormat)
            + requestBodyProblems(operation, request.body, validator, assertsFormat: assertsFormat)
    }

    /// The operation `request` reaches and what the request gets wrong for it (as `openapi check` judges a
    /// fixture's request); `nil` when it reaches no operation.
    ///
    /// - Throws: ``InputError`` for a schema of the description that is not one (named with its place).
    package func requestProblems(_ request: RecordedRequest) throws(InputError)
        -> (operation: SpecOperation, problems: [SpecViolation])?
    {
        guard let (operation, pathValues) = self.operation(method: request.method.uppercased(), url: request.url)
        else { return nil }
        let problems = try requestProblems(operation, request, pathValues: pathValues, validators).map {
            SpecViolation(file: "", operation: operation.name, pointer: $0.pointer, kind: $0.kind, message: $0.message)
        }
        return (operation, problems)
    }

    /// Path, query and header parameters, by the request rule shared with ContractTesting (HTTPFixtures'
    /// `RequestRule`), each value against its schema as written.
    private func parameterProblems(
        _ operation: SpecOperation, _ request: RecordedRequest, pathValues: [String: String],
        _ validator: SpecValidators, assertsFormat: Bool
    ) throws(InputError) -> [SchemaProblem] {
        let query = (URLComponents(string: request.url)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let header = { (name: String) in request.header(name) }
        var schemaError: InputError?
        let problems = RequestRule.parameterProblems(
            operation.parameters, query: query, pathValues: pathValues, header: header
        ) { parameter, text in
            guard let schema = parameter.schema else { return [] }
            let value = Self.parameterValue(text, schema: schema, shape: parameter.shape)
            do {
                return try validator.problems(
                    of: value, against: parameter.schemaPointer, direction: .request, assertsFormat: assertsFormat
                ).map {
                    ($0.pointer, $0.message)
                }
            } catch let error as InputError {
                schemaError = error
                return []
            } catch {
                return []
            }
        }
        if let schemaError { throw schemaError }
        return problems.map { SchemaProblem(pointer: $0.pointer, kind: .parameter, message: $0.message) }
    }

    /// A parameter's text as the JSON value its schema's type reads it as (`2` → an integer).
    static func parameterValue(_ text: String, schema: JSONValue, shape: JSONShape.ShapeNode) -> JSONValue {
        let types = shape.types
        if types.contains(.integer) || types.contains(.number), Double(text) != nil { return .number(text) }
        if types.contains(.boolean), text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    private func requestBodyProblems(
        _ operation: SpecOperation, _ body: FixtureBody?, _ validator: SpecValidators, assertsFormat: Bool
    ) throws(InputError) -> [SchemaProblem] {
        guard let requestBody = operation.requestBody else { return [] }
        if let missing = RequestRule.missingBody(isRequired: requestBody.isRequired, isSent: body != nil) {
            return [SchemaProblem(pointer: missing.pointer, kind: .requestBody, message: missing.message)]
        }
        guard let body else { return [] }
        guard requestBody.schema != nil else { return [] }
        guard case .json(let value) = body else {
            // A JSON-only operation that gets other bytes (a truncated document, text/plain) is not a pass.
            guard requestBody.acceptsOnlyJSON else { return [] }
            return [
                SchemaProblem(
                    pointer: "/body", kind: .requestBody,
                    message: "expected a JSON request body, found \(body.data.count) bytes of other data")
            ]
        }
        return try validator.problems(
            of: value, against: requestBody.schemaPointer, direction: .request, assertsFormat: assertsFormat
        ).map {
            SchemaProblem(pointer: "/body" + $0.pointer, kind: .requestBody, message: "\($0.kind): \($0.message)")
        }
    }

    private func responseProblems(
        _ operation: SpecOperation, _ response: RecordedResponse, _ validator: SpecValidators, assertsFormat: Bool
    ) throws(InputError) -> [SchemaProblem] {
        guard let declared = operation.response(for: response.status) else {
            let statuses = operation.responses.map(\.status).joined(separator: ", ")
            return [
                SchemaProblem(
                    pointer: "", kind: .statusUndeclared,
                    message:
                        "status \(response.status) is not declared (declared: \(statuses.isEmpty ? "none" : statuses))")
            ]
        }
        guard declared.schema != nil, case .json(let value)? = response.body else { return [] }
        return try validator.problems(
            of: value, against: declared.schemaPointer, direction: .response, assertsFormat: assertsFormat)
    }
}

extension SpecParameter: DeclaredParameter {}
