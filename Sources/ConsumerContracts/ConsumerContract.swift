import APIProbeShared
package import Foundation
package import HTTPFixtures

/// What one consumer (an app, at one version) needs from one provider: for each request it makes, the status it
/// expects and the members of the response body it reads, with their types, required or optional.
///
/// Stored as `Contracts/<consumer>/<version>.json` (apiprobe's own format, written by ``encoded()``):
/// ```json
/// {
///   "apiprobeContract": 1,
///   "apiprobeVersion": "0.1.0",
///   "consumer": {"name": "RecipesApp", "version": "1.4.0"},
///   "interactions": [
///     {
///       "name": "recipes/get",
///       "request": {"headers": {"Accept": "application/json"}, "method": "GET", "url": "https://recipes.example.com/api/get?rId=35382"},
///       "response": {"reads": {"properties": {"recipe": {...}}, "required": ["recipe"], "type": "object"}, "status": 200}
///     }
///   ],
///   "provider": {"name": "recipes"}
/// }
/// ```
/// An interaction's `request` is a fixture's request, as fixtures store it; its origin is replaced by the
/// provider's when verified. `response.reads` is a JSON Schema (2020-12) of what the consumer reads from the body:
/// `properties` and `items` only for members it reads, `required` for those it reads with `decode`, `null`
/// allowed for those it reads with `decodeIfPresent`, and `examples` (annotations the validator ignores) with the
/// recorded value, from which the Pact file's example body is made. Without `reads`, the body is not read.
package struct ConsumerContract: Sendable, Hashable {
    /// The format's version, `apiprobeContract` in the file.
    static let formatVersion = 1

    package var consumer: String
    package var consumerVersion: String
    package var provider: String
    package var interactions: [ContractInteraction]
    var apiprobeVersion: String

    init(
        consumer: String, consumerVersion: String, provider: String, interactions: [ContractInteraction],
        apiprobeVersion: String = APIProbeShared.apiprobeVersion
    ) {
        self.consumer = consumer
        self.consumerVersion = consumerVersion
        self.provider = provider
        self.interactions = interactions
        self.apiprobeVersion = apiprobeVersion
    }
}

/// One request a consumer makes, and what it needs of the answer.
package struct ContractInteraction: Sendable, Hashable {
    /// The fixture it was made from: `recipes/search.page2`.
    package var name: String
    /// The state the provider must be in (the fixture's scenario), set up through the state-change URL first.
    var providerState: String?
    /// The request, as the fixture recorded it (its origin is the recorded server's).
    package var request: RecordedRequest
    var status: Int
    /// A JSON Schema (2020-12) of what the consumer reads from the body; `nil` when it reads nothing.
    package var reads: JSONValue?

    init(
        name: String, providerState: String? = nil, request: RecordedRequest, status: Int, reads: JSONValue? = nil
    ) {
        self.name = name
        self.providerState = providerState
        self.request = request
        self.status = status
        self.reads = reads
    }
}

// MARK: - The file

extension ConsumerContract {
    /// The file's bytes: sorted keys, two-space indent, trailing newline (diffs show what changed).
    package func encoded() -> Data {
        let interactions = interactions.map { interaction -> JSONValue in
            var members: [(key: String, value: JSONValue)] = [("name", .string(interaction.name))]
            if let state = interaction.providerState { members.append(("providerState", .string(state))) }
            let fixture = Exchange(request: interaction.request, response: RecordedResponse(status: interaction.status))
            members.append(("request", fixture.jsonValue["request"] ?? .object([])))
            var response: [(key: String, value: JSONValue)] = [("status", .number(String(interaction.status)))]
            if let reads = interaction.reads { response.append(("reads", reads)) }
            members.append(("response", .object(response)))
            return .object(members)
        }
        let document = JSONValue.object([
            ("apiprobeContract", .number(String(Self.formatVersion))),
            ("apiprobeVersion", .string(apiprobeVersion)),
            ("consumer", .object([("name", .string(consumer)), ("version", .string(consumerVersion))])),
            ("interactions", .array(interactions)),
            ("provider", .object([("name", .string(provider))])),
        ])
        return document.fileData
    }

