package import APIProbeShared
import FixtureImport
package import Foundation
import HTTPFixtures
import HTTPStubs
import HTTPTypes
package import Hummingbird
import NIOCore
package import OpenAPISupport
import ProbeRunner
import RecipesServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fixtures of a folder served over HTTP (`apiprobe serve`), for every process that cannot use the in-process
/// stubs: a UI test's app, a preview, the Android and web teammates. Requests are answered by a ``StubSet`` holding
/// the fixtures (the same matcher, redirects, sequences, scenarios and diagnostics as `HTTPStubs` in `swift test`,
/// not a copy).
///
/// The fixtures were recorded against one origin (`https://api.example.com`); a request to the server is matched as
/// if it had been sent there, with its path and query. A request no fixture matches is answered 404 with the
/// near-miss diagnostics as JSON, and a line in the log. A fixture changed on disk is served from the next request
/// on (``FixtureLibrary``).
///
/// With a description (``Options/spec``), a request no fixture matches is answered from the description's own
/// example for its operation, or a 404 that says the operation has none; with ``Options/validatesRequests``, a
/// request that does not fit its operation (the rule of `openapi check`) is answered 400 with the JSON Pointer of
/// each problem. With ``Options/proxy``, a request no fixture matches is sent to the live API, answered with its
/// response, and recorded as a redacted fixture that answers the same request from then on.
package struct FixtureServer: Sendable {
    package let port: Int
    package let origin: URL
    package let fixtureCount: Int
    /// The scenarios the folder holds, and the one active at the start.
    package let scenarios: [String]
    package let scenario: String?
    private let task: Task<Void, any Error>
    private let forwarder: LiveForwarder?
    /// The look at the folder every 200 ms (``FixtureLibrary/watch()``).
    private let watcher: Task<Void, any Error>

    /// The largest request body read; a larger one is answered 413.
    static let maximumRequestBody = 16 << 20

    /// How the fixtures are served.
    package struct Options: Sendable {
        /// The scheme, host and port the fixtures were recorded against; `nil` when they all share one.
        package var origin: URL?
        package var host = "127.0.0.1"
        /// 0: the system picks.
        package var port = 0
        package var spec: OpenAPISpec?
        package var validatesRequests = false
        /// The scenario active at the start (and after a reset).
        package var scenario: String?
        /// Added to every answer from a fixture or an example.
        package var latency: Duration = .zero
        /// The live API's origin, for what no fixture answers.
        package var proxy: URL?
        /// The token the admin API asks for (`Authorization: Bearer …`); required when `host` is not loopback.
        package var adminToken: String?
        /// Whether pages of other origins may call the server (CORS: preflights answered, answers allowing the
        /// caller's origin); the admin API never.
        package var cors = false

        package init() {}
    }

    /// A folder that cannot be served: no fixtures, a bad fixture, fixtures of several origins.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Loads every fixture below `folder` and starts serving them.
    ///
    /// - Parameter log: a line for each request no fixture answered, each recording, each reload.
    /// - Throws: ``Failure`` naming the folder or the fixture (an ``InputError`` says the file and the place), the
    ///   scenario, or the port.
    package static func start(
        folder: URL, displayName: String, options: Options, log: @escaping @Sendable (String) -> Void
    ) async throws -> FixtureServer {
        if !AdminGuard.isLoopback(options.host), options.adminToken == nil {
            throw Failure(
                description: "--host \(options.host): the admin API (\(AdminAPI.prefix)) and any recording would be "
                    + "open to the network; give --admin-token TOKEN (callers send Authorization: Bearer TOKEN), or "
                    + "listen on 127.0.0.1")
        }
        if let token = options.adminToken, token.utf8.count < 16 {
            throw Failure(description: "--admin-token: expected at least 16 characters, found \(token.utf8.count)")
        }
        let (responder, library, forwarder, fixtureCount, scenarios) = try prepare(
            folder: folder, displayName: displayName, options: options, log: log)
        let chosen = responder.origin
        do {
            let (bound, task) = try await LoopbackLaunch.start(
                responder, host: options.host, port: options.port, name: "apiprobe serve")
            return FixtureServer(
                port: bound, origin: chosen, fixtureCount: fixtureCount, scenarios: scenarios,
                scenario: options.scenario, task: task, forwarder: forwarder, watcher: library.watch())
        } catch {
            forwarder?.close()
            throw Failure(
                description: "--port \(options.port): \(error)"
                    + (error.isAddressInUse
                        ? "; choose another port, or leave --port out for one the system picks" : ""))
        }
    }

    /// What ``start(folder:displayName:options:log:)`` serves with: the responder, its library of fixtures, the
    /// live API's forwarder, and the fixtures and scenarios loaded.
    private static func prepare(
        folder: URL, displayName: String, options: Options, log: @escaping @Sendable (String) -> Void
    ) throws -> (FixtureResponder, FixtureLibrary, LiveForwarder?, fixtureCount: Int, scenarios: [String]) {
        let store = FixtureStore(directory: folder)
        // With a description or a live API, a folder without fixtures is served from those alone.
        let allowsNone = options.spec != nil || options.proxy != nil
        let (fixtures, signature) = try Self.load(store, displayName: displayName, allowsNone: allowsNone)
        let scenarios = Self.scenarios(of: fixtures)
        if let scenario = options.scenario, !scenarios.contains(scenario) {
            throw Failure(
                description: "--scenario \(scenario): expected "
                    + (scenarios.isEmpty
                        ? "a folder \(FixtureStore.scenariosFolder)/\(scenario)/ of fixtures in \(displayName), found none"
                        : "one of \(scenarios.joined(separator: ", ")) (the folders below \(FixtureStore.scenariosFolder)/)")
            )
        }
        let chosen: URL
        if let origin = options.origin {
            chosen = origin
        } else if !fixtures.isEmpty {
            chosen = try Self.origin(of: fixtures.map(\.exchange), displayName: displayName)
        } else if let proxy = options.proxy {
            chosen = proxy
        } else {
            chosen = options.spec.map(Self.origin(of:)) ?? URL(string: "http://localhost")!
        }
        let library = FixtureLibrary(
            store: store, displayName: displayName, fixtures: fixtures, signature: signature,
            scenario: options.scenario, allowsNone: allowsNone, log: log)
        let forwarder = options.proxy.map { LiveForwarder(upstream: $0) }
        let responder = FixtureResponder(
            library: library, origin: chosen, spec: options.spec, validatesRequests: options.validatesRequests,
            latency: options.latency, forwarder: forwarder,
            adminGuard: AdminGuard(host: options.host, token: options.adminToken), cors: options.cors,
            naming: options.proxy != nil ? options.spec?.fixtureNaming ?? FixtureNaming() : FixtureNaming(), log: log)
        return (responder, library, forwarder, fixtures.count, scenarios)
    }

    /// The handler of a server ``start(folder:displayName:options:log:)`` would start, without the server: for a
    /// benchmark of one request's handling without the network (`ServeBenchmark --handler`).
    package static func responder(
        folder: URL, displayName: String, options: Options, log: @escaping @Sendable (String) -> Void
    ) throws -> some HTTPResponder<ServeContext> {
        try prepare(folder: folder, displayName: displayName, options: options, log: log).0
    }

    /// Runs until the task is cancelled (or the server fails).
    package func wait() async throws {
        defer { watcher.cancel() }
        try await task.value
    }

    /// Stops accepting connections and returns when the port is closed.
    package func stop() async {
        watcher.cancel()
        task.cancel()
        _ = try? await task.value
        forwarder?.close()
    }

    /// Every fixture of `store` (sorted by name), and the signature of the files they came from; none is an error
    /// unless `allowsNone`.
    static func load(_ store: FixtureStore, displayName: String, allowsNone: Bool = false) throws -> (
        [(name: String, exchange: Exchange)], [String: String]
    ) {
        let signature = FixtureLibrary.signature(of: store)
        let names = store.names()
        guard !names.isEmpty || allowsNone else {
            throw Failure(description: "\(displayName): expected fixtures (*.json), found none")
        }
        var fixtures: [(name: String, exchange: Exchange)] = []
        for name in names {
            let exchange = try store.exchange(named: name)
            // An informational status (100, 101) is no answer a server can end a request with: a client would wait
            // for the real one forever.
            guard (200...599).contains(exchange.response.status) else {
                let error = InputError(
                    file: store.displayPath(for: store.url(for: name)), position: .jsonPointer("/response/status"),
                    expected: "a status from 200 to 599 (apiprobe serve answers with it)",
                    found: String(exchange.response.status))
                throw Failure(description: error.description)
            }
            fixtures.append((name, exchange))
        }
        return (fixtures, signature)
    }

    static func scenarios(of fixtures: [(name: String, exchange: Exchange)]) -> [String] {
        FixtureStore.scenarioNames(among: fixtures.lazy.map(\.name))
    }

    static func stubSet(_ fixtures: [(name: String, exchange: Exchange)], scenario: String?) -> StubSet {
        let stubs = StubSet()
        stubs.keepsRequestLog = false  // the library keeps the server's log
        // A 3xx fixture is the answer: the client follows it, as it would the live API's.
        stubs.followsRedirects = false
        // Each fixture's fields and body buffer, made once here rather than for every request it answers.
        stubs.preparesWire = { FixtureResponder.Prepared($0) }
        stubs.stubFixtures(fixtures, scenario: scenario)
        return stubs
    }

    /// The origin of a description's first server (`https://api.example.com`), or `http://localhost` for one
    /// whose servers are relative or absent.
    static func origin(of spec: OpenAPISpec) -> URL {
        var first = ""
        if case .array(let servers)? = spec.root["servers"], case .string(let url)? = servers.first?["url"] {
            first = url
        }
        guard let components = URLComponents(string: first), let scheme = components.scheme,
            let host = components.host,
            let url = URL(string: "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? ""))
        else { return URL(string: "http://localhost")! }
        return url
    }

    /// The one origin every fixture was recorded against.
    static func origin(of exchanges: [Exchange], displayName: String) throws(Failure) -> URL {
        var origins: [String] = []
        for exchange in exchanges {
            guard let components = URLComponents(string: exchange.request.url), let scheme = components.scheme,
                let host = components.host
            else { continue }
            let origin = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
            if !origins.contains(origin) { origins.append(origin) }
        }
        guard origins.count == 1, let url = URL(string: origins[0]) else {
            throw Failure(
                description: "\(displayName): expected fixtures recorded against one origin, found "
                    + (origins.isEmpty ? "none" : origins.joined(separator: ", "))
                    + "; serve one API's folder (Stubs/<api>), or give --origin")
        }
        return url
    }
}

extension HeaderFields {
    /// A request's fields as Hummingbird received them: names as spelt, order and repeats kept.
    init(_ fields: HTTPFields) {
        self.init(fields.map { HeaderFields.Field(name: $0.name.rawName, value: $0.value) })
    }
}

/// One request the server received, for the admin API's log and its verification.
struct ServedEntry: Sendable {
    /// How it was answered.
    enum Source: String, Sendable {
        case fixture, fault, example, proxy, invalid, miss
    }
    var method: String
    /// The path and query as received (redacted when shown).
    var target: String
    var fixture: String?
    var status: Int?
    var source: Source
    /// The request's fields and body as received, for a verification by header, query or body (never shown;
    /// converted only when a verification asks).
    var fields = HTTPFields()
    var body: ByteBuffer?
    /// Whether the body was over ``bodyLimit`` and not kept.
    var bodyOmitted = false

    /// The largest body the log keeps for a verification.
    static let bodyLimit = 64 << 10

    var path: String { target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target }

    /// The request as the stubs' matcher reads it (the origin does not matter to a verification).
    var stubRequest: StubRequest {
        StubRequest(
            method: method, url: URL(string: "http://localhost" + target) ?? URL(string: "http://localhost/")!,
            headers: HeaderFields(fields),
            body: body.map { Data($0.readableBytesView) })
    }
}

/// The fixtures being served, read again when a file changes: a request finds the folder as it is (checked at most
/// every ``checkInterval``). A folder that no longer loads (a fixture being written, a bad edit) keeps the last good
/// set, and says why once per change. The log of requests, the faults and the active scenario outlive a reload.
final class FixtureLibrary: Sendable {
    static let checkInterval: Duration = .milliseconds(200)
    /// The requests kept for the admin API; older ones are counted as dropped.
    static let logLimit = 10_000

    struct Loaded {
        var fixtures: [(name: String, exchange: Exchange)]
        var stubs: StubSet
        var signature: [String: String]
        var checked: ContinuousClock.Instant
        var scenario: String?
        /// Why the folder as it is on disk does not load, until it changes again.
        var failure: String?
        /// Recordings adopted since the start (a count), and when each was (its count then), so that a scan that
        /// ran while one was written does not take it for a change on disk.
        var adoptions = 0
        var adopted: [String: Int] = [:]
        /// How long the last look at the folder took.
        var scanCost: Duration = .zero
        /// The faults injected by the admin API and not used up, in the order they were added.
        var faults: [AdminAPI.Fault] = []
    }

    struct Log {
        var entries: [ServedEntry] = []
        var total = 0
        var dropped: Int { total - entries.count }

        mutating func append(_ entry: ServedEntry) {
            total += 1
            entries.append(entry)
            // Trimmed in batches, so an append stays O(1) on average.
            if entries.count >= FixtureLibrary.logLimit * 2 { entries.removeFirst(FixtureLibrary.logLimit) }
        }

        var retained: ArraySlice<ServedEntry> { entries.suffix(FixtureLibrary.logLimit) }
    }

    let store: FixtureStore
    let displayName: String
    let allowsNone: Bool
    /// The scenario of the start, which a reset goes back to.
    let initialScenario: String?
    let log: @Sendable (String) -> Void
    private let state: Locked<Loaded>
    private let requests = Locked(Log())

    init(
        store: FixtureStore, displayName: String, fixtures: [(name: String, exchange: Exchange)],
        signature: [String: String], scenario: String? = nil, allowsNone: Bool = false,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.displayName = displayName
        self.allowsNone = allowsNone
        self.initialScenario = scenario
        self.log = log
        // How long a look at this folder takes, so that the first requests to a large one do not look themselves.
        let start = ContinuousClock.now
        _ = Self.signature(of: store)
        let cost = ContinuousClock.now - start
        state = Locked(
            Loaded(
                fixtures: fixtures, stubs: FixtureServer.stubSet(fixtures, scenario: scenario), signature: signature,
                checked: ContinuousClock.now, scenario: scenario, scanCost: cost))
    }

    /// Each fixture file's size and modification time, by name (`recipes/search`, as `FixtureStore.names()` names
    /// it).
    ///
    /// readdir(3) and stat(2) on paths, no `URL` and no `FileManager`: a request waits for this check every 200 ms,
    /// and with Foundation's enumerator and attributes a folder of 1,000 fixtures cost 8% of the throughput and
    /// tripled the p99.
    static func signature(of store: FixtureStore) -> [String: String] {
        var signature: [String: String] = [:]
        scan(store.directory.path, prefix: "", depth: 0, into: &signature)
        return signature
    }

    private static func scan(_ folder: String, prefix: String, depth: Int, into signature: inout [String: String]) {
        guard depth < 32, let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let path = folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                scan(path, prefix: prefix + name + "/", depth: depth + 1, into: &signature)
            } else if name.hasSuffix(".json") {
                signature[prefix + String(name.dropLast(".json".count))] = Self.signature(info)
            }
        }
    }

    static func fileSignature(_ url: URL) -> String {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return "unreadable" }
        return signature(info)
    }

    private static func signature(_ info: stat) -> String {
        #if canImport(Darwin)
        let modified = info.st_mtimespec
        #else
        let modified = info.st_mtim
        #endif
        return "\(info.st_size) \(modified.tv_sec).\(modified.tv_nsec)"
    }

    /// The fixtures read again (sequences start over, the scenario of the start active), the log and the faults
    /// cleared.
    ///
    /// - Throws: why the folder does not load (the file and the place); nothing is reset then.
    func reset() throws {
        let (fixtures, signature) = try FixtureServer.load(store, displayName: displayName, allowsNone: allowsNone)
        let scenario = FixtureServer.scenarios(of: fixtures).contains(initialScenario ?? "") ? initialScenario : nil
        requests.withLock { $0 = Log() }
        state.withLock {
            $0 = Loaded(
                fixtures: fixtures, stubs: FixtureServer.stubSet(fixtures, scenario: scenario), signature: signature,
                checked: ContinuousClock.now, scenario: scenario, adoptions: $0.adoptions, adopted: $0.adopted)
        }
    }

    /// The scenario active now, and every one the folder holds.
    var scenarios: (active: String?, all: [String]) {
        state.withLock { ($0.scenario, FixtureServer.scenarios(of: $0.fixtures)) }
    }

    /// Serves `scenario`'s fixtures over the others from the next request on (`nil`: none); every sequence starts
    /// over. The log and the faults stay.
    ///
    /// - Throws: ``FixtureServer/Failure`` for a scenario the folder does not hold.
    func activate(_ scenario: String?) throws(FixtureServer.Failure) {
        try state.withLock { (loaded: inout Loaded) throws(FixtureServer.Failure) in
            let all = FixtureServer.scenarios(of: loaded.fixtures)
            if let scenario, !all.contains(scenario) {
                throw FixtureServer.Failure(
                    description: "no scenario \(scenario) in \(displayName): expected "
                        + (all.isEmpty
                            ? "a folder \(FixtureStore.scenariosFolder)/\(scenario)/" : all.joined(separator: ", ")))
            }
            loaded.scenario = scenario
            loaded.stubs = FixtureServer.stubSet(loaded.fixtures, scenario: scenario)
        }
    }

    func addFault(_ fault: AdminAPI.Fault) { state.withLock { $0.faults.append(fault) } }

    var faultCount: Int { state.withLock { $0.faults.count } }

    /// The stub set for a request (``current()``) and the injected fault for its method and path, used up by it
    /// (`nil` when none applies): both under one lock, as every request asks for both.
    func serving(method: String, path: String) -> (stubs: StubSet, fault: AdminAPI.Fault?) {
        stubs(takingFaultFor: (method, path))
    }

    /// The stub set as it is now (``current()``), and the fault for `request` when one is given.
    private func stubs(
        takingFaultFor request: (method: String, path: String)?
    ) -> (stubs: StubSet, fault: AdminAPI.Fault?) {
        let now = ContinuousClock.now
        let (stubs, due, fault) = state.withLock { state in
            let due = now - state.checked >= Self.checkInterval && state.scanCost <= Self.inlineScanLimit
            if due { state.checked = now }
            let fault = request.flatMap { Self.takeFault(method: $0.method, path: $0.path, from: &state.faults) }
            return (state.stubs, due, fault)
        }
        guard due else { return (stubs, fault) }
        return ((try? reload())?.stubs ?? stubs, fault)
    }

    /// The fault of `faults` for `method` and `path`, used up; `nil` when none applies.
    private static func takeFault(method: String, path: String, from faults: inout [AdminAPI.Fault]) -> AdminAPI.Fault?
    {
        guard !faults.isEmpty, let index = faults.firstIndex(where: { $0.method == method && $0.matches(path: path) })
        else { return nil }
        faults[index].remaining -= 1
        let fault = faults[index]
        if faults[index].remaining == 0 { faults.remove(at: index) }
        return fault
    }

    func note(_ entry: ServedEntry) { requests.withLock { $0.append(entry) } }

    /// The requests received since the start or the last reset (the most recent ``logLimit``), and how many older
    /// ones were dropped.
    var served: (entries: [ServedEntry], dropped: Int) {
        requests.withLock { (Array($0.retained), $0.dropped) }
    }

    /// Writes a recording from the live API as a new fixture named after `base` (`search`, then `search.2`: samples
    /// of one endpoint) and serves it from the next request on.
    ///
    /// - Returns: the fixture's name.
    /// - Throws: ``InputError`` when the file cannot be written (nothing is served from it then).
    func adopt(_ exchange: Exchange, base: String) throws(InputError) -> String {
        try state.withLock { (loaded: inout Loaded) throws(InputError) -> String in
            // Every fixture served is in the signature (read or adopted): a dictionary lookup, not a scan of the
            // fixtures, and a look at the disk for a file written since the last read.
            let name = UniqueName.first(base, separator: ".") { candidate in
                loaded.signature[candidate] != nil
                    || FileManager.default.fileExists(atPath: store.url(for: candidate).path)
            }
            let url = store.url(for: name)
            try AtomicFile.write(exchange.encoded(), to: url, displayName: displayPath(url), inside: store.directory)
            // Inserted in place, in the order of `FixtureStore.names()` (sequences keep their order): no sort of
            // every fixture per recording.
            let position = loaded.fixtures.partitioningIndex { !($0.name < name) }
            loaded.fixtures.insert((name, exchange), at: position)
            loaded.stubs.stubFixtures([(name, exchange)], scenario: nil)
            loaded.signature[name] = Self.fileSignature(url)
            loaded.adoptions += 1
            loaded.adopted[name] = loaded.adoptions
            return name
        }
    }

    /// The most a look at the folder may take for a request to make it itself: a few hundred fixtures.
    static let inlineScanLimit: Duration = .milliseconds(2)

    /// The stub set for the folder as it is now. When ``checkInterval`` has passed since the last look, a request
    /// looks itself if a look is cheap (a folder of a few hundred fixtures: an edit is served from the next request
    /// after 200 ms, however loaded the machine); a larger folder is looked at only by ``watch()``, off the
    /// requests' path.
    func current() -> StubSet { stubs(takingFaultFor: nil).stubs }

    /// Looks at the folder every ``checkInterval`` off the requests' path, so an edit is served at most about
    /// 200 ms late even to no request; for a folder so large that a look costs more than 5% of a core (about 10,000
    /// fixtures), every 20 times as long as the last look took. `POST /__apiprobe/reload` looks at once.
    func watch() -> Task<Void, any Error> {
        // On the shared pool, not on the server's own threads: a scan of a large folder blocks its thread for
        // milliseconds, and no request should wait behind it.
        Task.detached(priority: .utility) { [self] in
            var interval = Self.checkInterval
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                let due = state.withLock { ContinuousClock.now - $0.checked >= Self.checkInterval }
                guard due else { continue }
                let start = ContinuousClock.now
                _ = try? self.reload()
                interval = max(Self.checkInterval, (ContinuousClock.now - start) * 20)
            }
        }
    }

    /// What a reload found: the stub set served from now on, and the fixtures that changed (added, edited or
    /// removed).
    struct Reloaded {
        var stubs: StubSet
        var fixtureCount: Int
        var changed: [String]
    }

    /// Reads the folder again if a file changed since the last read. Only the sequences whose fixtures changed
    /// start over: the others keep their turn, and the state machines their states.
    ///
    /// - Throws: why the folder does not load (the file and the place); the last good set is served then, and the
    ///   error is logged once per change.
    @discardableResult
    func reload() throws -> Reloaded {
        let now = ContinuousClock.now
        let adoptedBefore = state.withLock { $0.adoptions }
        let found = Self.signature(of: store)
        let cost = ContinuousClock.now - now
        // Read after the scan: a recording adopted meanwhile is in both, or (written after the scan passed its
        // folder) in the signature alone and left out of the comparison; it is no change on disk.
        let (served, signature) = state.withLock { state -> (StubSet, [String: String]) in
            state.checked = now
            state.scanCost = cost
            var known = state.signature
            for (name, adoption) in state.adopted where adoption > adoptedBefore && found[name] == nil {
                known[name] = nil
            }
            return (state.stubs, known)
        }
        guard found != signature else {
            // Unchanged since the last read: a folder that did not load still does not.
            let (count, failure) = state.withLock { ($0.fixtures.count, $0.failure) }
            if let failure { throw FixtureServer.Failure(description: failure) }
            return Reloaded(stubs: served, fixtureCount: count, changed: [])
        }
        var fixtures: [(name: String, exchange: Exchange)]
        var loadedSignature: [String: String]
        do {
            (fixtures, loadedSignature) = try FixtureServer.load(
                store, displayName: displayName, allowsNone: allowsNone)
        } catch {
            // Remember the broken state, so the error is said once, and go on with the last good set.
            let first = state.withLock { loaded -> Bool in
                defer {
                    loaded.signature = found
                    loaded.failure = "\(error)"
                }
                return loaded.signature != found
            }
            if first { log("\(error) (still serving the fixtures read before)") }
            throw error
        }
        let (reloaded, changed) = state.withLock { loaded -> (StubSet, [String]) in
            // A scenario whose folder went away leaves the common fixtures served.
            if let scenario = loaded.scenario, !FixtureServer.scenarios(of: fixtures).contains(scenario) {
                log("scenario \(scenario) is no longer in \(displayName); serving the fixtures of no scenario")
                loaded.scenario = nil
            }
            let before = Dictionary(loaded.fixtures.map { ($0.name, $0.exchange) }, uniquingKeysWith: { $1 })
            // A recording adopted after the folder was read stays served.
            for (name, adoption) in loaded.adopted
            where adoption > adoptedBefore && loadedSignature[name] == nil {
                guard let exchange = before[name] else { continue }
                fixtures.insert((name, exchange), at: fixtures.partitioningIndex { !($0.name < name) })
                loadedSignature[name] = loaded.signature[name]
            }
            let after = Dictionary(fixtures.map { ($0.name, $0.exchange) }, uniquingKeysWith: { $1 })
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
            let stubs = FixtureServer.stubSet(fixtures, scenario: loaded.scenario)
            // A stub is named after its fixtures (`search, then search.2`): one whose fixtures are all unchanged
            // keeps its turn.
            let changedNames = Set(changed)
            stubs.restore(loaded.stubs.progress) { name in
                !name.components(separatedBy: ", then ").contains(where: changedNames.contains)
            }
            loaded = Loaded(
                fixtures: fixtures, stubs: stubs, signature: loadedSignature, checked: now, scenario: loaded.scenario,
                adoptions: loaded.adoptions, adopted: loaded.adopted, scanCost: cost, faults: loaded.faults)
            return (stubs, changed)
        }
        log(
            "reloaded \(fixtures.count) fixture\(fixtures.count == 1 ? "" : "s") of \(displayName)"
                + (changed.isEmpty
                    ? ""
                    : " (changed: \(changed.prefix(10).joined(separator: ", "))"
                        + (changed.count > 10 ? ", and \(changed.count - 10) more" : "") + ")"))
        return Reloaded(stubs: reloaded, fixtureCount: fixtures.count, changed: changed)
    }
}

