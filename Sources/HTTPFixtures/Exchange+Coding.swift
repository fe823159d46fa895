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
            func strings(_ values: [String: String]) -> JSONValue {
                .object(values.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
            }
            if !match.headers.isEmpty { members.append(("headers", Self.encode(headers: match.headers))) }
            if let path = match.path { members.append(("path", .string(path))) }
            if let pattern = match.pathPattern { members.append(("pathPattern", .string(pattern))) }
            if match.query != .exact { members.append(("query", .string(match.query.rawValue))) }
            if !match.queryPatterns.isEmpty { members.append(("queryPatterns", strings(match.queryPatterns))) }
            if !match.headerPatterns.isEmpty { members.append(("headerPatterns", strings(match.headerPatterns))) }
            if !match.cookies.isEmpty { members.append(("cookies", strings(match.cookies))) }
            if match.body != .any { members.append(("body", .string(match.body.rawValue))) }
            if !match.bodyPointers.isEmpty {
                members.append(
                    ("bodyPointers", .object(match.bodyPointers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })))
            }
            if let priority = match.priority { members.append(("priority", .number(String(priority)))) }
            metadataMembers.append(("match", .object(members)))
        }
        if let state = metadata.state {
            var members: [(key: String, value: JSONValue)] = [("name", .string(state.name))]
            if let requires = state.requires { members.append(("requires", .string(requires))) }
            if let next = state.next { members.append(("next", .string(next))) }
            metadataMembers.append(("state", .object(members)))
        }
        if metadata.template { metadataMembers.append(("template", .bool(true))) }
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
            if let state = fields["state"] {
                metadata.state = try reader.state(state, at: "/metadata/state")
            }
            if let template = fields["template"] {
                guard case .bool(let flag) = template else {
                    throw reader.fail("/metadata/template", "true or false", template.briefDescription)
                }
                metadata.template = flag
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

    /// The keys of `"match"`.
    static let matchKeys = [
        "path", "pathPattern", "query", "queryPatterns", "headers", "headerPatterns", "cookies", "body",
        "bodyPointers", "priority",
    ]

    func match(_ value: JSONValue, at pointer: String) throws(InputError) -> FixtureMatch {
        let expected = "an object with " + Self.matchKeys.map { "\"\($0)\"" }.joined(separator: ", ")
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
            case "pathPattern":
                match.pathPattern = try pattern(member.value, at: place)
            case "query":
                let text = try string(member.value, at: place)
                guard let query = FixtureMatch.Query(rawValue: text) else {
                    throw fail(place, "\"exact\", \"contains\" or \"ignore\"", member.value.briefDescription)
                }
                match.query = query
            case "queryPatterns":
                match.queryPatterns = try patterns(member.value, at: place, of: "query item names")
            case "headers":
                match.headers = try headers(member.value, at: place)
            case "headerPatterns":
                match.headerPatterns = try patterns(member.value, at: place, of: "header names")
            case "cookies":
                match.cookies = try strings(member.value, at: place, of: "cookie names")
            case "body":
                let text = try string(member.value, at: place)
                guard let body = FixtureMatch.Body(rawValue: text) else {
                    throw fail(place, "\"any\", \"exact\" or \"contains\"", member.value.briefDescription)
                }
                match.body = body
            case "bodyPointers":
                guard case .object(let pointers) = member.value, !pointers.isEmpty else {
                    throw fail(place, "an object of JSON Pointers to values", member.value.briefDescription)
                }
                for entry in pointers {
                    guard entry.key.isEmpty || entry.key.hasPrefix("/") else {
                        throw fail(
                            "\(place)/\(JSONPointer.escape(entry.key))", "a JSON Pointer (empty or starting with /)",
                            "\"\(entry.key)\"")
                    }
                    match.bodyPointers[entry.key] = entry.value
                }
            case "priority":
                guard case .number(let literal) = member.value, let priority = Int(literal),
                    (1...1_000_000).contains(priority)
                else {
                    throw fail(place, "an integer from 1 (answers first) to 1000000", member.value.briefDescription)
                }
                match.priority = priority
            default:
                // Said, not ignored: a misspelt key would otherwise match more than its author meant.
                throw fail(place, "one of " + Self.matchKeys.joined(separator: ", "), "\"\(member.key)\"")
            }
        }
        if match.path != nil, match.pathPattern != nil {
            throw fail(
                "\(pointer)/pathPattern", "either \"path\" or \"pathPattern\", not both", "both")
        }
        return match
    }

    /// An ECMA-262 pattern, compiled here so that a typo fails at load, not as a request that matches nothing.
    func pattern(_ value: JSONValue, at pointer: String) throws(InputError) -> String {
        let text = try string(value, at: pointer)
        do {
            _ = try ECMARegex(text)
        } catch {
            throw fail(pointer, "an ECMA-262 regular expression", "\"\(text)\" (\(error))")
        }
        return text
    }

    func strings(_ value: JSONValue, at pointer: String, of names: String) throws(InputError) -> [String: String] {
        guard case .object(let members) = value, !members.isEmpty else {
            throw fail(pointer, "an object of \(names) to strings", value.briefDescription)
        }
        var result: [String: String] = [:]
        for member in members {
            result[member.key] = try string(member.value, at: "\(pointer)/\(JSONPointer.escape(member.key))")
        }
        return result
    }

    func patterns(_ value: JSONValue, at pointer: String, of names: String) throws(InputError) -> [String: String] {
        let texts = try strings(value, at: pointer, of: names)
        for (name, text) in texts {
            _ = try pattern(.string(text), at: "\(pointer)/\(JSONPointer.escape(name))")
        }
        return texts
    }

    func state(_ value: JSONValue, at pointer: String) throws(InputError) -> FixtureState {
        guard case .object(let members) = value else {
            throw fail(pointer, #"an object with "name", "requires" and "next""#, value.briefDescription)
        }
        var state = FixtureState()
        for member in members {
            let place = "\(pointer)/\(JSONPointer.escape(member.key))"
            let text = try string(member.value, at: place)
            guard !text.isEmpty else { throw fail(place, "a non-empty string", "\"\"") }
            switch member.key {
            case "name": state.name = text
            case "requires": state.requires = text
            case "next": state.next = text
            default: throw fail(place, "one of name, requires, next", "\"\(member.key)\"")
            }
        }
        guard state.requires != nil || state.next != nil else {
            throw fail(pointer, #"a "requires" or a "next" state"#, "neither")
        }
        return state
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
