#if canImport(FoundationNetworking)
import APIProbeShared
import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// A set of stubs that answers the requests of the sessions made from its configuration, offline.
///
/// Each set is isolated: tests that run in parallel, each with its own set, never see each other's
/// stubs or requests, even for the same URL.
///
/// ```swift
/// let stubs = StubSet()
/// try stubs.stubAll(from: FixtureStore(relativeTo: #filePath), in: "recipes")
/// stubs.stub(.get("https://recipes.example.com/api/get").query(["rId": "0"]), response: .status(404))
/// let client = RecipesClient(configuration: stubs.sessionConfiguration())  // the app's client, injected
/// ```
///
/// **Order.** The most recently added stub that matches answers, so a test can override a general stub
/// with a specific one. A stub with several responses gives them in turn and repeats the last.
///
/// **No match.** A request that matches no stub fails with a `URLError` (`.resourceUnavailable`) whose
/// description lists the closest stubs and why each did not match; it never reaches the network.
///
/// **Redirects.** A 301, 302, 303, 307 or 308 response with a `Location` to an `http(s)` URL is followed inside
/// the set, as URLSession would (303, and 301/302 after a POST, become GET without a body), up to 16 hops, by the
/// same rule as `apiprobe run`'s client: `Authorization`, `Proxy-Authorization` and `Cookie` are not sent to another
/// host. The client receives the final response, whose `url` is the last location, and the request log holds
/// every hop (with the headers each hop sent). The session
/// delegate's `willPerformHTTPRedirection` is not called (on Linux a URLProtocol that reports a redirect
/// crashes the process). Set ``followsRedirects`` to `false` to receive the 3xx response itself.
///
/// **401 challenges.** On Linux, swift-corelibs-foundation starts its authentication path on a 401
/// with a `WWW-Authenticate` challenge and, with no credential, never completes the task. The stub
/// layer fails such a request with an error that says so, or, with ``renamesAuthenticationChallenges``
/// on, serves the header as `X-WWW-Authenticate` so the client receives the 401.
///
/// **Bodies.** Matchers read a request's body from `httpBody` or `httpBodyStream`. A body given to
/// `upload(for:from:)` is not visible to a URLProtocol on Linux: set `httpBody` on the request instead.
///
/// Keep the set alive as long as the sessions made from its configuration: a request that arrives
/// after the set is released fails with an error that says so.
public final class StubSet: Sendable {
    let state = Locked(State())
    private let protocolClass: StubURLProtocol.Type
    private let options = Locked(Options())

    private struct Options {
        var followsRedirects = true
        var renamesAuthenticationChallenges = false
    }

    /// Whether 3xx responses with a `Location` are followed inside the set (the default), as URLSession does.
    public var followsRedirects: Bool {
        get { options.withLock { $0.followsRedirects } }
        set { options.withLock { $0.followsRedirects = newValue } }
    }

    /// On Linux, whether a 401 with a `WWW-Authenticate` challenge is served with the header renamed
    /// `X-WWW-Authenticate` (off by default; no effect on Apple platforms).
    ///
    /// swift-corelibs-foundation answers such a response by starting its authentication path and, with no
    /// credential to offer, never completes the task. With this off, the stub layer fails such a request at
    /// once with a `URLError(.userAuthenticationRequired)` that explains this; turn it on to hand the 401 to
    /// the client, as Apple's Foundation does, under the renamed header. See the "Platform differences"
    /// article.
    public var renamesAuthenticationChallenges: Bool {
        get { options.withLock { $0.renamesAuthenticationChallenges } }
        set { options.withLock { $0.renamesAuthenticationChallenges = newValue } }
    }

    /// How a delayed response waits: `nil` for the wall clock (a dispatch timer), or the injected clock's sleep.
    let sleep: (@Sendable (Duration) async throws -> Void)?

    /// A set whose delayed responses (``StubResponse/delayed(by:)``) wait on the wall clock.
    public init() {
        sleep = nil
        Self.registerGlobalClass()
        protocolClass = StubRegistry.makeProtocolClass()
        StubRegistry.bind(protocolClass, to: self)
    }