/// The context of a request to `serve`: Hummingbird's, and the connection, which a fixture's fault closes without
/// an answer.
package struct ServeContext: RequestContext {
    package var coreContext: CoreRequestContextStorage
    let channel: any Channel

    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Answers each request from the stub set, as if it had been sent to the fixtures' origin.
struct FixtureResponder: HTTPResponder {
    typealias Context = ServeContext
    let library: FixtureLibrary
    let origin: URL
    /// ``origin`` as a request's target is appended to it (no trailing `/`), made once, not per request.
    let originText: String
    /// ``origin``'s parts as the stub layer reads them, read once: a request's are not parsed again from its URL.
    let originParts: StubRequest.Origin?
    /// The description whose examples answer a miss, and whose operations judge each request when
    /// `validatesRequests`.
    let spec: OpenAPISpec?
    let validatesRequests: Bool
    /// Added to each answer from a fixture or an example.
    let latency: Duration
    /// The live API that answers (and records) a miss.
    let forwarder: LiveForwarder?
    /// Who may use the admin API.
    let adminGuard: AdminGuard
    /// Whether a request from a browser's page on another origin is allowed (`--cors`).
    let cors: Bool
    /// How a recording is named: by the description's operations when there is one.
    let naming: FixtureNaming
    let log: @Sendable (String) -> Void

    init(
        library: FixtureLibrary, origin: URL, spec: OpenAPISpec? = nil, validatesRequests: Bool = false,
        latency: Duration = .zero, forwarder: LiveForwarder? = nil,
        adminGuard: AdminGuard = AdminGuard(host: "127.0.0.1", token: nil), cors: Bool = false,
        naming: FixtureNaming = FixtureNaming(), log: @escaping @Sendable (String) -> Void
    ) {
        (self.library, self.origin, self.spec, self.validatesRequests, self.latency) =
            (library, origin, spec, validatesRequests, latency)
        originText = StubRequest.Origin.text(of: origin)
        originParts = StubRequest.Origin(origin)
        (self.forwarder, self.adminGuard, self.cors, self.naming, self.log) = (forwarder, adminGuard, cors, naming, log)
    }

    /// The stub layer's near-miss text as a server's client reads it: fixtures, not stubs (the text names the
    /// in-process API for Swift tests), at most 4,000 characters.
    static func forHTTPClients(_ diagnostics: String) -> String {
        var text = diagnostics.replacingOccurrences(of: "HTTPStubs: no stub matches", with: "No fixture matches")
            .replacingOccurrences(of: "Closest stubs", with: "Closest fixtures")
        if text.count > 4_000 { text = String(text.prefix(4_000)) + "…" }
        return text
    }

    /// The most characters of a request's target an answer or a log line repeats.
    static let maximumShownTarget = 1_000

    /// Headers of one transfer, set by the server for the body it sends, never copied from a fixture.
    static let transferHeaders = ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive"]

    /// An answer's fields (a fixture's or the live API's) as the server sends them: in their order, a repeated field
    /// (`Set-Cookie`) once per value, without the headers of one transfer (Hummingbird writes its own).
    static func answerFields(_ headers: HeaderFields) -> HTTPFields {
        var fields = HTTPFields()
        for field in headers where !transferHeaders.contains(where: { headerNamesMatch($0, field.name) }) {
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        return fields
    }

    /// A fixture's answer in this server's types: its status, its fields as sent (``answerFields(_:)``, with the
    /// `Content-Length` of its body) and its body's buffer. Made once per fixture when it is loaded
    /// (`WireResponse.prepared`), so that a request it answers copies neither. A class: the stub set keeps it as
    /// an object.
    final class Prepared: Sendable {
        let status: HTTPResponse.Status
        let fields: HTTPFields
        let body: ByteBuffer
        /// Whether a `Location` field is among ``fields`` (made relative to the server for each answer).
        let hasLocation: Bool

        init(_ wire: WireResponse) {
            status = HTTPResponse.Status(code: wire.status)
            var fields = FixtureResponder.answerFields(wire.headers)
            body = ByteBuffer(bytes: wire.body)
            // The length Hummingbird would add to each response: here once, so that an answer does not copy the
            // fields to add it.
            fields[.contentLength] = String(body.readableBytes)
            self.fields = fields
            hasLocation = fields[.location] != nil
        }
    }

    /// How long a `timedOut` fault holds a request without an answer when its fixture has no latency, before the
    /// connection is closed: URLSession's default timeout, so a client with its own shorter one times out first.
    static let timeoutHold: Duration = .seconds(60)

    func respond(to request: Request, context: Context) async throws -> Response {
        guard cors, !request.uri.path.hasPrefix(AdminAPI.prefix), let origin = request.headers[.origin] else {
            return try await answer(request, context: context)
        }
        // A browser's preview on another origin (`--cors`): its preflight answered here, and every answer allowing
        // it. The admin API is never opened to another origin.
        if request.method == .options, let asked = request.headers[.accessControlRequestMethod] {
            var fields: HTTPFields = [
                .accessControlAllowOrigin: origin, .accessControlAllowMethods: asked, .vary: "Origin",
                .accessControlMaxAge: "600",
            ]
            if let headers = request.headers[.accessControlRequestHeaders] {
                fields[.accessControlAllowHeaders] = headers
            }
            return Response(status: .noContent, headers: fields)
        }
        var response = try await answer(request, context: context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = "*"
        response.headers.append(HTTPField(name: .vary, value: "Origin"))
        return response
    }

    func answer(_ request: Request, context: Context) async throws -> Response {
        // What the server says about a request (its answer to a miss, the log) passes the redactor: a client's
        // `?api_key=…` is not echoed into logs.
        // Made only when the request is named (a miss, an error, the log): an answered request costs no redaction.
        lazy var redactor = Redactor()
        // A request's target is echoed (answers, the log) at most 1,000 characters long: a 64 KB path is not
        // answered with five times its size.
        var shown: String {
            let target = redactor.redactURL(request.uri.description)
            return "\(request.method.rawValue) "
                + (target.count > Self.maximumShownTarget
                    ? String(target.prefix(Self.maximumShownTarget)) + "… (\(target.utf8.count) bytes)" : target)
        }
        let method = request.method.rawValue
        let target = request.uri.description
        let path = request.uri.path
        var body = ByteBuffer()
        func note(_ source: ServedEntry.Source, status: Int?, fixture: String? = nil) {
            let kept = body.readableBytes <= ServedEntry.bodyLimit
            // The log keeps a copy: the collected body is a slice of the connection's receive buffer, and a
            // buffer still referenced cannot be reused, so keeping the slice made NIO allocate a new receive
            // buffer for each later read (a tenth of the server's time under load with POSTs).
            library.note(
                ServedEntry(
                    method: method, target: target, fixture: fixture, status: status, source: source,
                    fields: request.headers, body: kept && body.readableBytes > 0 ? ByteBuffer(buffer: body) : nil,
                    bodyOmitted: !kept))
        }
        do {
            // A request with neither header has no body (RFC 9112, 6.3): most requests, spared an await.
            if request.headers.contains(.contentLength) || request.headers.contains(.transferEncoding) {
                body = try await request.body.collect(upTo: FixtureServer.maximumRequestBody)
            }
        } catch  where error is NIOTooManyBytesError || (error as? HTTPError)?.status == .contentTooLarge {
            return Self.json(
                status: .contentTooLarge,
                [
                    "error": "the request body is larger than \(FixtureServer.maximumRequestBody) bytes",
                    "request": shown,
                ])
        } catch {
            // A body that cannot be read (a malformed chunk) is the client's mistake, said as such.
            return Self.json(
                status: .badRequest,
                ["error": "the request body cannot be read: \(redactor.redact(text: "\(error)"))", "request": shown])
        }
        if path.hasPrefix(AdminAPI.prefix) {
            if let (status, reason) = adminGuard.refusal(of: request) {
                log("\(status.code) \(shown): \(reason)")
                return Self.json(status: status, ["error": reason, "request": shown])
            }
            return AdminAPI.respond(to: request, body: body, library: library)
        }
        // The request as the stub layer reads it (its fields as sent: spelling, order and repeats kept), made when
        // it is needed. A target of characters a URL keeps as written is read without parsing the URL it makes
        // with the origin (most requests), and a request the stub set answers by its key alone (the same method
        // and target as one before, answered by a stub that compared nothing else) needs none of it. Another
        // target is parsed now, and refused when it is not a URL's path.
        enum Reading {
            case keptAsWritten(StubRequest.Origin)
            case parsed(URL)
        }
        let reading: Reading
        if let originParts, StubRequest.isKeptAsWritten(target) {
            reading = .keptAsWritten(originParts)
        } else if let url = URL(string: originText + target) {
            reading = .parsed(url)
        } else {
            return Self.json(status: .badRequest, ["error": "the request target is not a URL path", "request": shown])
        }
        lazy var stubRequest: StubRequest = {
            let headers = HeaderFields(request.headers)
            let requestBody = body.readableBytes > 0 ? Data(body.readableBytesView) : nil
            switch reading {
            case .keptAsWritten(let origin):
                return StubRequest(
                    method: method, origin: origin, keptTarget: target, headers: headers, body: requestBody)
            case .parsed(let url):
                return StubRequest(method: method, url: url, headers: headers, body: requestBody)
            }
        }()
        if validatesRequests, let spec {
            let recorded = RecordedRequest(
                method: method, url: stubRequest.url.absoluteString, headers: stubRequest.headers,
                // The bytes the stub request holds (`nil` for an empty body, as there), not a second copy.
                body: stubRequest.body.map { FixtureBody(bytes: $0, contentType: request.headers[.contentType]) }
            )
            let judged: (operation: SpecOperation, problems: [SpecViolation])?
            do {
                judged = try spec.requestProblems(recorded)
            } catch {
                // `serve` compiles the description's schemas before it listens (OpenAPISpec.compileSchemas), so
                // this is not reached; never a silent pass if it were.
                return Self.json(
                    status: .internalServerError, ["error": redactor.redact(text: "\(error)"), "request": shown])
            }
            if let (operation, problems) = judged, !problems.isEmpty {
                let lines = problems.map { redactor.redact(text: "\($0.pointer): \($0.kind): \($0.message)") }
                log(
                    "400 \(shown): does not fit \(operation.name) in \(spec.file)\n  " + lines.joined(separator: "\n  ")
                )
                note(.invalid, status: 400)
                return Self.json(
                    status: .badRequest,
                    .object([
                        ("error", .string("the request does not fit the description")),
                        ("operation", .string(operation.name)), ("request", .string(shown)),
                        (
                            "problems",
                            .array(
                                problems.map {
                                    .object([
                                        ("pointer", .string($0.pointer)), ("kind", .string($0.kind.rawValue)),
                                        ("message", .string(redactor.redact(text: $0.message))),
                                    ])
                                })
                        ),
                    ]))
            }
        }
        let (stubs, fault) = library.serving(method: method, path: path)
        if let fault {
            if fault.delay > .zero { try await Task.sleep(for: fault.delay) }
            if let status = fault.status {
                log("\(status) \(shown): injected by POST \(AdminAPI.prefix)faults")
                note(.fault, status: status)
                return Self.json(
                    status: HTTPResponse.Status(code: status), ["error": "injected by apiprobe", "request": shown])
            }
        }
        // `Prefer: code=404, example=notFound` (Prism's convention) asks the description for that example, over
        // the fixtures.
        if let spec, let prefer = request.headers[Self.preferHeader] {
            let preference: ExamplePreference?
            do {
                preference = try ExamplePreference(header: prefer)
            } catch {
                return Self.json(status: .badRequest, ["error": "\(error)", "request": shown])
            }
            if let preference {
                switch spec.exampleAnswer(method: method, url: stubRequest.url.absoluteString, preference: preference) {
                case .example(let status, let body, let operation, let pointer):
                    if latency > .zero { try await Task.sleep(for: latency) }
                    log("\(status) \(shown): the example of \(operation) at \(pointer), as Prefer asks")
                    note(.example, status: status)
                    return Self.example(status: status, body: body, pointer: pointer)
                case .noExample(let operation, let reason):
                    note(.miss, status: nil)
                    return Self.json(
                        status: .notFound,
                        [
                            "error": reason ?? "\(operation) has no example of a success response in \(spec.file)",
                            "request": shown,
                        ])
                case .noOperation:
                    // A client that sends Prefer with every request (a global header) still gets the fixtures of
                    // paths the description does not have.
                    break
                }
            }
        }
        /// A fixture's answer (`wire`, after `fixtureLatency`) as this server sends it.
        func send(_ wire: WireResponse, after fixtureLatency: Duration, from fixture: String) async throws -> Response {
            var wait = fixtureLatency + latency
            if case .failed(let code) = wire.ending, code == .timedOut, fixtureLatency == .zero {
                wait += Self.timeoutHold
            }
            if wait > .zero { try await Task.sleep(for: wait) }
            switch wire.ending {
            case .failed(let code):
                // The fixture's fault is what a client meets on the network: the connection closes, no answer.
                log("\(shown): the fixture \(fixture) drops the connection (its fault: URLError \(code.rawValue))")
                note(.fault, status: nil, fixture: fixture)
                return Self.drop(context)
            case .connectionLost:
                note(.fault, status: nil, fixture: fixture)
                return Self.drop(context)
            case .finished:
                break
            }
            note(.fixture, status: wire.status, fixture: fixture)
            // A fixture's answer as made when it was loaded, unless the stub set changed it (a template, a HEAD).
            let prepared =
                request.method == .head ? Prepared(wire) : wire.prepared as? Prepared ?? Prepared(wire)
            var fields = prepared.fields
            if prepared.hasLocation, let location = fields[.location] {
                fields[.location] = Self.local(location, origin: origin)
            }
            if request.method == .head, let length = wire.headers["Content-Length"] {
                fields[.contentLength] = length
            }
            return Response(status: prepared.status, headers: fields, body: ResponseBody(byteBuffer: prepared.body))
        }
        let key: StubSet.ServedKey? =
            if case .keptAsWritten = reading {
                StubSet.ServedKey(origin: originText, method: method, target: target)
            } else { nil }
        if let key, let repeated = stubs.answerRepeated(key) {
            return try await send(repeated.wire, after: repeated.latency, from: repeated.answeredBy)
        }
        switch stubs.answer(stubRequest, repeatedAs: key) {
        case .response(let wire, _, let fixtureLatency, let fixture):
            return try await send(wire, after: fixtureLatency, from: fixture)
        case .failure(let error, _):
            if let forwarder {
                return await forward(stubRequest, target: target, body: body, shown: shown, through: forwarder)
            }
            // The request's own credentials (a header, a `password` in its body) are learned first, so that no
            // line about it repeats them, in the answer or on standard error.
            redactor.learnHeaders(stubRequest.headers)
            if let data = stubRequest.body {
                redactor.learnBody(data, contentType: request.headers[.contentType])
            }
            let diagnostics = Self.forHTTPClients(
                redactor.redact(text: error.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"))
            var answer = ["error": "no fixture matches the request", "request": shown, "diagnostics": diagnostics]
            if let spec {
                switch spec.exampleAnswer(method: method, url: stubRequest.url.absoluteString) {
                case .example(let status, let body, let operation, let pointer):
                    if latency > .zero { try await Task.sleep(for: latency) }
                    log("\(status) \(shown): no fixture; the example of \(operation) at \(pointer)")
                    note(.example, status: status)
                    return Self.example(status: status, body: body, pointer: pointer)
                case .noExample(let operation, _):
                    answer["error"] =
                        "no fixture matches the request, and \(operation) has no example of a success response in \(spec.file)"
                case .noOperation:
                    answer["error"] = "no fixture matches the request, and no operation of \(spec.file) takes it"
                }
            }
            log("404 \(shown): \(answer["error"] ?? "")\n\(diagnostics)")
            note(.miss, status: nil)
            return Self.json(status: .notFound, answer)
        }
    }

    /// A miss sent to the live API: its answer passed back as it came, and recorded (redacted) as a fixture that
    /// answers the same request from the next one on. A live API that does not answer is a 502 that says why, and
    /// nothing is recorded.
    /// - Parameter target: the path and query exactly as received (`%3F`, `%2F` and `%2e%2e` stay escaped: the live
    ///   API gets the request the client sent, and the recording records that one).
    private func forward(
        _ request: StubRequest, target: String, body: ByteBuffer, shown: String, through forwarder: LiveForwarder
    ) async -> Response {
        func note(_ status: Int, _ fixture: String?) {
            // The request log shows what the recording stores: a secret the forwarder met is masked there too.
            library.note(
                ServedEntry(
                    method: request.method, target: forwarder.redactor.redact(text: target), fixture: fixture,
                    status: status, source: .proxy))
        }
        let forwarded: LiveForwarder.Forwarded
        do {
            forwarded = try await forwarder.forward(
                method: request.method, target: target,
                headers: request.headers.fields.map { ($0.name, $0.value) },
                body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil,
                recordedURL: request.url.absoluteString)
        } catch {
            log(forwarder.redactor.redact(text: "502 \(shown): the live API did not answer: \(error.description)"))
            note(502, nil)
            return Self.json(
                status: .badGateway,
                [
                    "error": "no fixture matches the request, and the live API did not answer: \(error.description)",
                    "request": shown,
                ])
        }
        // Named from the recording as stored (redacted, every secret met so far masked), never from the request as
        // sent; and said with the forwarder's redactor, which has met the exchange's secrets.
        let recordedURL = forwarded.fixture.request.url
        let base = naming.baseName(
            method: request.method, url: recordedURL,
            fallback: FixtureNaming.methodAndPath(method: request.method, url: recordedURL))
        let said = forwarder.redactor.redact(text: shown)
        var recordedAs: String?
        do {
            recordedAs = try library.adopt(Self.matchingItsOwnRequest(forwarded.fixture), base: base)
            log(
                "\(forwarded.status) \(said): answered by \(forwarder.upstream.absoluteString), recorded as \(recordedAs ?? "")"
            )
        } catch {
            log(
                "\(forwarded.status) \(said): answered by \(forwarder.upstream.absoluteString), not recorded: "
                    + forwarder.redactor.redact(text: "\(error)"))
        }
        note(forwarded.status, recordedAs)
        return Response(
            status: HTTPResponse.Status(code: forwarded.status), headers: Self.answerFields(forwarded.headers),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: forwarded.body)))
    }

    /// A recording whose path holds a value the redactor masked (`/tokens/REDACTED`) would never match the request
    /// that made it, and every repeat would be proxied and recorded again: each masked segment becomes a template
    /// parameter (`/tokens/{redacted2}`), so the recording answers its own request, and any value in that place.
    /// (A masked query value already matches any value.)
    static func matchingItsOwnRequest(_ exchange: Exchange) -> Exchange {
        let marker = RedactionPolicy.default.marker
        guard exchange.metadata.match?.path == nil, let components = URLComponents(string: exchange.request.url),
            components.percentEncodedPath.contains(marker)
        else { return exchange }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        let template = segments.enumerated().map { index, segment in
            segment.contains(marker) ? "{redacted\(index)}" : String(segment)
        }.joined(separator: "/")
        var copy = exchange
        var match = copy.metadata.match ?? FixtureMatch()
        match.path = template
        copy.metadata.match = match
        return copy
    }

    /// Closes the request's connection without an answer (the response returned is never written).
    static func drop(_ context: Context) -> Response {
        context.channel.close(promise: nil)
        return Response(status: .internalServerError)
    }

    /// A redirect's `Location` to the fixtures' origin, made relative (`/api/v2/recipes`), so the client follows it
    /// to this server; a location elsewhere is left as it is.
    static func local(_ location: String, origin: URL) -> String {
        guard let target = URLComponents(string: location), let scheme = target.scheme?.lowercased(),
            let host = target.host?.lowercased(), scheme == origin.scheme?.lowercased(),
            host == origin.host?.lowercased(), target.port == origin.port
        else { return location }
        var relative = target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath
        if let query = target.percentEncodedQuery { relative += "?" + query }
        if let fragment = target.percentEncodedFragment { relative += "#" + fragment }
        return relative
    }

    /// An answer taken from the description's example, its JSON Pointer in ``exampleHeader``.
    static func example(status: Int, body: JSONValue, pointer: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status),
            headers: [.contentType: "application/json", Self.exampleHeader: pointer],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
    }

    /// RFC 7240's `Prefer`, which HTTPTypes does not name.
    static let preferHeader = HTTPField.Name("Prefer")!

    /// The header of an answer taken from the description's example: the example's JSON Pointer in it.
    static let exampleHeader = HTTPField.Name("X-Apiprobe-Example")!

    /// A JSON answer of the server's own (a miss, an error, the admin API): sorted keys, two-space indent.
    static func json(status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.serialized(pretty: true, sortedKeys: true))))
    }

    static func json(status: HTTPResponse.Status, _ members: [String: String]) -> Response {
        json(status: status, .object(members.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }
}

extension FixtureServer.Failure: ExitStatusReporting {
    /// An option of `serve` that cannot be honoured (a port in use, an admin API open to the network): status 2.
    package var exitStatus: ExitStatus { .badInput }
}
