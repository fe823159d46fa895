import APIProbeShared
public import Foundation

/// A Postman collection (format v2.1, or v2.0) read as fixtures: one ``Exchange`` per saved example response,
/// redacted, named after its request.
///
/// Folders are walked in order. An example's `originalRequest` is its request (the item's own request when it
/// has none); `{{variables}}` are replaced from the collection's `variable` list and from `variables` (which
/// win: a Postman environment's values), `:name` path variables from the URL's `variable` list. A request's
/// `auth` (or the collection's, which requests inherit) becomes the header or query item it stands for, so it
/// is redacted like any credential. Requests with no saved example are listed in ``skipped``.
///
/// ```swift
/// let collection = try PostmanCollection(parsing: Data(contentsOf: url), file: "github.postman_collection.json")
/// for entry in collection.entries {
///     try store.write(entry.exchange, named: "github/\(entry.name)")   // github/list-issues, github/list-issues.2
/// }
/// ```
public struct PostmanCollection: Sendable {
    /// One imported example.
    public struct Entry: Sendable, Hashable {
        /// A file name from the request's name, unique in the collection: `list-issues`, then `list-issues.2`, …
        /// (the examples of one request are samples of one endpoint).
        public var name: String
        /// The redacted exchange, with `metadata.source` `"postman"`.
        public var exchange: Exchange
        /// Where the example is in the collection: `/item/0/item/2/response/1`.
        public var pointer: String
    }

    /// The collection's name (`info.name`).
    public var name: String
    /// The imported examples, in collection order.
    public var entries: [Entry]
    /// Requests that were not imported, with the reason: `/item/3 (Delete a label): no saved example response`.
    public var skipped: [String]

    /// Reads a collection.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name used in errors.
    ///   - variables: values for `{{name}}` placeholders, over the collection's own.
    ///   - policy: the redaction applied to every example.
    /// - Throws: ``FixtureError``: the line and column of a JSON syntax error, or the JSON Pointer of a field that
    ///   is missing, mistyped or names a variable that has no value.
    public init(
        parsing data: Data, file: String, variables: [String: String] = [:],
        redactingWith policy: RedactionPolicy = .default
    ) throws(FixtureError) {
        try self.init(parsing: data, file: file, variables: variables, redactingWith: policy, naming: FixtureNaming())
    }

    /// Reads a collection, naming its examples with `naming` (`--name`, `--template`).
    package init(
        parsing data: Data, file: String, variables: [String: String], redactingWith policy: RedactionPolicy,
        naming: FixtureNaming
    ) throws(FixtureError) {
        let reader = PostmanReader(file: file)
        let document = try reader.parse(data)
        guard case .object = document else {
            throw reader.fail(
                "", "a Postman collection (an object with \"info\" and \"item\")", document.briefDescription)
        }
        let info = try reader.object(reader.required(document, "info", in: ""), at: "/info")
        name = try reader.string(reader.required(info, "name", in: "/info"), at: "/info/name")
        if let schema = info["schema"] {
            let text = try reader.string(schema, at: "/info/schema")
            guard text.contains("/v2.1") || text.contains("/v2.0") else {
                throw reader.fail(
                    "/info/schema", "a Postman collection of format v2.1 or v2.0 (export it as Collection v2.1)",
                    "string \"\(text)\"")
            }
        }
        var values: [String: String] = [:]
        if let list = document["variable"] {
            values = try reader.keyValues(list, at: "/variable", keyField: "key")
        }
        values.merge(variables) { $1 }
        let collectionAuth = try document["auth"].map { value throws(FixtureError) in
            try reader.object(value, at: "/auth")
        }

        let redactor = Redactor(policy)
        // A variable named like a credential (`token`, `apiKey`, `client_secret`) holds a secret wherever its
        // value is used; a base URL or an id does not.
        for (key, value) in values where policy.isSensitiveParameter(key) || policy.isSensitiveBodyKey(key) {
            redactor.learn(value)
        }
        var found: [(exchange: Exchange, requestName: String, pointer: String)] = []
        var skipped: [String] = []
        try reader.walk(
            reader.array(reader.required(document, "item", in: ""), at: "/item"), at: "/item",
            inherited: collectionAuth, values: values, redactor: redactor, into: &found, skipped: &skipped)
        for item in found { redactor.learnSecrets(in: item.exchange) }

        let bases = found.map { item in
            let request = item.exchange.request
            let fallback = SafePath.fileName(FixtureNaming.slug(item.requestName), fallback: "")
            return (
                key: "",
                base: naming.baseName(
                    method: request.method, url: request.url,
                    fallback: fallback.isEmpty
                        ? FixtureNaming.methodAndPath(method: request.method, url: request.url) : fallback)
            )
        }
        entries = zip(found, FixtureNaming.numbered(bases)).map { item, name in
            Entry(name: name, exchange: redactor.redact(item.exchange), pointer: item.pointer)
        }
        self.skipped = skipped
    }
}