    /// A set whose delayed responses wait on `clock`: with a ``ManualClock``, a response delayed by 300 ms
    /// arrives when the test advances that clock by 300 ms, not 300 ms later.
    ///
    /// Give the code under test the same clock, and a test of debounce, timeouts or races between
    /// responses runs without waiting and without depending on the machine's speed.
    public init<C: Clock>(clock: C) where C.Duration == Duration {
        sleep = { duration in try await clock.sleep(for: duration) }
        Self.registerGlobalClass()
        protocolClass = StubRegistry.makeProtocolClass()
        StubRegistry.bind(protocolClass, to: self)
    }

    deinit {
        StubRegistry.unregister(protocolClass)
    }

    // MARK: Sessions

    /// A configuration whose sessions are answered by this set only.
    ///
    /// It copies `base` (ephemeral by default), puts the set's protocol class first and turns off the
    /// credential store, the URL cache and cookies, so a stubbed 401 with `WWW-Authenticate` reaches the
    /// client instead of the authentication path.
    public func sessionConfiguration(from base: URLSessionConfiguration = .ephemeral) -> URLSessionConfiguration {
        // swift-format-ignore: NeverForceUnwrap
        let configuration = base.copy() as! URLSessionConfiguration
        let others = (configuration.protocolClasses ?? []).filter { !($0 is StubURLProtocol.Type) }
        configuration.protocolClasses = [protocolClass] + others
        configuration.urlCredentialStorage = nil
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// A new session answered by this set.
    public func makeSession(delegate: (any URLSessionDelegate)? = nil) -> URLSession {
        URLSession(configuration: sessionConfiguration(), delegate: delegate, delegateQueue: nil)
    }

    /// Answers requests made through `URLSession.shared` (and any session whose configuration does not
    /// name another protocol) until ``uninstallGlobally()``, for apps with a networking singleton.
    ///
    /// There is one global slot per process, so tests that use it must not run in parallel with each
    /// other (`@Suite(.serialized)`). Installing a set replaces the one installed before.
    ///
    /// The installed set takes only the requests to hosts its stubs name (every request, once a stub names
    /// no host, such as `.any` or a path-only matcher). Requests to other hosts go on to the next protocol,
    /// so tests running beside it that use `URLSession.shared` for their own loopback servers are left alone.
    ///
    /// The global protocol class is registered with `URLProtocol.registerClass` when the first stub set
    /// is made, and stays registered (it declines every request while no set is installed). On Linux,
    /// swift-corelibs-foundation consults registered classes in the order they were registered, after
    /// its own HTTP protocol, and `URLSession.shared` keeps the list it saw when first used; so there the
    /// global mode works only when the first `StubSet` is made before the process makes its first
    /// `URLSession` (make one in the test target's first setup). When it cannot take effect this method
    /// throws instead of letting requests reach the network.
    ///
    /// - Throws: ``StubInstallationError`` when `URLSession.shared` would not consult the stub layer.
    public func installGlobally() throws(StubInstallationError) {
        Self.registerGlobalClass()
        let classes = URLSession.shared.configuration.protocolClasses ?? []
        #if canImport(FoundationNetworking)
        guard let first = classes.first, first == GlobalStubURLProtocol.self else {
            throw StubInstallationError(
                message:
                    "HTTPStubs: URLSession.shared cannot be stubbed in this process: on Linux it consults the protocol classes registered before it was first used, and a URLSession was made before the first StubSet. Make a StubSet before any URLSession (for example in the test target's first setup), or inject stubs.sessionConfiguration() into the code under test."
            )
        }
        #else
        _ = classes
        #endif
        StubRegistry.setGlobal(self)
    }

    /// Whether the global mode should take `request`: a stub names its host, or some stub names no host.
    func claims(host: String?) -> Bool {
        let host = host?.lowercased()
        return state.withLock { state in
            state.stubs.values.contains { $0.matcher.exactHost == nil || $0.matcher.exactHost == host }
        }
    }

    /// Stops answering global requests, if this set is the one installed.
    public func uninstallGlobally() {
        guard StubRegistry.set(for: GlobalStubURLProtocol.self) === self else { return }
        StubRegistry.setGlobal(nil)
    }

    private static let globalClassRegistration: Void = {
        _ = URLProtocol.registerClass(GlobalStubURLProtocol.self)
    }()

    static func registerGlobalClass() {
        globalClassRegistration
    }

    // MARK: Stubs

    /// Adds a stub that gives `response` to every request `matcher` accepts.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, response: StubResponse, name: String? = nil) -> StubHandle {
        stub(matcher, responses: [response], name: name)
    }

