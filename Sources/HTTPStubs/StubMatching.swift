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
    /// `metadata.match` (`FixtureMatch`) widens or narrows it: a path template, a query ignored or only
    /// contained, headers, the body.
    static func matcher(for exchange: Exchange) -> RequestMatcher {
        let match = exchange.metadata.match ?? FixtureMatch()
        let prefix = "request.query."
        let redactedNames = Set(
            exchange.metadata.redactions.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        // The cheap conditions first (method, URL, query), the body last: a stub whose path differs never parses
        // the request's body.
        let matcher = Self.urlMatcher(for: exchange, match: match, redactedNames: redactedNames)
        return Self.contentConditions(of: exchange, match: match, on: matcher)
    }

    /// The method, scheme, host, path and query conditions of a fixture.
    private static func urlMatcher(
        for exchange: Exchange, match: FixtureMatch, redactedNames: Set<String>
    ) -> RequestMatcher {
        let request = exchange.request
        var matcher = RequestMatcher().method(request.method)
        guard let components = URLComponents(string: request.url) else {
            if let pattern = match.pathPattern {
                return Self.patterned(matcher, pattern) { (base) throws(RequestMatcherError) in
                    try base.pathMatching(pattern)
                }
            }
            return match.path.map(matcher.pathTemplate) ?? matcher.path(request.url)
        }
        if let scheme = components.scheme { matcher = matcher.scheme(scheme) }
        if let host = components.host { matcher = matcher.host(host, port: components.port) }
        if let pattern = match.pathPattern {
            matcher = Self.patterned(matcher, pattern) { (base) throws(RequestMatcherError) in
                try base.pathMatching(pattern)
            }
        } else if let template = match.path {
            matcher = matcher.pathTemplate(template)
        } else if Self.holdsPlaceholder(components.path) {
            // A URL that keeps a path variable (`/orders/{order_id}`, as an import writes one it has no value for)
            // is a template: any value in that segment.
            matcher = matcher.pathTemplate(components.path)
        } else {
            matcher = matcher.path(components.path.isEmpty ? "/" : components.path)
        }
        for (name, pattern) in match.queryPatterns.sorted(by: { $0.key < $1.key }) {
            matcher = Self.patterned(matcher, pattern) { (base) throws(RequestMatcherError) in
                try base.queryItem(name, matching: pattern)
            }
        }
        guard match.query != .ignore else { return matcher }
        let allowsOthers = match.query == .contains
        // An item a pattern judges is not compared with its recorded value.
        let items = (components.queryItems ?? []).filter { match.queryPatterns[$0.name] == nil }
        let redacted = Set(items.map(\.name).filter(redactedNames.contains))
        let fixed = items.filter { !redacted.contains($0.name) }
        let recorded = items.map(\.name) + match.queryPatterns.keys
        var condition = RequestMatcher.Condition(
            items.isEmpty ? "no query" : "query \(components.percentEncodedQuery ?? "")"
        ) { actual in
            // Every difference, not only the first: a renamed parameter shows as one missing and one
            // unexpected item, and a request with three extra items names all three.
            let actualItems = actual.queryItems
            var problems: [String] = []
            for item in fixed where !actualItems.contains(where: { $0.name == item.name && $0.value == item.value }) {
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
        }
        // The exact query of a fixture indexes it: a thousand recordings of one path with different queries are
        // not tried one by one.
        if !allowsOthers, redacted.isEmpty, match.queryPatterns.isEmpty {
            condition.fixes = .query(Self.queryKey(items))
        }
        return matcher.adding(condition)
    }

    /// A query's items as one key, order and repeats ignored: what two queries an exact fixture treats alike share.
    static func queryKey(_ items: [URLQueryItem]) -> String {
        if items.isEmpty { return "" }
        if items.count == 1 { return "\(items[0].name)=\(items[0].value ?? "")" }
        return Set(items.map { "\($0.name)=\($0.value ?? "")" }).sorted().joined(separator: "&")
    }

    /// Whether a path has a segment that is one placeholder, `{name}`.
    static func holdsPlaceholder(_ path: String) -> Bool {
        path.split(separator: "/").contains { segment in
            segment.count > 2 && segment.first == "{" && segment.last == "}"
                && !segment.dropFirst().dropLast().contains { $0 == "{" || $0 == "}" }
        }
    }

    /// The header, cookie and body conditions of a fixture, after `matcher`'s.
    private static func contentConditions(
        of exchange: Exchange, match: FixtureMatch, on base: RequestMatcher
    ) -> RequestMatcher {
        var matcher = base
        for field in match.headers { matcher = matcher.header(field.name, field.value) }
        for (name, pattern) in match.headerPatterns.sorted(by: { $0.key < $1.key }) {
            matcher = Self.patterned(matcher, pattern) { (base) throws(RequestMatcherError) in
                try base.header(name, matching: pattern)
            }
        }
        for (name, value) in match.cookies.sorted(by: { $0.key < $1.key }) { matcher = matcher.cookie(name, value) }
        switch match.body {
        case .any: break
        case .exact: matcher = Self.exactBody(exchange.request.body, in: matcher)
        case .contains:
            if case .json(let value)? = exchange.request.body {
                matcher = matcher.jsonBody(value, subset: true)
            } else {
                matcher = Self.exactBody(exchange.request.body, in: matcher)
            }
        }
        for (pointer, value) in match.bodyPointers.sorted(by: { $0.key < $1.key }) {
            matcher = matcher.jsonBody(at: pointer, equals: value)
        }
        return matcher
    }

    /// `matcher` with a pattern condition; a pattern that does not compile (a fixture made in code, not read from a
    /// file, where it is refused at load) is a condition that fails and says why, never one that passes.
    static func patterned(
        _ matcher: RequestMatcher, _ pattern: String,
        _ add: (RequestMatcher) throws(RequestMatcherError) -> RequestMatcher
    ) -> RequestMatcher {
        do {
            return try add(matcher)
        } catch {
            let message = error.message
            return matcher.adding(.init("invalid pattern \(pattern)") { _ in message })
        }
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

    /// The stub of `lists` (the stubs indexed under the request's path and query, under its path, and the others)
    /// that answers: of those that match (and whose state machine is in the state they require), the one of the
    /// lowest priority number, and among equals the most recently added. Each list is in the order its stubs were
    /// added, so they are walked from their ends and merged by id; without priorities the first match is the
    /// answer.
    static func firstMatch(
        for request: StubRequest, in lists: [[Stub]], states: [String: String] = [:], prioritized: Bool = false
    ) -> Stub? {
        if lists.count <= 1, !prioritized {
            // One list (most requests: their path's stubs): its newest match.
            return lists.first?.last { $0.accepts(states: states) && $0.matches(request) }
        }
        var best: Stub?
        var ends = lists.map { $0.count - 1 }
        while true {
            // The newest stub left among the lists' ends.
            var pick = -1
            for (list, end) in ends.enumerated() where end >= 0 {
                if pick < 0 || lists[list][end].id > lists[pick][ends[pick]].id { pick = list }
            }
            guard pick >= 0 else { return best }
            let stub = lists[pick][ends[pick]]
            ends[pick] -= 1
            if let best, stub.priority >= best.priority { continue }
            guard stub.accepts(states: states), stub.matches(request) else { continue }
            if !prioritized { return stub }
            best = stub
        }
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

    /// What one fixed turn answers, in one object: a request reads it there, not from one array for each part
    /// (with a thousand stubs, each part read is a cache miss of its own).
    final class Turn: Sendable {
        /// The response as delivered (prepared for the wire when the set prepares them).
        let wire: WireResponse
        let latency: Duration
        /// The status the turn logs; `nil` for a fault.
        let status: Int?
        /// The fixture that answers this turn (the stub's name when it has one fixture).
        let name: String

        init(wire: WireResponse, of response: StubResponse, name: String) {
            self.wire = wire
            latency = response.latency
            status = response.fault == nil ? response.status : nil
            self.name = name
        }
    }

    // The fields matching reads come first: a request reads them for each candidate.
    let route: StubSet.Route?
    /// The method the matcher fixes, when it does.
    let method: String?
    /// The scheme, host and port the matcher fixes, compared as values (most fixtures name an origin).
    private let scheme: String?
    private let host: String?
    private let port: Int?
    /// The conditions left to evaluate once the request has the route's (or the stub's) method and path, the
    /// scheme and the host.
    private let residue: [@Sendable (StubRequest) -> Bool]
    /// The state machine the stub reads and moves (`FixtureState`).
    let state: FixtureState?
    /// Lower answers first (`FixtureMatch.priority`).
    let priority: Int
    let id: Int
    /// The one turn of a stub of one fixed response (most stubs), read without the array.
    private let onlyTurn: Turn?
    /// The fixed turns, in order; empty for a computed answer.
    let turns: [Turn]
    let name: String
    /// The name of each fixed response, when they differ (the fixtures of a sequence); empty otherwise.
    let turnNames: [String]
    let matcher: RequestMatcher
    let answers: Answers
    /// For each fixed turn, the fixture whose response is a template filled from each request; `nil` for a plain
    /// one (empty when no turn is a template).
    let templates: [Exchange?]
    /// Whether every request the stub answers gets its fixed turns exactly as they are: no template, no computed
    /// answer, no redirect a set may follow and no 401 challenge a set may rename (``StubSet/answer(_:repeatedAs:)``).
    let answersAsFixed: Bool

    init(
        id: Int, name: String, matcher: RequestMatcher, answers: Answers, turnNames: [String] = [],
        priority: Int = FixtureMatch.defaultPriority, state: FixtureState? = nil, templates: [Exchange?] = []
    ) {
        self.id = id
        self.name = name
        self.turnNames = turnNames
        self.priority = priority
        self.method = matcher.exactMethod
        self.state = state
        self.templates = templates.contains { $0 != nil } ? templates : []
        if case .fixed(let responses, let wires) = answers {
            turns = zip(responses, wires).enumerated().map { index, pair in
                Turn(
                    wire: pair.1, of: pair.0,
                    name: turnNames.isEmpty ? name : turnNames[min(index, turnNames.count - 1)])
            }
        } else {
            turns = []
        }
        onlyTurn = turns.count == 1 ? turns[0] : nil
        answersAsFixed =
            !turns.isEmpty && self.templates.isEmpty
            && turns.allSatisfy { turn in
                // A fault (no status) is delivered as it is.
                turn.status == nil || !(RedirectRule.isRedirect(turn.wire.status) || turn.wire.challengesAuthentication)
            }
        self.matcher = matcher
        self.answers = answers
        if let method = matcher.exactMethod, let path = matcher.exactPath {
            var query: String?
            for condition in matcher.conditions { if case .query(let key)? = condition.fixes { query = key } }
            route = StubSet.Route(method: method, path: path, query: query)
        } else {
            route = nil
        }
        // What the stub compares itself (the method, the route, the first scheme and host fixed) leaves the
        // residue; a condition that fixes another value (a second, different scheme) stays in it.
        var scheme: String?
        var host: (name: String, port: Int?)?
        var residue: [@Sendable (StubRequest) -> Bool] = []
        for condition in matcher.conditions {
            switch condition.fixes {
            case .method(let method)? where method == self.method: continue
            case .path(let path)? where path == route?.path: continue
            case .query(let key)? where key == route?.query: continue
            case .scheme(let fixed)? where scheme == nil || scheme == fixed: scheme = fixed
            case .host(let name, let port)? where host == nil || (host?.name == name && host?.port == port):
                host = (name, port)
            default: residue.append(condition.accepts)
            }
        }
        (self.scheme, self.host, self.port) = (scheme, host?.name, host?.port)
        self.residue = residue
    }

    /// The same stub under the id its set gives it, its fixed responses prepared by `prepare` when there is one.
    func numbered(_ id: Int, preparing prepare: (@Sendable (WireResponse) -> any AnyObject & Sendable)? = nil) -> Stub {
        var answers = answers
        if let prepare, case .fixed(let responses, let wires) = answers {
            answers = .fixed(responses, wires.map { $0.preparing(prepare) })
        }
        return Stub(
            id: id, name: name, matcher: matcher, answers: answers, turnNames: turnNames, priority: priority,
            state: state, templates: templates)
    }

    /// Whether the stub compares only the method, path, query, scheme, host and port its conditions fix (no other
    /// condition, no closure of a test's) and requires no state: its verdict on a request follows from the
    /// request's method and URL alone.
    var matchesByURLOnly: Bool { residue.isEmpty && state?.requires == nil }

    /// Whether the stub's state machine (if any) is in the state it requires; a machine never moved is in
    /// `FixtureState.initial`.
    func accepts(states: [String: String]) -> Bool {
        guard let state, let required = state.requires else { return true }
        return (states[state.name] ?? FixtureState.initial) == required
    }

    /// Why ``accepts(states:)`` refused, for a near miss.
    func stateReason(states: [String: String]) -> String? {
        guard !accepts(states: states), let state, let required = state.requires else { return nil }
        return "state \(state.name) is \(states[state.name] ?? FixtureState.initial), the fixture requires \(required)"
    }

    /// Whether the stub's answers are fixed (not computed per request).
    var isFixed: Bool { !turns.isEmpty }

    /// The fixed turn that answers the `turn`th request (the last repeats); `nil` for a computed answer.
    func fixedTurn(_ turn: Int) -> Turn? {
        if let onlyTurn { return onlyTurn }
        return turns.isEmpty ? nil : turns[min(turn, turns.count - 1)]
    }

    /// The name of what answers the `turn`th request: the fixture of that turn in a sequence, else the stub's.
    func name(turn: Int) -> String {
        fixedTurn(turn)?.name ?? name
    }

    /// What a stub answers a request: the response as delivered, how long it waits first, and whether it is a
    /// fault (no redirect is followed from one).
    struct Answer {
        var wire: WireResponse
        var latency: Duration
        var isFault: Bool

        init(_ response: StubResponse) {
            wire = WireResponse(response)
            latency = response.latency
            isFault = response.fault != nil
        }

        init(_ turn: Turn) {
            (wire, latency, isFault) = (turn.wire, turn.latency, turn.status == nil)
        }
    }

    /// The answer to the `turn`th request this stub answers (0 for the first): fixed responses in turn, repeating
    /// the last (a template filled from `request`, numbered `number` in its set), or the computed one. A fixed
    /// response is answered as prepared when the stub was added, not copied.
    func answer(turn: Int, to request: StubRequest, number: Int = 0) -> Answer {
        if templates.isEmpty, let fixed = fixedTurn(turn) { return Answer(fixed) }
        switch answers {
        case .fixed(let responses, _):
            let index = min(turn, responses.count - 1)
            if !templates.isEmpty, let template = templates[index] {
                return Answer(ResponseTemplate.fill(responses[index], of: template, from: request, number: number))
            }
            return Answer(turns[index])
        case .computed(let respond):
            return Answer(respond(request))
        }
    }

    /// Whether every condition accepts `request`. A stub with a route compares the method and path
    /// itself, and runs only the other conditions.
    func matches(_ request: StubRequest) -> Bool {
        if let route {
            if route.method != request.method || route.path != request.path { return false }
            if let query = route.query, query != StubSet.queryKey(request.queryItems) { return false }
        } else if let method, method != request.method {
            // An unindexed stub (a pattern, a template) of another method is passed over without a closure call.
            return false
        }
        if let scheme, (request.scheme ?? "") != scheme { return false }
        if let host, (request.host ?? "") != host || (port != nil && request.port != port) { return false }
        for accepts in residue where !accepts(request) { return false }
        return true
    }
}
