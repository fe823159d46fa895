import HTTPFixtures

#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

// MARK: Which stub answers a request

extension StubSet {
    /// The matcher of a fixture's request. A query item that the fixture's `metadata.redactions` lists
    /// (`request.query.api_key`) was masked when recorded, whatever the marker: it matches any value. The fixture's
    /// `metadata.match` (``FixtureMatch``) widens or narrows it: a path template, a query ignored or only
    /// contained, headers, the body.
    static func matcher(for exchange: Exchange) -> RequestMatcher {
        let request = exchange.request
        let match = exchange.metadata.match ?? FixtureMatch()
        let prefix = "request.query."
        let redactedNames = Set(
            exchange.metadata.redactions.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        var matcher = RequestMatcher().method(request.method)
        for field in match.headers { matcher = matcher.header(field.name, field.value) }
        switch match.body {
        case .any: break
        case .exact: matcher = Self.exactBody(request.body, in: matcher)
        }
        guard let components = URLComponents(string: request.url) else {
            return match.path.map(matcher.pathTemplate) ?? matcher.path(request.url)
        }
        if let scheme = components.scheme { matcher = matcher.scheme(scheme) }
        if let host = components.host { matcher = matcher.host(host, port: components.port) }
        if let template = match.path {
            matcher = matcher.pathTemplate(template)
        } else {
            matcher = matcher.path(components.path.isEmpty ? "/" : components.path)
        }
        guard match.query != .ignore else { return matcher }
        let allowsOthers = match.query == .contains
        let items = components.queryItems ?? []
        let redacted = Set(items.map(\.name).filter(redactedNames.contains))
        let fixed = items.filter { !redacted.contains($0.name) }
        let recorded = items.map(\.name)
        matcher = matcher.adding(
            .init(items.isEmpty ? "no query" : "query \(components.percentEncodedQuery ?? "")") { actual in
                // Every difference, not only the first: a renamed parameter shows as one missing and one
                // unexpected item, and a request with three extra items names all three.
                let actualItems = actual.queryItems
                var problems: [String] = []
                for item in fixed where !actualItems.contains(where: { $0.name == item.name && $0.value == item.value })
                {
                    if actualItems.contains(where: { $0.name == item.name }) {
                        problems.append(
                            "query item \(item.name) differs: expected \(item.value ?? "(no value)"), got \(actualItems.filter { $0.name == item.name }.map { $0.value ?? "" }.joined(separator: ", "))"
                        )
                    } else {
                        problems.append("query item \(item.name) missing")
                    }
                }
                for name in redacted where !actualItems.contains(where: { $0.name == name }) {
                    problems.append("query item \(name) missing")
                }
                var extras: [String] = []
                for item in actualItems where !recorded.contains(item.name) && !extras.contains(item.name) {
                    extras.append(item.name)
                }
                if !extras.isEmpty, !allowsOthers {
                    problems.append(
                        "query has unexpected item\(extras.count == 1 ? "" : "s") \(extras.joined(separator: ", "))")
                }
                return problems.isEmpty ? nil : problems.joined(separator: "; ")
            })
        return matcher
    }

    /// `matcher` requiring the recorded body: equal as JSON values for a JSON body, byte for byte otherwise, none
    /// when none was recorded.
    static func exactBody(_ body: FixtureBody?, in matcher: RequestMatcher) -> RequestMatcher {
        switch body {
        case .json(let value)?: return matcher.jsonBody(value)
        case .some(let other): return matcher.body(other.data)
        case nil:
            return matcher.adding(
                .init("no body") { request in
                    guard let body = request.body, !body.isEmpty else { return nil }
                    return "body differs: expected none, got \(body.count) bytes"
                })
        }
    }

    /// The most recently added stub of `bucket` (the stubs indexed under the request's path)
    /// and `unindexed` that matches: both are in the order they were added, so they are walked from
    /// their ends and merged by id.
    static func firstMatch(
        for request: StubRequest, in bucket: [Stub], and unindexed: [Stub]
    ) -> Stub? {
        var i = bucket.count - 1
        var j = unindexed.count - 1
        while i >= 0 || j >= 0 {
            let stub: Stub
            if j < 0 || (i >= 0 && bucket[i].id > unindexed[j].id) {
                stub = bucket[i]
                i -= 1
            } else {
                stub = unindexed[j]
                j -= 1
            }
            if stub.matches(request) { return stub }
        }
        return nil
    }
}

/// One stub. A class, so that the index, the table and a request being answered share it without
/// copying its matcher and responses.
final class Stub: Sendable {
    /// What a stub answers: fixed responses in turn (prepared for the wire once), or one computed per request.
    enum Answers: Sendable {
        case fixed([StubResponse], [WireResponse])
        case computed(@Sendable (StubRequest) -> StubResponse)
    }

    let id: Int
    let name: String
    /// For fixed answers, the status each turn logs (`nil` for a fault); `nil` for a computed answer.
    let fixedStatuses: [Int?]?
    /// The name of each fixed response, when they differ (the fixtures of a sequence); empty otherwise.
    let turnNames: [String]
    let matcher: RequestMatcher
    let answers: Answers
    let route: StubSet.Route?
    /// The conditions left to evaluate once the request has the route's method and path.
    private let residue: [RequestMatcher.Condition]

    init(id: Int, name: String, matcher: RequestMatcher, answers: Answers, turnNames: [String] = []) {
        self.id = id
        self.name = name
        self.turnNames = turnNames
        if case .fixed(let responses, _) = answers {
            fixedStatuses = responses.map { $0.fault == nil ? $0.status : nil }
        } else {
            fixedStatuses = nil
        }
        self.matcher = matcher
        self.answers = answers
        if let method = matcher.exactMethod, let path = matcher.exactPath {
            route = StubSet.Route(method: method, path: path)
            residue = matcher.conditions.filter { $0.fixes != .method(method) && $0.fixes != .path(path) }
        } else {
            route = nil
            residue = matcher.conditions
        }
    }

    /// The same stub under the id its set gives it.
    func numbered(_ id: Int) -> Stub {
        Stub(id: id, name: name, matcher: matcher, answers: answers, turnNames: turnNames)
    }

    /// The name of what answers the `turn`th request: the fixture of that turn in a sequence, else the stub's.
    func name(turn: Int) -> String {
        turnNames.isEmpty ? name : turnNames[min(turn, turnNames.count - 1)]
    }

    /// The response for the `turn`th request this stub answers (0 for the first): fixed responses in turn,
    /// repeating the last, or the computed one.
    func answer(turn: Int, to request: StubRequest) -> (StubResponse, WireResponse) {
        switch answers {
        case .fixed(let responses, let wire):
            let index = min(turn, responses.count - 1)
            return (responses[index], wire[index])
        case .computed(let respond):
            let response = respond(request)
            return (response, WireResponse(response))
        }
    }

    /// Whether every condition accepts `request`. A stub with a route compares the method and path
    /// itself, and runs only the other conditions.
    func matches(_ request: StubRequest) -> Bool {
        if let route, route.method != request.method || route.path != request.path { return false }
        for condition in residue where condition.evaluate(request) != nil { return false }
        return true
    }
}
