import APIProbeShared
package import Foundation
package import HTTPFixtures

/// A HAR 1.2 file (browsers' developer tools, Charles, Proxyman) read as fixtures: one ``Exchange`` per entry,
/// redacted, with a name made from its method and path.
///
/// JSON bodies become inline JSON; `content.text` with `"encoding": "base64"` is decoded first. Entries the
/// browser never got an answer for (`status` 0) are skipped and listed in ``skipped``. Headers that describe
/// the wire rather than the body (`Content-Encoding`, `Content-Length`, `Transfer-Encoding`, HTTP/2
/// pseudo-headers) are dropped, since HAR stores the decoded body.
///
/// ```swift
/// let archive = try HARArchive(parsing: Data(contentsOf: url), file: "session.har")
/// for entry in archive.entries {
///     try store.write(entry.exchange, named: "\(entry.host)/\(entry.name)")  // api.example.com/get-api-search
/// }
/// ```
package struct HARArchive: Sendable {
    /// One imported entry.
    package struct Entry: Sendable, Hashable {
        /// A file name from the method and path, unique per host: `get-api-search`, then `get-api-search.2`, … (the
        /// samples of one endpoint: see the fixture file format's endpoint rule).
        package var name: String
        /// The request's host (`api.example.com`, with `:port` as `_port` when not the default), or `unknown-host`.
        package var host: String
        /// The redacted exchange, with `metadata.source` `"har"`.
        package var exchange: Exchange
        /// The entry's index in `/log/entries`.
        package var index: Int
    }

    /// The imported entries, in file order.
    package var entries: [Entry]
    /// Entries that were not imported, with the reason: `/log/entries/4: status 0 (no response)`.
    package var skipped: [String]

    /// Reads a HAR file.
    ///
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name used in errors.
    ///   - policy: the redaction applied to every entry.
    /// - Throws: ``InputError``: the line and column of a JSON syntax error, or the JSON Pointer of a missing or
    ///   mistyped field: `session.har: /log/entries/3/response/status: expected an integer, found string "x"`.
    package init(parsing data: Data, file: String, redactingWith policy: RedactionPolicy = .default)
        throws(InputError)
    {
        try self.init(parsing: data, file: file, redactingWith: policy, naming: FixtureNaming())
    }

    /// Reads a HAR file, naming its entries with `naming` (`--name`, `--template`, `--spec`) and importing only
    /// the entries one of `only` selects (all when it is empty).
    package init(
        parsing data: Data, file: String, redactingWith policy: RedactionPolicy, naming: FixtureNaming,
        only: [ImportSelection] = []
    ) throws(InputError) {
        let reader = HARReader(file: file)
        let document = try reader.parse(data)
        let log = try reader.object(reader.required(document, "log", in: ""), at: "/log")
        let entryValues = try reader.array(reader.required(log, "entries", in: "/log"), at: "/log/entries")
        var entries: [Entry] = []
        var skipped: [String] = []
        // Every secret of the archive is learned first, so one an entry names is masked in every entry.
        var exchanges: [(index: Int, exchange: Exchange)] = []
        var selectionsUsed = Set<ImportSelection>()
        let redactor = Redactor(policy)
        for (index, value) in entryValues.enumerated() {
            let pointer = "/log/entries/\(index)"
            guard let exchange = try reader.exchange(value, at: pointer, redactor: redactor) else {
                skipped.append("\(pointer): status 0 (no response)")
                continue
            }
            if !only.isEmpty {
                let chosen = only.filter {
                    $0.selects(method: exchange.request.method, url: exchange.request.url, basePaths: naming.basePaths)
                }
                guard !chosen.isEmpty else { continue }
                selectionsUsed.formUnion(chosen)
            }
            redactor.learnSecrets(in: exchange)
            exchanges.append((index, exchange))
        }
        for selection in only where !selectionsUsed.contains(selection) {
            throw InputError(
                file: file, position: .file,
                expected: "an entry that --only \(selection) selects (a path prefix or a template)",
                found: "none of the archive's \(entryValues.count) entries")
        }
        let bases = exchanges.map { item in
            let request = item.exchange.request
            let fallback = FixtureNaming.methodAndPath(method: request.method, url: request.url)
            return (
                key: Self.host(of: request.url),
                base: naming.baseName(method: request.method, url: request.url, fallback: fallback)
            )
        }
        for ((index, exchange), (base, name)) in zip(exchanges, zip(bases, FixtureNaming.numbered(bases))) {
            entries.append(Entry(name: name, host: base.key, exchange: redactor.redact(exchange), index: index))
        }
        self.entries = entries
        self.skipped = skipped
    }

    static func host(of url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            return "unknown-host"
        }
        let decoded = host.removingPercentEncoding ?? host
        let safe = String(
            decoded.lowercased().map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" })
        let name = SafePath.fileName(safe, fallback: "unknown-host")
        if let port = components.port { return "\(name)_\(port)" }
        return name
    }

    /// Whether `method` is an HTTP method as RFC 9110 writes one: a token of at most 32 characters.
    static func isMethod(_ method: String) -> Bool {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        return !method.isEmpty && method.count <= 32 && method.allSatisfy { tokenCharacters.contains($0) }
    }
}

