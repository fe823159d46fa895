import APIProbeShared
public import Foundation

extension Exchange {
    /// The fixture file's bytes: sorted keys, two-space indent, trailing newline.
    public func encoded() -> Data {
        var data = jsonValue.serialized(pretty: true, sortedKeys: true)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The exchange as the JSON document stored in a fixture file.
    public var jsonValue: JSONValue {
        var metadataMembers: [(key: String, value: JSONValue)] = []
        if let version = metadata.apiprobeVersion { metadataMembers.append(("apiprobeVersion", .string(version))) }
        if let recordedAt = metadata.recordedAt { metadataMembers.append(("recordedAt", .string(recordedAt))) }
        if !metadata.redactions.isEmpty {
            metadataMembers.append(("redactions", .array(metadata.redactions.map(JSONValue.string))))
        }
        if let source = metadata.source { metadataMembers.append(("source", .string(source))) }
        if let match = metadata.match {
            var members: [(key: String, value: JSONValue)] = []
            if !match.headers.isEmpty { members.append(("headers", Self.encode(headers: match.headers))) }
            if let path = match.path { members.append(("path", .string(path))) }
            if match.query != .exact { members.append(("query", .string(match.query.rawValue))) }
            if match.body != .any { members.append(("body", .string(match.body.rawValue))) }
            metadataMembers.append(("match", .object(members)))
        }
        if let latency = metadata.latency {
            let (seconds, attoseconds) = latency.components
            metadataMembers.append(
                ("latency", .string("\(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)ms")))
        }
        if let fault = metadata.fault { metadataMembers.append(("fault", .string(fault))) }

        var requestMembers: [(key: String, value: JSONValue)] = [
            ("method", .string(request.method)),
            ("url", .string(request.url)),
        ]
        if !request.headers.isEmpty { requestMembers.append(("headers", Self.encode(headers: request.headers))) }
        Self.append(body: request.body, to: &requestMembers)

        var responseMembers: [(key: String, value: JSONValue)] = [("status", .number(String(response.status)))]
        if !response.headers.isEmpty { responseMembers.append(("headers", Self.encode(headers: response.headers))) }
        Self.append(body: response.body, to: &responseMembers)

        return .object([
            ("metadata", .object(metadataMembers)),
            ("request", .object(requestMembers)),
            ("response", .object(responseMembers)),
        ])
    }

    /// Each name once, as spelled: a string, or an array of strings for a field sent more than once.
    private static func encode(headers: HeaderFields) -> JSONValue {
        var order: [String] = []
        var values: [String: [String]] = [:]
        for field in headers {
            if values[field.name] == nil { order.append(field.name) }
            values[field.name, default: []].append(field.value)
        }
        return .object(
            order.map { name in
                let all = values[name] ?? []
                return (name, all.count == 1 ? JSONValue.string(all[0]) : .array(all.map(JSONValue.string)))
            })
    }

    private static func append(body: FixtureBody?, to members: inout [(key: String, value: JSONValue)]) {
        switch body {
        case nil: break
        case .json(let value):
            members.append(("body", value))
            members.append(("bodyEncoding", .string("json")))
        case .text(let text):
            members.append(("body", .string(text)))
            members.append(("bodyEncoding", .string("text")))
        case .binary(let data):
            members.append(("body", .string(data.base64EncodedString())))
            members.append(("bodyEncoding", .string("base64")))
        }
    }

    /// Reads a fixture file's bytes.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (a JSON document in the fixture file format).
    ///   - file: the name used in errors.
    /// - Throws: ``InputError`` naming the line and column of a syntax error, or the JSON Pointer of a
    ///   missing or mistyped field.
    public init(decoding data: Data, file: String) throws(InputError) {
        let document: JSONValue
        do {
            // A body is stored two levels down (`response.body`), and a body is read with the default limit:
            // the file may be that much deeper, so every fixture written can be read back.
            document = try JSONValue(parsing: data, maximumDepth: maximumJSONDepth + 2)
        } catch {
            throw error.inFile(file)
        }
        try self.init(document: document, file: file)
    }

    /// Reads a fixture file for its response status and, when the body is JSON, the body's own bytes (a
    /// snapshot's sample): the body is checked as JSON but not built into a tree, and the file is otherwise
    /// checked as ``init(decoding:file:)`` checks it, with the same errors.
    ///
    /// - Returns: the status, and the bytes of the JSON body (`nil` for a text, binary or missing body).
    package static func responseSample(decoding data: Data, file: String) throws(InputError) -> (
        status: Int, jsonBody: Data?
    ) {
        let bytes = [UInt8](data)
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumJSONDepth + 2)
        let document: JSONValue
        do {
            document = try parser.parseDocument(keepingBytesAt: ["response", "body"])
        } catch {
            throw error.inFile(file)
        }
        // A body in another encoding is text, read (and checked) the usual way; it is no sample.
        if let encoding = document["response"]?["bodyEncoding"], encoding != .string("json") {
            return (try Exchange(decoding: data, file: file).response.status, nil)
        }
        // `.null` stands for the JSON body here: the rest of the file is checked as any fixture is.
        let exchange = try Exchange(document: document, file: file)
        guard exchange.response.body != nil, let range = parser.keptRange else {
            return (exchange.response.status, nil)
        }
        return (exchange.response.status, Data(bytes[range]))
    }