    /// Adds a stub that gives `responses` in turn, then repeats the last: `[.status(503), .json(…)]`.
    @discardableResult
    public func stub(_ matcher: RequestMatcher, responses: [StubResponse], name: String? = nil) -> StubHandle {
        precondition(!responses.isEmpty, "a stub needs at least one response")
        return add(
            Stub(
                id: 0, name: name ?? matcher.description, matcher: matcher,
                answers: .fixed(responses, responses.map(WireResponse.init))))
    }

    private func add(_ unnumbered: Stub) -> StubHandle {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            let stub = unnumbered.numbered(id, preparing: state.preparesWire)
            state.stubs[id] = stub
            let tables = state.changingTables()
            if stub.priority != FixtureMatch.defaultPriority { tables.prioritized = true }
            if stub.route?.query?.isEmpty == false { tables.queryIndexed = true }
            if stub.state?.requires != nil { tables.readsStates = true }
            if let route = stub.route {
                tables.index[route.key, default: []].append(stub)
            } else {
                tables.unindexed[stub.method ?? "", default: PrefixIndex()].add(stub)
            }
            return StubHandle(id: id, name: stub.name)
        }
    }

    /// Adds a stub whose response is computed from each request it matches: echo an id from the path,
    /// count calls, answer a body from the request's body.
    ///
    /// ```swift
    /// stubs.stub(.get("https://api.example.com/items/{id}")) { request in
    ///     .json(text: #"{"id": "\#(request.url.lastPathComponent)"}"#)
    /// }
    /// ```
    @discardableResult
    public func stub(
        _ matcher: RequestMatcher, name: String? = nil,
        respond: @escaping @Sendable (StubRequest) -> StubResponse
    ) -> StubHandle {
        add(Stub(id: 0, name: name ?? matcher.description, matcher: matcher, answers: .computed(respond)))
    }

    /// Adds a stub that answers the recorded request of a fixture with its recorded response.
    ///
    /// The request must have the recorded method, scheme, host, path and query items (no more, no
    /// fewer); a query item whose recorded value was redacted matches any value.
    @discardableResult
    public func stub(_ exchange: Exchange, name: String? = nil) -> StubHandle {
        add(Self.fixtureStub([(name ?? "\(exchange.request.method) \(exchange.request.url)", exchange)]))
    }

    /// The stub of a sequence of fixtures of one request (one fixture: a sequence of one): their responses in
    /// turn, with the first one's matcher, priority, state machine and templates.
    static func fixtureStub(_ sequence: [(name: String, exchange: Exchange)]) -> Stub {
        let responses = sequence.map { StubResponse.fixture($0.exchange) }
        let first = sequence[0].exchange
        return Stub(
            id: 0, name: sequence.map(\.name).joined(separator: ", then "), matcher: Self.matcher(for: first),
            answers: .fixed(responses, responses.map(WireResponse.init)),
            turnNames: sequence.count > 1 ? sequence.map(\.name) : [],
            priority: first.metadata.match?.priority ?? FixtureMatch.defaultPriority, state: first.metadata.state,
            templates: sequence.map { $0.exchange.metadata.template ? $0.exchange : nil })
    }

    /// Adds a stub for every fixture below `api` in `store` (every fixture when `api` is `nil`), named after its file.
    ///
    /// Fixtures of the same request (method, URL and query items, in any order) are one stub that answers them in
    /// turn, in the order of their names, repeating the last: `search.json` then `search.2.json`, as a list that
    /// grows or a job that finishes. The fixtures of a scenario (`recipes/scenarios/<name>/…`, see
    /// `FixtureStore.scenario(ofFixture:)`) are left out, unless `scenario` names theirs: they are then added after
    /// the others, and answer before them.
    @discardableResult
    public func stubAll(
        from store: FixtureStore, in api: String? = nil, scenario: String? = nil
    ) throws(InputError) -> [StubHandle] {
        var fixtures: [(name: String, exchange: Exchange)] = []
        for name in store.names(in: api) {
            let owner = FixtureStore.scenario(ofFixture: name)
            guard owner == nil || owner == scenario else { continue }
            fixtures.append((name, try store.exchange(named: name)))
        }
        return stubFixtures(fixtures, scenario: scenario)
    }

    /// Adds `fixtures` (named, sorted by name) as `stubAll(from:in:scenario:)` does: sequences of the same request,
    /// a scenario's after the others; fixtures of other scenarios left out. The one rule `apiprobe serve` uses too.
    @discardableResult
    package func stubFixtures(
        _ fixtures: [(name: String, exchange: Exchange)], scenario: String?
    ) -> [StubHandle] {
        let common = fixtures.filter { FixtureStore.scenario(ofFixture: $0.name) == nil }
        let chosen = scenario.map { name in fixtures.filter { FixtureStore.scenario(ofFixture: $0.name) == name } }
        var handles: [StubHandle] = []
        for layer in [common, chosen ?? []] {
            // A fixture alone is a sequence of one: the same stub `stub(_:name:)` makes.
            for sequence in Self.sequences(layer) { handles.append(add(Self.fixtureStub(sequence))) }
        }
        return handles
    }

    /// `fixtures` grouped by the request they answer, each group in the given order, the groups in the order of
    /// their first fixture.
    static func sequences(
        _ fixtures: [(name: String, exchange: Exchange)]
    ) -> [[(name: String, exchange: Exchange)]] {
        var groups: [[(name: String, exchange: Exchange)]] = []
        var indexByRequest: [String: Int] = [:]
        for fixture in fixtures {
            let key = Self.requestKey(fixture.exchange)
            if let index = indexByRequest[key] {
                groups[index].append(fixture)
            } else {
                indexByRequest[key] = groups.count
                groups.append([fixture])
            }
        }
        return groups
    }

    /// What makes two fixtures answer the same requests: the method, the URL without its query, the query
    /// items in order of name and value, and the fixture's `metadata.match`.
    static func requestKey(_ exchange: Exchange) -> String {
        let method =
            exchange.request.method.uppercased() + (exchange.metadata.match.map { " \($0)" } ?? "")
            + (exchange.metadata.state.map { " \($0)" } ?? "")
        guard var components = URLComponents(string: exchange.request.url) else {
            return method + " " + exchange.request.url
        }
        let items = (components.percentEncodedQueryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }
        components.percentEncodedQuery = nil
        components.fragment = nil
        return method + " " + (components.string ?? exchange.request.url) + "?" + items.sorted().joined(separator: "&")
    }

    /// Removes a stub; requests it would have answered go to the next match.
    public func remove(_ handle: StubHandle) {
        state.withLock { state in
            guard let removed = state.stubs.removeValue(forKey: handle.id) else { return }
            let tables = state.changingTables()
            if let route = removed.route {
                tables.index[route.key]?.removeAll { $0.id == handle.id }
                if tables.index[route.key]?.isEmpty == true { tables.index[route.key] = nil }
            } else {
                tables.unindexed[removed.method ?? ""]?.remove(removed)
                if tables.unindexed[removed.method ?? ""]?.isEmpty == true {
                    tables.unindexed[removed.method ?? ""] = nil
                }
            }
        }
    }

    /// Removes every stub and clears the request log (its limit stays); every state machine is back in
    /// `FixtureState.initial`.
    public func reset() {
        state.withLock {
            $0 = State(
                nextID: $0.nextID, log: RequestLog(limit: $0.log.limit), keepsLog: $0.keepsLog,
                preparesWire: $0.preparesWire)
        }
    }

    // MARK: State machines

    /// The state a machine (`FixtureState.name`) is in: `FixtureState.initial` until a stub moves it.
    public func state(of machine: String) -> String {
        state.withLock { $0.machines[machine] ?? FixtureState.initial }
    }

    /// Every machine a stub has moved, and its state.
    public var machineStates: [String: String] { state.withLock { $0.machines } }

    /// Puts a machine in `value` (what a test does to start in the middle of a flow).
    public func setState(of machine: String, to value: String) {
        state.withLock { $0.machines[machine] = value }
    }

    /// Every machine back in `FixtureState.initial`; stubs and the log stay.
    public func resetStates() {
        state.withLock { $0.machines = [:] }
    }

    /// What a stub set carries over when it is replaced by one of the same fixtures (`apiprobe serve` reading the
    /// folder again): each stub's hits by name, the machines' states and the requests answered.
    package struct Progress: Sendable {
        var hits: [String: Int] = [:]
        var machines: [String: String] = [:]
        var answered = 0
    }

    package var progress: Progress {
        state.withLock { state in
            var hits: [String: Int] = [:]
            for (id, count) in state.hits { if let stub = state.stubs[id] { hits[stub.name] = count } }
            return Progress(hits: hits, machines: state.machines, answered: state.answered)
        }
    }

    /// Restores `progress` for the stubs whose name `keeps` accepts (the sequences whose fixtures did not change):
    /// the others start over.
    package func restore(_ progress: Progress, keeping keeps: (String) -> Bool) {
        state.withLock { state in
            for (id, stub) in state.stubs where keeps(stub.name) {
                if let count = progress.hits[stub.name] { state.hits[id] = count }
            }
            state.machines = progress.machines
            state.answered = progress.answered
        }
    }

    /// Whether the set keeps a log of the requests it answers (``log``, the verifications); `apiprobe serve` keeps
    /// its own and turns this one off.
    package var keepsRequestLog: Bool {
        get { state.withLock { $0.keepsLog } }
        set { state.withLock { $0.keepsLog = newValue } }
    }

    /// What a server makes of each fixed response once, when a stub is added (`apiprobe serve`: the fields and
    /// body buffer it sends), kept as ``WireResponse/prepared``; set it before adding stubs.
    package var preparesWire: (@Sendable (WireResponse) -> any AnyObject & Sendable)? {
        get { state.withLock { $0.preparesWire } }
        set { state.withLock { $0.preparesWire = newValue } }
    }

    // MARK: Answering

    /// The outcome of `first` (redirects followed), as the URL protocol and `apiprobe serve` deliver it.
    ///
    /// - Parameter key: the request as a server received it (``ServedKey``), when it did: an answer that nothing
    ///   but its key decided is remembered for ``answerRepeated(_:)``.
    package func answer(_ first: StubRequest, repeatedAs key: ServedKey? = nil) -> StubOutcome {
        var latency = Duration.zero
        // The first request is answered as given (not copied); each hop of a redirect is a request of its own.
        var step = answerOne(first, latency: &latency, repeatedAs: key)
        for _ in 0..<RedirectRule.maximumHops {
            guard case .redirect(let next) = step else { break }
            step = answerOne(next, latency: &latency, repeatedAs: nil)
        }
        switch step {
        case .outcome(let outcome):
            return outcome
        case .redirect:
            return .failure(
                URLError(.httpTooManyRedirects, userInfo: [NSURLErrorFailingURLErrorKey: first.url]), latency: latency)
        }
    }

    /// A request as a server received it: its origin's text (``StubRequest/Origin``), its method and its target
    /// (origin-form, as received, of the characters a URL keeps as written: ``StubRequest/isKeptAsWritten(_:)``).
    package struct ServedKey: Hashable, Sendable {
        let origin: String
        let method: String
        let target: String
        /// The parts' hash, computed when the key is made: the set looks the key up under its lock, which two
        /// requests should hold as briefly as they can.
        private let hash: Int

        /// `nil` for a target longer than ``maximumTarget`` (never remembered).
        package init?(origin: String, method: String, target: String) {
            guard target.utf8.count <= Self.maximumTarget else { return nil }
            (self.origin, self.method, self.target) = (origin, method, target)
            var hasher = Hasher()
            hasher.combine(origin)
            hasher.combine(method)
            hasher.combine(target)
            hash = hasher.finalize()
        }

        package static func == (left: ServedKey, right: ServedKey) -> Bool {
            left.hash == right.hash && left.target == right.target && left.method == right.method
                && left.origin == right.origin
        }

        package func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        /// The longest target a set remembers an answer for.
        static let maximumTarget = 2_048
    }

    /// The answer to a request a server received, when an earlier one with the same key was answered by a stub
    /// that nothing else of the request could have changed (``answer(_:repeatedAs:)`` remembers it): that stub's
    /// next fixed turn, counted as any answer is (its hits, the set's requests, the state it moves). `nil`
    /// otherwise: the caller makes the request and asks ``answer(_:repeatedAs:)``. A change to the set's stubs
    /// forgets every remembered answer.
    package func answerRepeated(_ key: ServedKey) -> RepeatedAnswer? {
        let turn = state.withLock { state -> Stub.Turn? in
            guard !state.keepsLog, let stub = state.tables.repeated[key] else { return nil }
            return stub.fixedTurn(state.count(stub).turn)
        }
        return turn.map(RepeatedAnswer.init)
    }

    /// A fixed turn answering a repeated request (``answerRepeated(_:)``): the same response, latency and name as
    /// ``answer(_:repeatedAs:)`` would give it.
    package struct RepeatedAnswer {
        fileprivate let turn: Stub.Turn
        package var wire: WireResponse { turn.wire }
        package var latency: Duration { turn.latency }
        package var answeredBy: String { turn.name }
    }

    /// What one request of ``answer(_:repeatedAs:)`` comes to: an outcome, or a redirect the set follows.
    private enum Step {
        case outcome(StubOutcome)
        case redirect(StubRequest)
    }

    /// The answer to one request (a hop of a redirect, or the first), its latency added to `latency`; remembered
    /// under `key` when nothing else of the request decided it.
    private func answerOne(_ request: StubRequest, latency: inout Duration, repeatedAs key: ServedKey?) -> Step {
        // Matchers run outside the lock: a `.matching` closure may read the set (its log, say). The lock is held
        // only to take the tables (one reference) and the machines' states when a stub reads them.
        let (tables, machines) = state.withLock { state in
            (state.tables, state.tables.readsStates ? state.machines : [:])
        }
        let prioritized = tables.prioritized
        let lists = Self.candidates(for: request, in: tables)
        var found = Self.firstMatch(for: request, in: lists, states: machines, prioritized: prioritized)
        // A HEAD no stub names is answered as its GET, without the body (RFC 9110, 9.3.2).
        var headFromGet = false
        if found == nil, request.method == "HEAD" {
            var get = request
            get.method = "GET"
            found = Self.firstMatch(for: get, in: lists, states: machines, prioritized: prioritized)
            headFromGet = found != nil
        }
        guard let chosen = found else {
            let message = diagnose(request)
            state.withLock { state in
                if state.keepsLog { state.log.append(LoggedRequest(request: request, stub: nil, status: nil)) }
            }
            return .outcome(
                .failure(
                    URLError(
                        .resourceUnavailable,
                        userInfo: [NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: request.url]),
                    latency: latency))
        }
        // The same method and URL get the same stub again when every candidate compared only what they fix and
        // the stub's answer is its fixed turns as they are: a server's next such request is answered by its key.
        let repeatable =
            key != nil && !headFromGet && chosen.answersAsFixed
            && lists.allSatisfy { $0.allSatisfy(\.matchesByURLOnly) }
        let (turn, number, computed) = state.withLock { state -> (Int, Int, Stub.Answer?) in
            let (hits, answered) = state.count(chosen)
            // Remembered only in the tables it was matched in (a change since made others) and when no log
            // expects each request.
            if repeatable, let key, !state.keepsLog, state.tables === tables {
                tables.remember(key, answeredBy: chosen)
            }
            // A computed answer is made under the lock, as its closure may count calls; a fixed one is chosen
            // outside it: under 16 tasks, copying it inside made the requests wait for each other (issue 25).
            let computed = chosen.isFixed ? nil : chosen.answer(turn: hits, to: request)
            if state.keepsLog {
                let status: Int?
                if let fixed = chosen.fixedTurn(hits) {
                    status = fixed.status
                } else {
                    status = computed.flatMap { $0.isFault ? nil : $0.wire.status }
                }
                state.log.append(
                    LoggedRequest(
                        request: request, stub: StubHandle(id: chosen.id, name: chosen.name(turn: hits)),
                        status: status))
            }
            return (hits, answered, computed)
        }
        let answer = computed ?? chosen.answer(turn: turn, to: request, number: number)
        var wire = answer.wire
        if headFromGet {
            // The length the GET would have had, as a server says it for a HEAD.
            if wire.headers["Content-Length"] == nil { wire.headers["Content-Length"] = String(wire.body.count) }
            wire.body = Data()
        }
        let answeredBy = chosen.name(turn: turn)
        latency += answer.latency
        // The options are read (a lock) only for a redirect.
        guard !answer.isFault, RedirectRule.isRedirect(wire.status), followsRedirects,
            let hop = RedirectRule.hop(
                status: wire.status, location: wire.headers["Location"], from: request.url, method: request.method)
        else {
            return .outcome(delivering(wire, to: request, latency: latency, answeredBy: answeredBy))
        }
        return .redirect(
            StubRequest(
                method: hop.method,
                url: hop.url,
                headers: HeaderFields(request.headers.fields.filter { hop.keeps(header: $0.name) }),
                body: hop.keepsBody ? request.body : nil
            ))
    }

    /// The stubs that may answer `request`, in lists each in the order its stubs were added: those of its path and
    /// exact query (looked up only when some stub is indexed so), of its path, and the unindexed ones of its method
    /// (and GET's, for a HEAD, which a GET may answer) and of any, whose path's start the request's path has.
    private static func candidates(for request: StubRequest, in tables: Tables) -> [[Stub]] {
        var lists: [[Stub]] = []
        if tables.queryIndexed, !request.queryItems.isEmpty,
            let found = tables.index[Route.key(path: request.path, query: Self.queryKey(request.queryItems))]
        {
            lists.append(found)
        }
        if let found = tables.index[request.path] { lists.append(found) }
        if !tables.unindexed.isEmpty {
            tables.unindexed[request.method]?.candidates(for: request.path, into: &lists)
            if request.method == "HEAD" { tables.unindexed["GET"]?.candidates(for: request.path, into: &lists) }
            tables.unindexed[""]?.candidates(for: request.path, into: &lists)
        }
        return lists
    }

    /// The outcome of serving `wire`. On Linux a 401 with a `WWW-Authenticate` challenge, which
    /// swift-corelibs-foundation would never complete, is renamed or refused with a message that says why.
    private func delivering(
        _ wire: WireResponse, to request: StubRequest, latency: Duration, answeredBy: String
    ) -> StubOutcome {
        #if canImport(FoundationNetworking)
        if wire.challengesAuthentication {
            guard renamesAuthenticationChallenges else {
                let message =
                    "HTTPStubs: a stubbed 401 with WWW-Authenticate was not delivered: on Linux, "
                    + "swift-corelibs-foundation never completes a task that receives one. Set "
                    + "renamesAuthenticationChallenges = true on the StubSet to receive the 401 with the challenge "
                    + "in X-WWW-Authenticate, or stub the 401 without the header."
                return .failure(
                    URLError(
                        .userAuthenticationRequired,
                        userInfo: [NSLocalizedDescriptionKey: message, NSURLErrorFailingURLErrorKey: request.url]),
                    latency: latency)
            }
            var renamed = wire
            renamed.headers = HeaderFields(
                wire.headers.map { field in
                    headerNamesMatch(field.name, "WWW-Authenticate")
                        ? HeaderFields.Field(name: "X-WWW-Authenticate", value: field.value) : field
                })
            return .response(renamed, at: request.location, latency: latency, answeredBy: answeredBy)
        }
        #endif
        return .response(wire, at: request.location, latency: latency, answeredBy: answeredBy)
    }

}