    /// Reads a contract file.
    ///
    /// - Throws: ``InputError`` naming the file and the line and column of a syntax error, or the JSON Pointer of
    ///   a missing or wrong member (a Pact file is named as one, with the command that verifies it).
    package init(decoding data: Data, file: String) throws(InputError) {
        let reader = JSONFieldReader(file: file)
        let document = try reader.parse(data)
        let root = try reader.object(document, at: "", expected: "an apiprobe contract (an object)")
        if root["apiprobeContract"] == nil {
            let isPact = root["metadata"]?["pactSpecification"] != nil || root["interactions"] != nil
            throw reader.fail(
                "/apiprobeContract",
                "an apiprobe contract (\"apiprobeContract\": 1), as `apiprobe contract export` writes",
                isPact ? "a Pact file (verify it with a Pact verifier)" : "no \"apiprobeContract\" member")
        }
        let format = try reader.integer(root["apiprobeContract"] ?? .null, at: "/apiprobeContract")
        guard format == Self.formatVersion else {
            throw reader.fail("/apiprobeContract", "format \(Self.formatVersion)", String(format))
        }
        let version = try root["apiprobeVersion"].map { value throws(InputError) in
            try reader.string(value, at: "/apiprobeVersion")
        }
        let consumer = try reader.object(
            try reader.required(root, "consumer", in: "", expected: "a \"consumer\" object"), at: "/consumer")
        let provider = try reader.object(
            try reader.required(root, "provider", in: "", expected: "a \"provider\" object"), at: "/provider")
        let list = try reader.array(
            try reader.required(root, "interactions", in: "", expected: "an \"interactions\" array"),
            at: "/interactions")
        var interactions: [ContractInteraction] = []
        var names = Set<String>()
        for (index, value) in list.enumerated() {
            let interaction = try Self.interaction(value, at: "/interactions/\(index)", reader: reader)
            guard names.insert(interaction.name).inserted else {
                throw reader.fail("/interactions/\(index)/name", "a name no other interaction has", interaction.name)
            }
            interactions.append(interaction)
        }
        self.init(
            consumer: try reader.string(
                try reader.required(consumer, "name", in: "/consumer", expected: "a consumer name"),
                at: "/consumer/name"),
            consumerVersion: try reader.string(
                try reader.required(consumer, "version", in: "/consumer", expected: "a consumer version"),
                at: "/consumer/version"),
            provider: try reader.string(
                try reader.required(provider, "name", in: "/provider", expected: "a provider name"),
                at: "/provider/name"),
            interactions: interactions,
            apiprobeVersion: version ?? APIProbeShared.apiprobeVersion)
    }

    private static func interaction(_ value: JSONValue, at pointer: String, reader: JSONFieldReader)
        throws(InputError) -> ContractInteraction
    {
        let object = try reader.object(value, at: pointer, expected: "an interaction object")
        let name = try reader.string(
            try reader.required(object, "name", in: pointer, expected: "an interaction name"), at: pointer + "/name")
        let state = try object["providerState"].map { value throws(InputError) in
            try reader.string(value, at: pointer + "/providerState")
        }
        let request = try reader.required(object, "request", in: pointer, expected: "a \"request\" object")
        let response = try reader.object(
            try reader.required(object, "response", in: pointer, expected: "a \"response\" object"),
            at: pointer + "/response")
        let status = try reader.integer(
            try reader.required(response, "status", in: pointer + "/response", expected: "an HTTP status"),
            at: pointer + "/response/status")
        guard (100...599).contains(status) else {
            throw reader.fail(pointer + "/response/status", "an HTTP status (100-599)", String(status))
        }
        let reads = response["reads"]
        if let reads {
            guard case .object = reads else {
                throw reader.fail(pointer + "/response/reads", "a JSON Schema object", reads.briefDescription)
            }
        }
        // The request is a fixture's request: read by the fixture reader, with its errors placed here.
        let exchange: Exchange
        do {
            exchange = try Exchange(
                document: .object([("request", request), ("response", .object([("status", .number("200"))]))]),
                file: reader.file)
        } catch {
            if case .jsonPointer(let inner) = error.position {
                var moved = error
                moved.position = .jsonPointer(pointer + inner)
                throw moved
            }
            throw error
        }
        return ContractInteraction(
            name: name, providerState: state, request: exchange.request, status: status, reads: reads)
    }
}