    /// Reads an exchange from its JSON document.
    public init(document: JSONValue, file: String) throws(InputError) {
        let reader = FieldReader(file: file)
        let root = try reader.object(document, at: "", expected: "a fixture object with \"request\" and \"response\"")

        let requestValue = try reader.required(root, "request", in: "", expected: "a \"request\" object")
        let request = try reader.object(requestValue, at: "/request", expected: "an object")
        let method = try reader.string(
            try reader.required(request, "method", in: "/request", expected: "an HTTP method string"),
            at: "/request/method")
        let url = try reader.string(
            try reader.required(request, "url", in: "/request", expected: "a URL string"), at: "/request/url")
        let requestHeaders = try reader.headers(request["headers"], at: "/request/headers")
        let requestBody = try reader.body(request, at: "/request")

        let responseValue = try reader.required(root, "response", in: "", expected: "a \"response\" object")
        let response = try reader.object(responseValue, at: "/response", expected: "an object")
        let statusValue = try reader.required(response, "status", in: "/response", expected: "an integer HTTP status")
        guard case .number(let literal) = statusValue, let status = Int(literal), (100...599).contains(status) else {
            throw InputError(
                file: file, position: .jsonPointer("/response/status"),
                expected: "an integer HTTP status from 100 to 599", found: statusValue.briefDescription)
        }
        let responseHeaders = try reader.headers(response["headers"], at: "/response/headers")
        let responseBody = try reader.body(response, at: "/response")

        var metadata = FixtureMetadata()
        if let metadataValue = root["metadata"] {
            let fields = try reader.object(metadataValue, at: "/metadata", expected: "an object")
            metadata.recordedAt = try fields["recordedAt"].map { value throws(InputError) in
                try reader.string(value, at: "/metadata/recordedAt")
            }
            metadata.apiprobeVersion = try fields["apiprobeVersion"].map { value throws(InputError) in
                try reader.string(value, at: "/metadata/apiprobeVersion")
            }
            metadata.source = try fields["source"].map { value throws(InputError) in
                try reader.string(value, at: "/metadata/source")
            }
            if let match = fields["match"] {
                metadata.match = try reader.match(match, at: "/metadata/match")
            }
            if let latency = fields["latency"] {
                let text = try reader.string(latency, at: "/metadata/latency")
                guard let duration = parseDuration(text), duration <= .seconds(600) else {
                    throw reader.fail(
                        "/metadata/latency", "a duration up to 10m, such as 250ms or 1.5s", latency.briefDescription)
                }
                metadata.latency = duration
            }
            if let fault = fields["fault"] {
                let name = try reader.string(fault, at: "/metadata/fault")
                guard FixtureMetadata.knownFaults.contains(name) else {
                    throw reader.fail(
                        "/metadata/fault", "one of " + FixtureMetadata.knownFaults.joined(separator: ", "),
                        fault.briefDescription)
                }
                metadata.fault = name
            }
            if let redactions = fields["redactions"] {
                guard case .array(let items) = redactions else {
                    throw InputError(
                        file: file, position: .jsonPointer("/metadata/redactions"), expected: "an array of strings",
                        found: redactions.briefDescription)
                }
                metadata.redactions = try items.enumerated().map { offset, item throws(InputError) in
                    try reader.string(item, at: "/metadata/redactions/\(offset)")
                }
            }
        }

        self.init(
            request: RecordedRequest(method: method, url: url, headers: requestHeaders, body: requestBody),
            response: RecordedResponse(status: status, headers: responseHeaders, body: responseBody),
            metadata: metadata
        )
    }
}