extension StubSet {
    struct State {
        var nextID = 0
        var stubs: [Int: Stub] = [:]
        /// Requests answered, by stub id; kept when a stub is removed.
        var hits: [Int: Int] = [:]
        /// What a request looks its candidates up in, shared with the requests being answered.
        var tables = Tables()
        var log = RequestLog()
        /// Each state machine a stub moved, and its state.
        var machines: [String: String] = [:]
        /// The requests answered since the set was made or reset: `{{request.id}}` of a template.
        var answered = 0
        /// Whether requests go into ``log`` (`apiprobe serve` keeps its own, and spares each request this one).
        var keepsLog = true
        var preparesWire: (@Sendable (WireResponse) -> any AnyObject & Sendable)?

        /// The tables, to change (under the lock): copied first when a request still reads them; the answers
        /// they remembered forgotten.
        mutating func changingTables() -> Tables {
            if isKnownUniquelyReferenced(&tables) {
                tables.repeated.removeAll()
            } else {
                tables = Tables(copying: tables)
            }
            return tables
        }

        /// Counts a request `stub` answers: its hits, the set's requests, the state it moves. Returns the turn it
        /// answers (0 for its first) and the request's number in the set (`{{request.id}}`).
        mutating func count(_ stub: Stub) -> (turn: Int, answered: Int) {
            // One lookup of the stub's count, changed in place.
            let turn = Self.increment(&hits[stub.id, default: 0])
            answered += 1
            if let machine = stub.state, let next = machine.next { machines[machine.name] = next }
            return (turn, answered)
        }

