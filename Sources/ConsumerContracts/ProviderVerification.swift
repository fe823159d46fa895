import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONSchemaValidation
package import ProbeClient

/// One way a provider's answer breaks what a consumer needs.
package struct ContractBreak: Sendable, Hashable, CustomStringConvertible {
    /// The member of the body (a JSON Pointer), or `nil` for the status or the exchange itself.
    package var member: String?
    package var message: String

    init(member: String? = nil, message: String) {
        self.member = member
        self.message = message
    }

    package var description: String { member.map { "\($0.isEmpty ? "/" : $0): \(message)" } ?? message }
}

/// The verdict on one interaction.
package struct InteractionVerdict: Sendable, Hashable {
    package var name: String
    package var breaks: [ContractBreak]
    package var duration: Duration
    package var passed: Bool { breaks.isEmpty }

    init(name: String, breaks: [ContractBreak], duration: Duration = .zero) {
        self.name = name
        self.breaks = breaks
        self.duration = duration
    }
}

/// The verdict on one consumer version's contract: whether this provider (or description) can ship without
/// breaking it.
package struct ContractVerdict: Sendable, Hashable {
    package var file: String
    package var consumer: String
    package var consumerVersion: String
    package var provider: String
    package var interactions: [InteractionVerdict]
    package var passed: Bool { interactions.allSatisfy(\.passed) }

    init(
        file: String, consumer: String, consumerVersion: String, provider: String, interactions: [InteractionVerdict]
    ) {
        self.file = file
        self.consumer = consumer
        self.consumerVersion = consumerVersion
        self.provider = provider
        self.interactions = interactions
    }
}

/// What a consumer reads of one interaction's answer, compiled once: the judge of any number of answers.
struct InteractionJudge: Sendable {
    let interaction: ContractInteraction
    private let schema: JSONSchema?

    /// - Throws: ``InputError`` at `pointer/response/reads` in `file` when `reads` is not a JSON Schema.
    init(_ interaction: ContractInteraction, file: String, pointer: String) throws(InputError) {
        self.interaction = interaction
        if let reads = interaction.reads {
            do {
                schema = try JSONSchema(reads)
            } catch {
                var moved = error
                moved.file = file
                if case .jsonPointer(let inner) = error.position {
                    moved.position = .jsonPointer(pointer + "/response/reads" + inner)
                }
                throw moved
            }
        } else {
            schema = nil
        }
    }

    /// How an answer breaks the consumer: a status other than the one expected, a body that is not JSON where
    /// members are read, and each member read that is missing or of another type (one validation of the body
    /// against ``ContractInteraction/reads``).
    func judge(status: Int, body: Data) -> [ContractBreak] {
        var breaks: [ContractBreak] = []
        if status != interaction.status {
            breaks.append(ContractBreak(message: "status: expected \(interaction.status), got \(status)"))
        }
        guard let schema else { return breaks }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: body)
        } catch {
            let found =
                body.isEmpty ? "an empty body" : "a body that is not JSON (\(error.position): \(error.expected))"
            breaks.append(ContractBreak(member: "", message: "expected a JSON body, found \(found)"))
            return breaks
        }
        do {
            // One break per member the consumer reads (`/recipes/*/title`), however many items break it.
            var order: [String] = []
            var found: [String: (message: String, first: String, count: Int)] = [:]
            for error in try schema.validate(document) {
                var place = error.instanceLocation
                var message = error.message
                if let property = error.property {
                    place += "/" + JSONPointer.escape(property)
                    message = "missing: the consumer reads it"
                }
                // A credential-named member's value never reaches a message, only its type.
                if place.split(separator: "/").contains(where: {
                    RedactionPolicy.default.isSensitiveBodyKey(JSONPointer.unescape($0))
                }), let cut = message.range(of: ", found ") {
                    message =
                        message[..<cut.lowerBound] + ", found "
                        + (document.value(at: place)?.typeName ?? "something else")
                }
                let member = Self.generalized(place, in: document)
                if let seen = found[member] {
                    found[member] = (seen.message, seen.first, seen.count + 1)
                } else {
                    order.append(member)
                    found[member] = (message, place, 1)
                }
            }
            for member in order {
                guard let item = found[member] else { continue }
                let suffix =
                    item.count > 1
                    ? " (\(item.count) items, first \(item.first))" : member == item.first ? "" : " (at \(item.first))"
                breaks.append(ContractBreak(member: member, message: item.message + suffix))
            }
        } catch {
            breaks.append(ContractBreak(member: error.instanceLocation, message: "not judged: \(error.message)"))
        }
        return breaks
    }
}