/// The fixture format's own fields, read by the package's one field reader (``JSONFieldReading``).
private struct FieldReader: JSONFieldReading {
    let file: String

    /// An object of header names to a string, or to an array of strings for a field sent more than once.
    func headers(_ value: JSONValue?, at pointer: String) throws(InputError) -> HeaderFields {
        guard let value else { return [:] }
        guard case .object(let members) = value else {
            throw fail(pointer, "an object of header names to strings", value.briefDescription)
        }
        var headers = HeaderFields()
        for member in members {
            // The common case first: one value, a string (the places are made only for an error).
            if case .string(let value) = member.value {
                headers.append(name: member.key, value: value)
                continue
            }
            let place = "\(pointer)/\(JSONPointer.escape(member.key))"
            guard case .array(let items) = member.value, !items.isEmpty else {
                throw fail(place, "a string, or an array of strings", member.value.briefDescription)
            }
            for (index, item) in items.enumerated() {
                headers.append(name: member.key, value: try string(item, at: "\(place)/\(index)"))
            }
        }
        return headers
    }

    func match(_ value: JSONValue, at pointer: String) throws(InputError) -> FixtureMatch {
        let expected = #"an object with "path", "query", "headers" or "body""#
        guard case .object(let members) = value else {
            throw fail(pointer, expected, value.briefDescription)
        }
        var match = FixtureMatch()
        for member in members {
            let place = "\(pointer)/\(JSONPointer.escape(member.key))"
            switch member.key {
            case "path":
                let path = try string(member.value, at: place)
                guard path.hasPrefix("/"), !path.contains("?") else {
                    throw fail(place, "a path template such as /api/recipes/{id}", member.value.briefDescription)
                }
                match.path = path
            case "query":
                let text = try string(member.value, at: place)
                guard let query = FixtureMatch.Query(rawValue: text) else {
                    throw fail(place, "\"exact\", \"contains\" or \"ignore\"", member.value.briefDescription)
                }
                match.query = query
            case "headers":
                match.headers = try headers(member.value, at: place)
            case "body":
                let text = try string(member.value, at: place)
                guard let body = FixtureMatch.Body(rawValue: text) else {
                    throw fail(place, "\"any\" or \"exact\"", member.value.briefDescription)
                }
                match.body = body
            default:
                // Said, not ignored: a misspelt key would otherwise match more than its author meant.
                throw fail(place, "one of path, query, headers, body", "\"\(member.key)\"")
            }
        }
        return match
    }

    func body(_ message: JSONValue, at pointer: String) throws(InputError) -> FixtureBody? {
        guard let body = message["body"] else { return nil }
        let encoding =
            try message["bodyEncoding"].map { value throws(InputError) in
                try string(value, at: "\(pointer)/bodyEncoding")
            } ?? "json"
        switch encoding {
        case "json":
            return .json(body)
        case "text":
            return .text(try string(body, at: "\(pointer)/body"))
        case "base64":
            let text = try string(body, at: "\(pointer)/body")
            guard let data = Data(base64Encoded: text) else {
                throw fail("\(pointer)/body", "base64 text", "text that is not base64")
            }
            return .binary(data)
        default:
            throw fail("\(pointer)/bodyEncoding", "\"json\", \"text\" or \"base64\"", "\"\(encoding)\"")
        }
    }
}