        /// `value` before it is incremented.
        private static func increment(_ value: inout Int) -> Int {
            defer { value += 1 }
            return value
        }
    }

    /// The lookup tables of a set. A request takes them under the lock with one reference (not a copy of each
    /// table) and reads them after; they are changed only under the lock and only while no request holds them
    /// (``State/changingTables()`` copies them otherwise), so a request never sees them change.
    final class Tables: @unchecked Sendable {
        /// The stubs with an exact method and path, by ``Route/key`` (the path, or the path and the query), in the
        /// order they were added.
        var index: [String: [Stub]] = [:]
        /// The others, by the method they fix (`""` for none).
        var unindexed: [String: PrefixIndex] = [:]
        /// Whether a stub has a priority other than the default: matching then looks at every candidate.
        var prioritized = false
        /// Whether a stub is indexed by its exact query: a request then looks its query up too.
        var queryIndexed = false
        /// Whether a stub requires a state machine's state: a request then reads the machines.
        var readsStates = false
        /// The stub that answered a server's request, by its key, when nothing else of the request decided it
        /// (``StubSet/answerRepeated(_:)``); read and written only under the set's lock, and never copied (a copy
        /// of the tables is a change, which forgets them).
        var repeated: [ServedKey: Stub] = [:]

        /// The most answers remembered: past it they are forgotten and remembered again, so that a client sending
        /// ever new targets costs bounded memory.
        static let repeatedLimit = 4_096

