import APIProbeShared
public import Foundation
import HTTPFixtures
public import HTTPStubs
import JSONSchemaValidation
import JSONShape

/// The operations of an API, as `apiprobe openapi import` wrote them from its OpenAPI description:
/// `Snapshots/<api>/operations.json`.
///
/// ```swift
/// expectRequestsConform(stubs.requests, to: .operations(of: "recipes"))
/// ```
public struct APIOperations: Sendable {
    let api: String
    let snapshots: URL?

    /// The operations file of `api`, `Snapshots/<api>/operations.json`, in the nearest `Snapshots/` folder
    /// above the calling test file (beside the nearest `Stubs/`) unless `snapshots` names the folder.
    public static func operations(of api: String, in snapshots: URL? = nil) -> APIOperations {
        APIOperations(api: api, snapshots: snapshots)
    }
}

/// Checks that every request a client made (through a `StubSet`: `stubs.requests`) is one the API's OpenAPI
/// description allows: an operation with its method and path exists, its required path, query and header
/// parameters are sent, no query parameter it does not declare is sent, each parameter's value and the JSON
/// body fit their schemas.
///
/// Each failing request is reported once, with the request, the operation and the JSON Pointer of what is
/// wrong (`/query/<name>`, `/path/<name>`, `/header/<name>`, `/body/…`):
///
/// ```swift
/// let stubs = StubSet()
/// stubs.stub(RequestMatcher(), response: .json(.object([])))
/// let session = URLSession(configuration: stubs.sessionConfiguration())
/// _ = try await session.data(from: URL(string: "https://recipes.example.com/api/search?q=chicken&sort=rank")!)
/// expectRequestsConform(stubs.requests, to: .operations(of: "recipes"))
/// ```
/// ```
/// GET https://recipes.example.com/api/search?q=chicken&sort=rank: GET /api/search: /query/sort: query parameter "sort" is not declared
/// POST https://recipes.example.com/api/rate: no such operation in Snapshots/recipes/operations.json
/// ```
public func expectRequestsConform(
    _ requests: [StubRequest],
    to operations: APIOperations,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    report(
        verifyRequestsConform(requests, to: operations, filePath: filePath),
        at: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// The pure verifier behind ``expectRequestsConform(_:to:fileID:filePath:line:column:)``: one failure, a line
/// per problem, when a request does not conform.
public func verifyRequestsConform(
    _ requests: [StubRequest], to operations: APIOperations, filePath: StaticString = #filePath
) -> ContractVerification {
    ContractVerification(failure: requestProblems(requests, to: operations, filePath: filePath))
}

/// The problems of `requests`, one a line, or `nil` when every request conforms.
private func requestProblems(
    _ requests: [StubRequest], to operations: APIOperations, filePath: StaticString
) -> String? {
    guard let folder = operations.snapshots ?? snapshotsFolder(relativeTo: filePath) else {
        return "\(filePath): expected a folder named Snapshots or Stubs in one of its parent folders, found none"
    }
    let url = folder.appendingPathComponent(operations.api, isDirectory: true)
        .appendingPathComponent(OperationsFile.fileName)
    let shown = displayPath(url)
    let file: OperationsFile
    do {
        guard let read = try OperationsFile.read(url, displayName: shown) else {
            return "\(shown): expected the operations file of \(operations.api) (apiprobe openapi import SPEC "
                + "--api \(operations.api) writes it), found no such file"
        }
        file = read
    } catch {
        return error.description
    }
    // Credentials in a URL (user-info, `api_key=…`) are masked, and those the requests send.
    let redactor = Redactor()
    var lines: [String] = []
    for request in requests {
        // The messages quote the values that break a schema: a credential the request sends (a header, a
        // `password` in its body) is learned first, so that none is repeated.
        redactor.learnHeaders(request.headers)
        if let body = request.body { redactor.learnBody(body, contentType: request.header("Content-Type")) }
        let target = "\(request.method) \(redactor.redactURL(request.url.absoluteString))"
        guard let (operation, pathValues) = file.operation(method: request.method, url: request.url.absoluteString)
        else {
            lines.append("\(target): no such operation in \(shown)")
            continue
        }
        for problem in RequestChecker.problems(
            of: request, against: operation, pathValues: pathValues, folder: url.deletingLastPathComponent())
        {
            lines.append("\(target): \(operation.name): \(redactor.redact(text: problem))")
        }
    }
    return lines.isEmpty ? nil : lines.joined(separator: "\n")
}

/// The parameter and body checks of one request, through the one JSON Schema validator.
enum RequestChecker {
    static func problems(
        of request: StubRequest, against operation: OperationsFile.Operation, pathValues: [String: String],
        folder: URL
    )
        -> [String]
    {
        let query = request.queryItems.map { ($0.name, $0.value ?? "") }
        var problems = RequestRule.parameterProblems(
            operation.parameters, query: query, pathValues: pathValues, header: { request.header($0) }
        ) { parameter, text in
            guard let schema = parameter.schema else { return [] }
            return conformance(of: parameterValue(text, schema: schema), to: schema, folder: folder).map { ("", $0) }
        }.map { "\($0.pointer): \($0.message)" }
        if let body = operation.requestBody {
            let data = request.body.flatMap { $0.isEmpty ? nil : $0 }
            if let missing = RequestRule.missingBody(isRequired: body.isRequired, isSent: data != nil) {
                problems.append("\(missing.pointer): \(missing.message)")
            } else if let data, let schema = body.schema {
                if (try? JSONValue(parsing: data)) == nil {
                    problems.append("/body: expected a JSON request body, found \(data.count) bytes of other data")
                } else {
                    problems += conformance(of: data, to: schema, at: "/body", folder: folder)
                }
            }
        }
        return problems
    }

    /// A parameter's text as JSON of the type its schema names (`2` → an integer).
    static func parameterValue(_ text: String, schema: JSONValue) -> Data {
        var types: [String] = []
        switch schema["type"] {
        case .string(let name)?: types = [name]
        case .array(let names)?: types = names.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default: break
        }
        if types.contains("integer") || types.contains("number"), Double(text) != nil,
            (try? JSONValue(parsing: Data(text.utf8))) != nil
        {
            return Data(text.utf8)
        }
        if types.contains("boolean"), text == "true" || text == "false" { return Data(text.utf8) }
        return JSONValue.string(text).serialized()
    }

    /// The ways `data` breaks `schema` (a schema of `operations.json`, its references read from `folder`), by the one
    /// JSON Schema validator: `<pointer>: <keyword>: <expected, found>`, or without the pointer when `prefix` is nil
    /// and the value is a scalar.
    static func conformance(of data: Data, to schema: JSONValue, at prefix: String? = nil, folder: URL) -> [String] {
        let errors: [JSONSchemaValidation.ValidationError]
        do {
            let compiled = try SchemaFile.compile(
                schema, at: folder.appendingPathComponent(OperationsFile.fileName),
                displayName: OperationsFile.fileName,
                inside: folder)
            errors = try compiled.validate(try JSONValue(parsing: data))
        } catch {
            return ["\(prefix ?? ""): cannot check: \(error)"]
        }
        return errors.map { error in
            var place = error.instanceLocation
            if let property = error.property { place += "/" + JSONPointer.escape(property) }
            guard let prefix else { return place.isEmpty ? error.message : "\(place): \(error.message)" }
            return "\(prefix)\(place): \(error.message)"
        }
    }
}