extension InteractionJudge {
    /// `pointer` with each array index replaced by `*`: `/recipes/3/title` → `/recipes/*/title`.
    static func generalized(_ pointer: String, in document: JSONValue) -> String {
        guard !pointer.isEmpty else { return pointer }
        var current: JSONValue? = document
        var result = ""
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch current {
            case .array(let items):
                result += "/*"
                current = Int(token).flatMap { items.indices.contains($0) ? items[$0] : nil }
            default:
                result += "/" + token
                current = current?[JSONPointer.unescape(token)]
            }
        }
        return result
    }
}

/// Replays a contract's interactions against a running provider and judges each answer.
package struct ProviderVerifier: Sendable {
    /// The provider's base URL: an interaction's recorded origin is replaced by it, its path prefixed by the
    /// base URL's path.
    var provider: URL
    /// Where a provider state is set up before an interaction that names one (Pact's state-change URL): a POST
    /// of `{"action": "setup", "params": {}, "state": NAME}`.
    var stateChange: URL?
    /// Sent with every request, replacing the recorded field of the same name (credentials the fixtures masked).
    var headers: HeaderFields
    var timeout: Duration
    var maxBodySize: Int

    package init(
        provider: URL, stateChange: URL? = nil, headers: HeaderFields = HeaderFields(),
        timeout: Duration = .seconds(10), maxBodySize: Int = 4 << 20
    ) {
        self.provider = provider
        self.stateChange = stateChange
        self.headers = headers
        self.timeout = timeout
        self.maxBodySize = maxBodySize
    }

    /// The verdict on `contract` (read from `file`), its interactions one after another, in order.
    ///
    /// - Throws: ``InputError`` when an interaction's `reads` is not a JSON Schema.
    package func verify(_ contract: ConsumerContract, file: String, loader: HTTPLoader) async throws(InputError)
        -> ContractVerdict
    {
        var verdicts: [InteractionVerdict] = []
        for (index, interaction) in contract.interactions.enumerated() {
            let judge = try InteractionJudge(interaction, file: file, pointer: "/interactions/\(index)")
            let clock = ContinuousClock()
            let start = clock.now
            let breaks = await replay(judge, loader: loader)
            verdicts.append(InteractionVerdict(name: interaction.name, breaks: breaks, duration: clock.now - start))
        }
        return ContractVerdict(
            file: file, consumer: contract.consumer, consumerVersion: contract.consumerVersion,
            provider: contract.provider, interactions: verdicts)
    }

    private func replay(_ judge: InteractionJudge, loader: HTTPLoader) async -> [ContractBreak] {
        let interaction = judge.interaction
        if let state = interaction.providerState, let stateChange {
            let body = JSONValue.object([
                ("action", .string("setup")), ("params", .object([])), ("state", .string(state)),
            ]).serialized()
            let request = ProbeRequest(
                method: "POST", url: stateChange, headers: ["Content-Type": "application/json"], body: body,
                timeout: timeout, maxBodySize: 64 << 10)
            switch await loader.send(request, deadline: .now + timeout) {
            case .success(let response) where (200..<300).contains(response.status ?? 0):
                break
            case .success(let response):
                return [
                    ContractBreak(
                        message: "state change \"\(state)\" failed: \(stateChange) answered \(response.status ?? 0)")
                ]
            case .failure(let error):
                return [ContractBreak(message: "state change \"\(state)\" failed: \(error)")]
            }
        }
        guard let url = requestURL(for: interaction.request.url) else {
            return [ContractBreak(message: "request URL \(interaction.request.url) is not a URL")]
        }
        var fields = HeaderFields()
        let replaced = Set(headers.map { $0.name.lowercased() })
        for field in interaction.request.headers
        where !replaced.contains(field.name.lowercased())
            && !["host", "content-length"].contains(field.name.lowercased())
        {
            fields.append(name: field.name, value: field.value)
        }
        for field in headers { fields.append(name: field.name, value: field.value) }
        let request = ProbeRequest(
            method: interaction.request.method, url: url, headers: fields, body: interaction.request.body?.data,
            timeout: timeout, maxBodySize: maxBodySize, followsRedirects: false)
        switch await loader.send(request, deadline: .now + timeout) {
        case .success(let response):
            return judge.judge(status: response.status ?? 0, body: response.body)
        case .failure(let error):
            return [ContractBreak(message: "no answer from \(url.absoluteString): \(error)")]
        }
    }

    /// The recorded URL with the provider's scheme, host and port, and the provider's path before its own.
    func requestURL(for recorded: String) -> URL? {
        guard let recordedParts = URLComponents(string: recorded),
            var parts = URLComponents(url: provider, resolvingAgainstBaseURL: false)
        else { return nil }
        var base = parts.percentEncodedPath
        if base.hasSuffix("/") { base.removeLast() }
        parts.percentEncodedPath =
            base + (recordedParts.percentEncodedPath.isEmpty ? "/" : recordedParts.percentEncodedPath)
        parts.percentEncodedQuery = recordedParts.percentEncodedQuery
        parts.fragment = nil
        return parts.url
    }
}