private struct PostmanReader: JSONFieldReading {
    let file: String

    func string(_ value: JSONValue, at pointer: String) throws(FixtureError) -> String {
        switch value {
        case .string(let text): return text
        case .number(let literal): return literal  // Postman writes some values (ports, variables) as numbers
        case .bool(let flag): return flag ? "true" : "false"
        default: throw fail(pointer, "a string", value.briefDescription)
        }
    }

    /// `[{"key": …, "value": …, "disabled": true?}]`, enabled pairs only; Postman's `value` may be missing.
    func pairs(_ value: JSONValue, at pointer: String, keyField: String) throws(FixtureError) -> [(String, String)] {
        var result: [(String, String)] = []
        for (index, item) in try array(value, at: pointer).enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let pair = try object(item, at: itemPointer)
            if case .bool(true)? = pair["disabled"] { continue }
            let key = try string(required(pair, keyField, in: itemPointer), at: "\(itemPointer)/\(keyField)")
            let text = try pair["value"].map { value throws(FixtureError) in
                try string(value, at: "\(itemPointer)/value")
            }
            result.append((key, text ?? ""))
        }
        return result
    }

    func keyValues(_ value: JSONValue, at pointer: String, keyField: String) throws(FixtureError) -> [String: String] {
        var result: [String: String] = [:]
        for (key, text) in try pairs(value, at: pointer, keyField: keyField) { result[key] = text }
        return result
    }

    /// `text` with every `{{name}}` replaced; a name with no value is an error naming it.
    func substitute(_ text: String, _ values: [String: String], at pointer: String) throws(FixtureError) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                result += rest[open.lowerBound...]
                return result
            }
            let name = String(rest[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
            guard let value = values[name] else {
                throw fail(
                    pointer,
                    "a value for the variable {{\(name)}} (in the collection's \"variable\" list, or --var \(name)=…)",
                    "none")
            }
            result += value
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    func walk(
        _ items: [JSONValue], at pointer: String, inherited: JSONValue?, values: [String: String], redactor: Redactor,
        into found: inout [(exchange: Exchange, requestName: String, pointer: String)], skipped: inout [String]
    ) throws(FixtureError) {
        for (index, value) in items.enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let item = try object(value, at: itemPointer)
            let name =
                try item["name"].map { value throws(FixtureError) in
                    try string(value, at: "\(itemPointer)/name")
                } ?? "request \(index + 1)"
            let auth =
                try item["auth"].map { value throws(FixtureError) in
                    try object(value, at: "\(itemPointer)/auth")
                } ?? inherited
            if let children = item["item"] {
                try walk(
                    array(children, at: "\(itemPointer)/item"), at: "\(itemPointer)/item", inherited: auth,
                    values: values, redactor: redactor, into: &found, skipped: &skipped)
                continue
            }
            let request = try required(item, "request", in: itemPointer)
            let responses =
                try item["response"].map { value throws(FixtureError) in
                    try array(value, at: "\(itemPointer)/response")
                } ?? []
            guard !responses.isEmpty else {
                skipped.append("\(itemPointer) (\(name)): no saved example response")
                continue
            }
            for (offset, responseValue) in responses.enumerated() {
                let responsePointer = "\(itemPointer)/response/\(offset)"
                let response = try object(responseValue, at: responsePointer)
                let original = response["originalRequest"]
                let recorded = try self.request(
                    original ?? request,
                    at: original == nil ? "\(itemPointer)/request" : "\(responsePointer)/originalRequest",
                    auth: auth, values: values, redactor: redactor)
                let exchange = try self.exchange(
                    recorded, response: response, at: responsePointer, values: values)
                found.append((exchange, name, responsePointer))
            }
        }
    }

    /// The request an example was saved for: method, URL, headers and body, auth applied.
    func request(
        _ value: JSONValue, at pointer: String, auth: JSONValue?, values: [String: String], redactor: Redactor
    ) throws(FixtureError) -> RecordedRequest {
        if case .string(let url) = value {
            return RecordedRequest(
                method: "GET", url: try absoluteURL(url, at: pointer, values: values, redactor: redactor))
        }
        let request = try object(value, at: pointer)
        let method =
            try request["method"].map { value throws(FixtureError) in
                try string(value, at: "\(pointer)/method")
            } ?? "GET"
        guard HARArchive.isMethod(method) else {
            throw fail(
                "\(pointer)/method", "an HTTP method (a token such as GET or POST)",
                method.isEmpty ? "an empty string" : "string \"\(redactor.redact(text: method).prefix(80))\"")
        }
        var url = try self.url(required(request, "url", in: pointer), at: "\(pointer)/url", values: values)
        var headers: [String: String] = [:]
        if let list = request["header"], case .array = list {
            for (key, text) in try pairs(list, at: "\(pointer)/header", keyField: "key") {
                headers[key] = try substitute(text, values, at: "\(pointer)/header")
            }
        }
        if let auth =
            (try request["auth"].map { value throws(FixtureError) in try object(value, at: "\(pointer)/auth") })
            ?? auth
        {
            try apply(auth, to: &headers, url: &url, at: "\(pointer)/auth", values: values)
        }
        var body: Body?
        if let bodyValue = request["body"] {
            body = try self.body(bodyValue, at: "\(pointer)/body", headers: &headers, values: values)
        }
        return RecordedRequest(
            method: method, url: try absoluteURL(url, at: "\(pointer)/url", values: [:], redactor: redactor),
            headers: headers, body: body)
    }

    /// A URL from Postman's string or object form, variables replaced.
    func url(_ value: JSONValue, at pointer: String, values: [String: String]) throws(FixtureError) -> String {
        if case .string(let text) = value { return try substitute(text, values, at: pointer) }
        let url = try object(value, at: pointer)
        var pathValues = values
        if let variables = url["variable"] {
            for (key, text) in try pairs(variables, at: "\(pointer)/variable", keyField: "key") {
                pathValues[":" + key] = try substitute(text, values, at: "\(pointer)/variable")
            }
        }
        var text: String
        if let raw = url["raw"] {
            text = try substitute(string(raw, at: "\(pointer)/raw"), values, at: "\(pointer)/raw")
        } else {
            let scheme =
                try url["protocol"].map { value throws(FixtureError) in
                    try string(value, at: "\(pointer)/protocol")
                } ?? "https"
            let host = try joined(url["host"], separator: ".", at: "\(pointer)/host")
            let port = try url["port"].map { value throws(FixtureError) in try string(value, at: "\(pointer)/port") }
            let path = try joined(url["path"], separator: "/", at: "\(pointer)/path")
            text = "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")/\(path)"
            if let query = url["query"] {
                let items = try pairs(query, at: "\(pointer)/query", keyField: "key")
                if !items.isEmpty {
                    text += "?" + items.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
                }
            }
            text = try substitute(text, values, at: pointer)
        }
        // `:owner` path segments take the URL's own variables.
        if pathValues.keys.contains(where: { $0.hasPrefix(":") }), var components = URLComponents(string: text) {
            components.percentEncodedPath = components.percentEncodedPath.split(
                separator: "/", omittingEmptySubsequences: false
            )
            .map { segment in
                pathValues[String(segment)].map {
                    $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0
                } ?? String(segment)
            }
            .joined(separator: "/")
            text = components.string ?? text
        }
        return text
    }

    func joined(_ value: JSONValue?, separator: String, at pointer: String) throws(FixtureError) -> String {
        switch value {
        case nil: return ""
        case .array(let parts)?:
            var texts: [String] = []
            for (index, part) in parts.enumerated() { texts.append(try string(part, at: "\(pointer)/\(index)")) }
            return texts.joined(separator: separator)
        case let other?: return try string(other, at: pointer)
        }
    }

    func absoluteURL(_ text: String, at pointer: String, values: [String: String], redactor: Redactor)
        throws(FixtureError)
        -> String
    {
        let url = try substitute(text, values, at: pointer)
        guard let components = URLComponents(string: url), components.scheme != nil, components.host != nil else {
            redactor.learnURL(url)
            throw fail(
                pointer, "an absolute URL (set the base URL's variable with --var)",
                "string \"\(redactor.redactURL(url))\"")
        }
        return url
    }

    /// Postman's `auth` as the header or query item it sends: bearer, basic, API key.
    func apply(
        _ auth: JSONValue, to headers: inout [String: String], url: inout String, at pointer: String,
        values: [String: String]
    ) throws(FixtureError) {
        let type = try string(required(auth, "type", in: pointer), at: "\(pointer)/type")
        func settings() throws(FixtureError) -> [String: String] {
            guard let list = auth[type] else { return [:] }
            guard case .array = list else { return [:] }
            var result: [String: String] = [:]
            for (key, text) in try pairs(list, at: "\(pointer)/\(type)", keyField: "key") {
                result[key] = try substitute(text, values, at: "\(pointer)/\(type)")
            }
            return result
        }
        switch type {
        case "bearer":
            if let token = try settings()["token"] { headers["Authorization"] = "Bearer \(token)" }
        case "basic":
            let parts = try settings()
            let credential = "\(parts["username"] ?? ""):\(parts["password"] ?? "")"
            headers["Authorization"] = "Basic " + Data(credential.utf8).base64EncodedString()
        case "apikey":
            let parts = try settings()
            guard let key = parts["key"], let value = parts["value"] else { return }
            if parts["in"] == "query" {
                url += (url.contains("?") ? "&" : "?") + "\(key)=\(value)"
            } else {
                headers[key] = value
            }
        default:
            break  // noauth, inherit, and schemes that sign requests (AWS, OAuth 1): nothing to record
        }
    }

    /// A request body: raw text (JSON when it parses), url-encoded or form data as text.
    func body(
        _ value: JSONValue, at pointer: String, headers: inout [String: String], values: [String: String]
    ) throws(FixtureError) -> Body? {
        let body = try object(value, at: pointer)
        let mode =
            try body["mode"].map { value throws(FixtureError) in try string(value, at: "\(pointer)/mode") } ?? "raw"
        let contentType = headers.first { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value
        switch mode {
        case "raw":
            guard let raw = body["raw"] else { return nil }
            let text = try substitute(string(raw, at: "\(pointer)/raw"), values, at: "\(pointer)/raw")
            return text.isEmpty ? nil : Body(bytes: Data(text.utf8), contentType: contentType)
        case "urlencoded":
            guard let list = body["urlencoded"] else { return nil }
            let items = try pairs(list, at: "\(pointer)/urlencoded", keyField: "key")
            if contentType == nil { headers["Content-Type"] = "application/x-www-form-urlencoded" }
            return .text(items.map { "\($0.0)=\($0.1)" }.joined(separator: "&"))
        case "formdata":
            guard let list = body["formdata"] else { return nil }
            let items = try pairs(list, at: "\(pointer)/formdata", keyField: "key")
            return .text(items.map { "\($0.0)=\($0.1)" }.joined(separator: "\n"))
        case "graphql":
            guard let graphql = body["graphql"] else { return nil }
            return .json(graphql)
        default:
            return nil  // file uploads: the file is not in the collection
        }
    }

    /// An example response as an exchange.
    func exchange(
        _ request: RecordedRequest, response: JSONValue, at pointer: String, values: [String: String]
    ) throws(FixtureError) -> Exchange {
        let code = try required(response, "code", in: pointer)
        guard case .number(let literal) = code, let status = Int(literal) else {
            throw fail("\(pointer)/code", "an integer status", code.briefDescription)
        }
        guard (100...599).contains(status) else {
            throw fail("\(pointer)/code", "an HTTP status from 100 to 599", "integer \(status)")
        }
        var headers: [String: String] = [:]
        if let list = response["header"], case .array = list {
            for (key, text) in try pairs(list, at: "\(pointer)/header", keyField: "key") {
                let lower = key.lowercased()
                if ["content-encoding", "content-length", "transfer-encoding", "connection"].contains(lower) {
                    continue
                }
                headers[key] = text
            }
        }
        let text =
            try response["body"].map { value throws(FixtureError) in
                try string(value, at: "\(pointer)/body")
            } ?? ""
        return Exchange(
            method: request.method, url: request.url, requestHeaders: request.headers,
            requestBody: request.body?.data, status: status, responseHeaders: headers,
            responseBody: Data(text.utf8), source: "postman")
    }
}