private struct HARReader: JSONFieldReading {
    let file: String

    /// The exchange of one entry, or `nil` when the browser got no response (status 0).
    func exchange(_ entry: JSONValue, at pointer: String, redactor: Redactor) throws(InputError) -> Exchange? {
        let entry = try object(entry, at: pointer)
        let request = try object(required(entry, "request", in: pointer), at: "\(pointer)/request")
        let response = try object(required(entry, "response", in: pointer), at: "\(pointer)/response")

        let method = try string(required(request, "method", in: "\(pointer)/request"), at: "\(pointer)/request/method")
        guard HARArchive.isMethod(method) else {
            throw fail(
                "\(pointer)/request/method", "an HTTP method (a token such as GET or POST)",
                method.isEmpty ? "an empty string" : "string \"\(redactor.redact(text: method).prefix(80))\"")
        }
        let url = try string(required(request, "url", in: "\(pointer)/request"), at: "\(pointer)/request/url")
        guard let components = URLComponents(string: url), components.scheme != nil, components.host != nil else {
            redactor.learnURL(url)
            throw fail("\(pointer)/request/url", "an absolute URL", "string \"\(redactor.redactURL(url))\"")
        }
        let (requestHeaders, requestBody) = try message(request, at: "\(pointer)/request", bodyKey: "postData")

        let status = try integer(
            required(response, "status", in: "\(pointer)/response"), at: "\(pointer)/response/status")
        if status == 0 { return nil }
        guard (100...599).contains(status) else {
            throw fail("\(pointer)/response/status", "an HTTP status from 100 to 599", "integer \(status)")
        }
        let (responseHeaders, responseBody) = try message(response, at: "\(pointer)/response", bodyKey: "content")

        var metadata = FixtureMetadata(apiprobeVersion: apiprobeVersion, source: "har")
        if let started = entry["startedDateTime"] {
            metadata.recordedAt = try string(started, at: "\(pointer)/startedDateTime")
        }
        return Exchange(
            request: RecordedRequest(method: method, url: url, headers: requestHeaders, body: requestBody),
            response: RecordedResponse(status: status, headers: responseHeaders, body: responseBody),
            metadata: metadata
        )
    }

    /// A request's or a response's headers and body (`postData` of a request, `content` of a response), the body
    /// typed by the message's `Content-Type` when the entry gives no MIME type.
    func message(_ message: JSONValue, at pointer: String, bodyKey: String) throws(InputError) -> (
        HeaderFields, FixtureBody?
    ) {
        let headers = try headers(message["headers"], at: "\(pointer)/headers")
        guard let value = message[bodyKey] else { return (headers, nil) }
        return (headers, try body(value, at: "\(pointer)/\(bodyKey)", contentType: headers["Content-Type"]))
    }

    /// HAR headers (`[{"name": …, "value": …}]`) in order, a repeated name (`Set-Cookie`) once per value;
    /// HTTP/2 pseudo-headers and the transfer headers a decoded body no longer fits are left out.
    func headers(_ value: JSONValue?, at pointer: String) throws(InputError) -> HeaderFields {
        guard let value else { return [:] }
        var result = HeaderFields()
        for (index, item) in try array(value, at: pointer).enumerated() {
            let itemPointer = "\(pointer)/\(index)"
            let header = try object(item, at: itemPointer)
            let name = try string(required(header, "name", in: itemPointer), at: "\(itemPointer)/name")
            let text = try string(required(header, "value", in: itemPointer), at: "\(itemPointer)/value")
            let lower = name.lowercased()
            if name.hasPrefix(":")
                || ["content-encoding", "content-length", "transfer-encoding", "connection"].contains(lower)
            {
                continue
            }
            result.append(name: name, value: text)
        }
        return result
    }

    /// A body from HAR `postData` or `content`: `text`, maybe base64 (`"encoding": "base64"`), typed by `mimeType`.
    func body(_ value: JSONValue, at pointer: String, contentType: String?) throws(InputError) -> FixtureBody? {
        let content = try object(value, at: pointer)
        guard let textValue = content["text"] else { return nil }
        let text = try string(textValue, at: "\(pointer)/text")
        let mimeType = try content["mimeType"].map { value throws(InputError) in
            try string(value, at: "\(pointer)/mimeType")
        }
        let type = mimeType.flatMap { $0.isEmpty ? nil : $0 } ?? contentType
        var bytes = Data(text.utf8)
        if let encodingValue = content["encoding"] {
            let encoding = try string(encodingValue, at: "\(pointer)/encoding")
            guard encoding == "base64" else {
                throw fail("\(pointer)/encoding", "\"base64\" or no encoding", "string \"\(encoding)\"")
            }
            guard let decoded = Data(base64Encoded: text.filter { !$0.isWhitespace }) else {
                throw fail(
                    "\(pointer)/text", "base64 text (the entry says \"encoding\": \"base64\")",
                    "text that is not base64")
            }
            bytes = decoded
        }
        if bytes.isEmpty { return nil }
        return FixtureBody(bytes: bytes, contentType: type)
    }
}