        func remember(_ key: ServedKey, answeredBy stub: Stub) {
            if repeated.count >= Self.repeatedLimit { repeated.removeAll(keepingCapacity: true) }
            repeated[key] = stub
        }

        init() {}

        init(copying other: Tables) {
            (index, unindexed, prioritized, queryIndexed, readsStates) =
                (other.index, other.unindexed, other.prioritized, other.queryIndexed, other.readsStates)
        }
    }

    /// Stubs that no exact path indexes (a path pattern, a template), by the literal text their paths start with
    /// (``RequestMatcher/pathPrefix``, `""` for none), each list in the order the stubs were added: a request
    /// tries only those whose start its path has, not every pattern of the set (a thousand fixtures with
    /// `pathPattern`s cost a request a few lookups).
    struct PrefixIndex {
        /// The lengths (UTF-8) of the starts, ascending, each once.
        private var lengths: [Int] = []
        private var stubs: [String: [Stub]] = [:]

        var isEmpty: Bool { stubs.isEmpty }

        mutating func add(_ stub: Stub) {
            let prefix = stub.matcher.pathPrefix ?? ""
            if stubs[prefix] == nil {
                let length = prefix.utf8.count
                let place = lengths.partitioningIndex { $0 >= length }
                if place == lengths.count || lengths[place] != length { lengths.insert(length, at: place) }
            }
            stubs[prefix, default: []].append(stub)
        }

        mutating func remove(_ stub: Stub) {
            let prefix = stub.matcher.pathPrefix ?? ""
            stubs[prefix]?.removeAll { $0.id == stub.id }
            guard stubs[prefix]?.isEmpty == true else { return }
            stubs[prefix] = nil
            let length = prefix.utf8.count
            if !stubs.keys.contains(where: { $0.utf8.count == length }) { lengths.removeAll { $0 == length } }
        }

        /// Appends to `lists` the stubs whose start `path` has, one list per start.
        func candidates(for path: String, into lists: inout [[Stub]]) {
            let bytes = path.utf8
            let count = bytes.count
            for length in lengths {
                guard length <= count else { return }
                let start = length == count ? path : String(decoding: bytes.prefix(length), as: UTF8.self)
                if let found = stubs[start] { lists.append(found) }
            }
        }
    }

    /// The exact method and path (and query, for a fixture's exact one) of a stub, which find its candidates
    /// without trying every stub.
    struct Route: Hashable {
        var method: String
        var path: String
        var query: String?

        /// The key of the index: the path, or the path and the query key after a `?` (no path holds one). A stub
        /// that requires no query is indexed under its path (``Stub/matches(_:)`` compares the query): a request
        /// without one looks up its path alone.
        var key: String {
            guard let query, !query.isEmpty else { return path }
            return Self.key(path: path, query: query)
        }

        static func key(path: String, query: String) -> String { path + "?" + query }
    }
}

/// Names a stub of a set, for verification and removal.
public struct StubHandle: Sendable, Hashable, CustomStringConvertible {
    let id: Int
    /// The stub's name: the fixture name, or a description of its matcher.
    public let name: String

    public var description: String { name }
}

/// The global mode could not be installed; the message says why and what to do.
public struct StubInstallationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
