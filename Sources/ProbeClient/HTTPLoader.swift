import APIProbeShared
package import Foundation
import HTTPFixtures
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one attempt gave, before ``HTTPLoader/send(_:deadline:limiter:)`` makes it a ``ProbeResponse`` or a
/// ``ProbeClientError``: an answer or an error, with its timing.
struct Attempt: Sendable {
    var status: Int?
    var headers = HeaderFields()
    var body = Data()
    var error: ProbeClientError?
    var latency: Duration
    var timeToFirstByte: Duration?
    var redirects: [URL] = []
    var phases: PhaseTimings?
    var tls: TLSReport?
    var dns: DNSAnswer?

    /// The attempt as its request's answer (after `retries` retries), or its error with what it measured.
    func result(retries: Int, wasRateLimited: Bool) -> Result<ProbeResponse, ProbeClientError> {
        if var error {
            error.latency = latency
            error.timeToFirstByte = timeToFirstByte
            error.phases = phases
            error.tls = tls
            error.retries = retries
            error.wasRateLimited = wasRateLimited
            return .failure(error)
        }
        return .success(
            ProbeResponse(
                status: status, headers: headers, body: body, latency: latency, timeToFirstByte: timeToFirstByte,
                redirects: redirects, phases: phases, tls: tls, dns: dns, retries: retries))
    }
}

/// Sends requests over SwiftNIO: no cache, no cookies, redirects followed and noted, a whole-request timeout that
/// cuts a body trickling in, and each phase timed (DNS, connect, TLS handshake, waiting, transfer). Connections are
/// kept alive and reused per host (and per TLS settings); a reused connection's dns/connect/tls phases are zero.
///
/// URLSession on Linux (libcurl underneath) reports none of the phases nor the server's certificate, which the
/// `tls:` checks need: hence a client of our own on the event loops SwiftNIO already brings.
package final class HTTPLoader: Sendable {
    private let pool: ConnectionPool
    private let contexts = TLSContextCache()

    package init(maximumConnectionsPerHost: Int) {
        pool = ConnectionPool(maximumIdlePerKey: max(1, maximumConnectionsPerHost))
        // The event loop threads start here, before any request is timed: a fresh process (cron, `samples: 1`)
        // spent them inside its first sample's latency (15 ms on a loaded machine), in no phase.
        _ = MultiThreadedEventLoopGroup.singleton.next()
    }

    /// Closes the idle connections.
    package func close() { pool.closeAll() }

    /// Sets up, before any request is timed, what the first request to each of `urls` would otherwise set up
    /// inside its sample: the TLS contexts of the https ones and the system's trust roots.
    package func prepare(_ targets: some Sequence<(url: URL?, tls: TLSSettings)>) {
        contexts.prepare(
            targets.lazy.filter { ["https", "tls"].contains($0.url?.scheme?.lowercased() ?? "") }.map(\.tls))
    }

    /// Sends `request`, the one way out for every request the tool makes: attempts cut after the request's timeout
    /// or at `deadline` when that comes first, tried again as ``ProbeRequest/retry`` says, each one spaced by
    /// `limiter` when given. A body longer than the request's `maxBodySize` (announced by `Content-Length`, or read so
    /// far) stops the transfer there and fails with ``ProbeClientError/Code/bodyTooLarge(limit:)``, so memory stays
    /// bounded whatever the server sends.
    package func send(
        _ request: ProbeRequest, deadline: ContinuousClock.Instant, limiter: RateLimiter? = nil
    ) async -> Result<ProbeResponse, ProbeClientError> {
        var retries = 0
        var rateLimitWaits = 0
        var wasRateLimited = false
        func notSent() -> Result<ProbeResponse, ProbeClientError> {
            var error = ProbeClientError(.notSent)
            error.retries = retries
            error.wasRateLimited = wasRateLimited
            return .failure(error)
        }
        while true {
            if ContinuousClock.now >= deadline { return notSent() }
            if let limiter, await !limiter.acquire(host: request.url.host ?? "", deadline: deadline) {
                return notSent()
            }
            let attempt: Attempt
            if let query = request.dns {
                attempt = await DNSProbe.ask(query, server: request.url, timeout: request.timeout, deadline: deadline)
            } else {
                attempt = await self.attempt(request, deadline: deadline)
            }
            switch attempt.result(retries: retries, wasRateLimited: wasRateLimited) {
            case .failure(let error):
                if request.retry.retries(after: error, retried: retries),
                    await Self.pause(request.retry.backoff(retries), before: deadline)
                {
                    retries += 1
                    continue
                }
                return .failure(error)
            case .success(var response):
                if let status = response.status,
                    RetryRule.isRateLimit(status: status, headers: response.headers)
                {
                    wasRateLimited = true
                    if let wait = request.retry.rateLimitWait(
                        status: status, headers: response.headers, waited: rateLimitWaits),
                        await Self.pause(wait, before: deadline)
                    {
                        rateLimitWaits += 1
                        continue
                    }
                    response.rateLimited = true
                }
                return .success(response)
            }
        }
    }

    /// Sleeps for `duration` unless that would pass `deadline`; `false` (at once) when it would.
    static func pause(_ duration: Duration, before deadline: ContinuousClock.Instant) async -> Bool {
        guard ContinuousClock.now + duration < deadline else { return false }
        if duration > .zero { try? await Task.sleep(for: duration) }
        return true
    }

    /// One attempt: cut after the request's timeout, or at `deadline` when that comes first.
    func attempt(_ request: ProbeRequest, deadline: ContinuousClock.Instant) async -> Attempt {
        let now = ContinuousClock.now
        let limit = min(request.timeout, deadline - now)
        let cutByDeadline = deadline - now < request.timeout
        return await withCheckedContinuation { continuation in
            let exchange = AttemptState(
                start: now, end: now + limit, endsByDeadline: cutByDeadline, limit: request.maxBodySize,
                followsRedirects: request.followsRedirects, tls: request.tls, continuation: continuation)
            // The watchdog: a task on an event loop, removed (and its references let go) when the attempt ends
            // first, so thousands of short requests do not keep their state until their timeouts would have passed.
            let watchdog = MultiThreadedEventLoopGroup.singleton.next().scheduleTask(
                in: .nanoseconds(Int64(max(0, limit.timeInterval) * 1e9))
            ) { exchange.timeOut() }
            exchange.setWatchdog(watchdog)
            perform(request, exchange: exchange, mayReuse: true)
        }
    }

    /// One hop of the exchange: on a kept-alive connection when there is one, else on a new one.
    private func perform(_ request: ProbeRequest, exchange: AttemptState, mayReuse: Bool) {
        guard let target = Target(request.url) else {
            exchange.fail(ProbeClientError(.unsupportedURL, detail: request.url.absoluteString))
            return
        }
        let key = PoolKey(target: target, settings: target.isTLS ? exchange.tls.connectionKey : nil)
        if mayReuse, let connection = pool.take(key) {
            exchange.beginHop(phases: PhaseTimings(connectionReused: true), tls: connection.tls)
            connection.channel.eventLoop.execute {
                self.send(request, target: target, on: connection, key: key, exchange: exchange, reused: true)
            }
            return
        }
        Self.lookUp(target.host, port: target.port) { resolved in
            let dns = exchange.lap()
            switch resolved {
            case .failure(let error): exchange.fail(error)
            case .success(let addresses):
                self.connect(request, target: target, key: key, addresses: addresses, dns: dns, exchange: exchange)
            }
        }
    }

    /// Connects to the first address that takes the connection (``HappyEyeballs``), within what is left of the
    /// attempt; the `connect` phase runs from the end of `dns` to the winning connection.
    private func connect(
        _ request: ProbeRequest, target: Target, key: PoolKey, addresses: [SocketAddress], dns: Duration,
        exchange: AttemptState
    ) {
        guard !exchange.isFinished else { return }
        let remaining = exchange.remaining
        // The time ran out while the name was resolved: the same cut as the watchdog's, whichever comes first
        // (a connect given no time failed first and was reported as a connection failure).
        guard remaining > .zero else {
            exchange.timeOut()
            return
        }
        HappyEyeballs.connect(
            to: addresses, timeout: .nanoseconds(Int64(max(1, remaining.timeInterval * 1e9)))
        ) { result in
            switch result {
            case .failure(ChannelError.connectTimeout):
                // The connects were bounded by what was left of the attempt: its time is up.
                exchange.timeOut()
            case .failure(let error):
                exchange.fail(error)
            case .success(let channel):
                let connect = exchange.lap()
                guard exchange.adopt(channel) else { return }
                self.secure(
                    channel, request: request, target: target, key: key,
                    phases: PhaseTimings(dns: dns, connect: connect), exchange: exchange)
            }
        }
    }

    /// The TLS handshake (https), then the HTTP handlers; on the channel's event loop.
    private func secure(
        _ channel: any Channel, request: ProbeRequest, target: Target, key: PoolKey, phases: PhaseTimings,
        exchange: AttemptState
    ) {
        guard target.isTLS else {
            finishSetUp(
                channel, request: request, target: target, key: key, phases: phases, tls: nil, exchange: exchange)
            return
        }
        let verification = TLSVerification(host: target.host, settings: exchange.tls)
        do {
            let context = try contexts.context(for: exchange.tls)
            let handler: NIOSSLClientHandler
            let serverName = target.isIPAddress ? nil : target.host
            if verification.verifiesItself {
                handler = try NIOSSLClientHandler(
                    context: context, serverHostname: serverName,
                    customVerificationCallback: { certificates, promise in
                        verification.verify(certificates, promise: promise)
                    })
            } else {
                handler = try NIOSSLClientHandler(context: context, serverHostname: serverName)
            }
            let handshake = channel.eventLoop.makePromise(of: Void.self)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: handshake))
            let boundHandler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            handshake.futureResult.whenComplete { result in
                let handler = boundHandler.value
                switch result {
                case .failure(let error):
                    exchange.beginHop(phases: phases, tls: verification.report(peer: handler))
                    exchange.fail(verification.failure(for: error))
                case .success:
                    var phases = phases
                    phases.tls = exchange.lap()
                    let report = verification.report(peer: handler)
                    self.finishSetUp(
                        channel, request: request, target: target, key: key, phases: phases, tls: report,
                        exchange: exchange)
                }
            }
        } catch {
            exchange.fail(ProbeClientError(.tls(.handshake), detail: TLSVerification.handshakeDetail(error)))
        }
    }

    private func finishSetUp(
        _ channel: any Channel, request: ProbeRequest, target: Target, key: PoolKey, phases: PhaseTimings,
        tls: TLSReport?, exchange: AttemptState
    ) {
        if target.opensOnly {
            // `tcp://` and `tls://`: the connection (and its handshake) is the answer; nothing is sent.
            // Its latency ends with its last phase, not after the bookkeeping and the close that follow.
            exchange.beginHop(phases: phases, tls: tls)
            exchange.opened()
            channel.close(promise: nil)
            return
        }
        do {
            try channel.pipeline.syncOperations.addHTTPClientHandlers()
            let handler = ClientHandler()
            try channel.pipeline.syncOperations.addHandler(handler)
            let connection = Connection(channel: channel, handler: handler, tls: tls)
            pool.forgetWhenClosed(connection, key: key)
            exchange.beginHop(phases: phases, tls: tls)
            send(request, target: target, on: connection, key: key, exchange: exchange, reused: false)
        } catch {
            exchange.fail(error)
        }
    }

    /// Writes the request on `connection` (on its event loop) and handles the answer: the next hop of a redirect,
    /// the connection back to the pool, or a retry on a new connection when a kept-alive one turned out closed.
    private func send(
        _ request: ProbeRequest, target: Target, on connection: Connection, key: PoolKey, exchange: AttemptState,
        reused: Bool
    ) {
        guard exchange.adopt(connection.channel) else {
            connection.channel.close(promise: nil)
            return
        }
        connection.handler.start(request: request, target: target, exchange: exchange) { outcome in
            switch outcome {
            case .staleConnection where reused:
                // The server closed the kept-alive connection before this request reached it: a new one.
                self.perform(request, exchange: exchange, mayReuse: false)
            case .staleConnection:
                exchange.fail(ProbeClientError(.connectionLost))
            case .failed(let error):
                connection.channel.close(promise: nil)
                exchange.fail(error)
            case .complete(let head, let body, let keepAlive):
                if keepAlive {
                    exchange.release(connection.channel)
                    self.pool.put(connection, key: key)
                } else {
                    connection.channel.close(promise: nil)
                }
                let fields = HeaderFields(head.headers.map { HeaderFields.Field(name: $0.name, value: $0.value) })
                if exchange.followsRedirects, let next = Self.redirect(from: request, head: head) {
                    guard exchange.redirectCount < RedirectRule.maximumHops else {
                        // As the stubs (and URLSession) do: an error, not the last 3xx passed off as the answer.
                        exchange.fail(ProbeClientError(.tooManyRedirects))
                        return
                    }
                    exchange.noteRedirect(to: next.url)
                    self.perform(next, exchange: exchange, mayReuse: true)
                } else {
                    exchange.succeed(status: Int(head.status.code), headers: fields, body: body)
                }
            }
        }
    }

    /// The request a 3xx with a `Location` leads to, by the package's one ``RedirectRule`` (the stubs' too).
    static func redirect(from request: ProbeRequest, head: HTTPResponseHead) -> ProbeRequest? {
        guard
            let hop = RedirectRule.hop(
                status: Int(head.status.code), location: head.headers.first(name: "location"), from: request.url,
                method: request.method)
        else { return nil }
        var redirected = request
        redirected.url = hop.url
        redirected.method = hop.method
        if !hop.keepsBody { redirected.body = nil }
        redirected.headers = HeaderFields(request.headers.filter { hop.keeps(header: $0.name) })
        return redirected
    }

    /// The host's addresses, then `completion` with them: at once for an IP address, else by ``resolve(_:port:)``
    /// on a thread of its own.
    ///
    /// Not on dispatch's global queues: on Linux, `DispatchQueue.global()` and the jobs of Swift's cooperative pool
    /// at the default priority share one set of threads, as many as the machine has cores, so a process computing
    /// on its pool (a large body validated beside the probes; CPU-heavy tests beside a probe test, in CI) kept a new
    /// connection's lookup waiting (of `127.0.0.1` too, which needs none) until the attempt's timeout cut it: a sample
    /// that failed as timed out, with no certificate seen; and a shorter wait was counted as DNS time. A thread costs
    /// tens of microseconds, once for each new connection to a named host.
    static func lookUp(
        _ host: String, port: Int, then completion: @escaping @Sendable (Result<[SocketAddress], any Error>) -> Void
    ) {
        if let address = try? SocketAddress(ipAddress: host, port: port) {
            completion(.success([address]))
            return
        }
        Thread.detachNewThread { completion(resolve(host, port: port)) }
    }

    /// The host's addresses by `getaddrinfo`, which blocks: called by ``lookUp(_:port:then:)``, off the event loops
    /// and the cooperative pool.
    static func resolve(_ host: String, port: Int) -> Result<[SocketAddress], any Error> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            return .failure(ProbeClientError(.hostNotFound, detail: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var seen: Set<String> = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let pointer = entry.pointee.ai_addr,
                let address = try? SocketAddress(pointer: pointer, length: entry.pointee.ai_addrlen),
                seen.insert("\(address)").inserted
            {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        // In the resolver's order: the order they are tried in is ``HappyEyeballs/ordered(_:)``'s.
        guard !addresses.isEmpty else { return .failure(ProbeClientError(.hostNotFound, detail: "no address")) }
        return .success(addresses)
    }
}

extension SocketAddress {
    /// A socket address from a `sockaddr` of `getaddrinfo`.
    fileprivate init(pointer: UnsafeMutablePointer<sockaddr>, length: socklen_t) throws {
        switch Int32(pointer.pointee.sa_family) {
        case AF_INET:
            let ipv4 = UnsafeRawPointer(pointer).load(as: sockaddr_in.self)
            self = SocketAddress(ipv4, host: "")
        case AF_INET6:
            let ipv6 = UnsafeRawPointer(pointer).load(as: sockaddr_in6.self)
            self = SocketAddress(ipv6, host: "")
        default:
            throw ProbeClientError(.hostNotFound, detail: "an address family other than IPv4 and IPv6")
        }
    }
}

/// Scheme, host and port of a URL.
struct Target: Sendable, Hashable {
    var isTLS: Bool
    /// `tcp://` or `tls://`: the connection is opened (and its TLS handshake made), then closed.
    var opensOnly: Bool
    var host: String
    var port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https", "tcp", "tls"].contains(scheme),
            var host = url.host, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        isTLS = scheme == "https" || scheme == "tls"
        opensOnly = scheme == "tcp" || scheme == "tls"
        self.host = host
        port = url.port ?? (isTLS ? 443 : 80)
    }

    var isIPAddress: Bool { Self.isIPAddress(host) }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// The `Host` header: the port only when it is not the scheme's.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isTLS ? 443 : 80) ? name : "\(name):\(port)"
    }
}

struct PoolKey: Sendable, Hashable {
    var target: Target
    var settings: ConnectionSettings?
}

/// A connection with its HTTP handler and what its handshake showed; the handler is touched on the channel's
/// event loop only.
final class Connection: @unchecked Sendable {
    let channel: any Channel
    let handler: ClientHandler
    let tls: TLSReport?

    init(channel: any Channel, handler: ClientHandler, tls: TLSReport?) {
        self.channel = channel
        self.handler = handler
        self.tls = tls
    }
}

/// Idle kept-alive connections per host and TLS settings; one closed by the server leaves the pool.
final class ConnectionPool: Sendable {
    private let idle = Locked<[PoolKey: [Connection]]>([:])
    private let maximumIdlePerKey: Int

    init(maximumIdlePerKey: Int) { self.maximumIdlePerKey = maximumIdlePerKey }

    func take(_ key: PoolKey) -> Connection? {
        idle.withLock { idle in
            while let connection = idle[key]?.popLast() {
                if connection.channel.isActive { return connection }
            }
            return nil
        }
    }

    func put(_ connection: Connection, key: PoolKey) {
        let kept = idle.withLock { idle -> Bool in
            guard idle[key, default: []].count < maximumIdlePerKey else { return false }
            idle[key, default: []].append(connection)
            return true
        }
        if !kept { connection.channel.close(promise: nil) }
    }

    /// Once `connection` closes (the server ended it while idle), it leaves the pool; registered once per connection.
    func forgetWhenClosed(_ connection: Connection, key: PoolKey) {
        connection.channel.closeFuture.whenComplete { _ in
            self.idle.withLock { idle in idle[key]?.removeAll { $0 === connection } }
        }
    }

    func closeAll() {
        let all = idle.withLock { idle in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        for connection in all { connection.channel.close(promise: nil) }
    }
}

/// One attempt's progress across its hops; finished exactly once (a response, an error or the timeout).
final class AttemptState: Sendable {
    let start: ContinuousClock.Instant
    /// When the watchdog cuts the attempt.
    let end: ContinuousClock.Instant
    /// Whether `end` is the round's deadline rather than the request's timeout.
    let endsByDeadline: Bool
    /// The most body bytes kept.
    let limit: Int
    let followsRedirects: Bool
    let tls: TLSSettings

    /// What NIO's callbacks change, on whichever thread they run: behind the one lock.
    private struct Progress {
        var continuation: CheckedContinuation<Attempt, Never>?
        var watchdog: Scheduled<Void>?
        var channel: (any Channel)?
        var phases: PhaseTimings?
        var hopPhases = PhaseTimings()
        var redirects: [URL] = []
        var tlsReport: TLSReport?
        var firstByte: ContinuousClock.Instant?
        /// The end of the phase timed last: phases are laps from it, so they add up to the latency.
        var lastMark: ContinuousClock.Instant
        var finished = false
    }
    private let progress: Locked<Progress>

    init(
        start: ContinuousClock.Instant, end: ContinuousClock.Instant, endsByDeadline: Bool, limit: Int,
        followsRedirects: Bool, tls: TLSSettings, continuation: CheckedContinuation<Attempt, Never>
    ) {
        self.start = start
        self.end = end
        self.endsByDeadline = endsByDeadline
        self.limit = limit
        self.followsRedirects = followsRedirects
        self.tls = tls
        self.progress = Locked(Progress(continuation: continuation, lastMark: start))
    }

    /// The time since the last phase ended (the attempt's start for the first), and a new phase begins now.
    func lap() -> Duration {
        let now = ContinuousClock.now
        return progress.withLock { progress in
            defer { progress.lastMark = now }
            return now - progress.lastMark
        }
    }

    var isFinished: Bool { progress.withLock { $0.finished } }
    var redirectCount: Int { progress.withLock { $0.redirects.count } }
    /// What is left of the attempt's time (the watchdog cuts it exactly; this bounds a connect).
    var remaining: Duration { end - ContinuousClock.now }

    func setWatchdog(_ item: Scheduled<Void>) {
        let done = progress.withLock { progress in
            if !progress.finished { progress.watchdog = item }
            return progress.finished
        }
        if done { item.cancel() }
    }

    /// Makes `channel` the one a timeout closes; `false` (and the channel closed) when the attempt already ended.
    func adopt(_ channel: any Channel) -> Bool {
        let done = progress.withLock { progress in
            if !progress.finished { progress.channel = channel }
            return progress.finished
        }
        if done { channel.close(promise: nil) }
        return !done
    }

    /// The channel went back to the pool: a timeout no longer closes it.
    func release(_ channel: any Channel) {
        progress.withLock { progress in if progress.channel === channel { progress.channel = nil } }
    }

    func beginHop(phases: PhaseTimings, tls: TLSReport?) {
        progress.withLock { progress in
            progress.hopPhases = phases
            if let tls { progress.tlsReport = tls }
        }
    }

    /// The response head came: `processing` is the time since the connection was ready (writing the request
    /// and waiting for the server), as curl's `time_starttransfer - time_pretransfer`.
    func headReceived() {
        let now = ContinuousClock.now
        progress.withLock { progress in
            progress.firstByte = now
            progress.hopPhases.processing = now - progress.lastMark
            progress.lastMark = now
        }
    }

    /// The hop ended (its body read): its phases join the attempt's.
    func hopEnded() {
        let now = ContinuousClock.now
        progress.withLock { progress in
            progress.hopPhases.transfer = now - progress.lastMark
            progress.lastMark = now
            progress.phases = progress.phases.map { $0.adding(progress.hopPhases) } ?? progress.hopPhases
            progress.hopPhases = PhaseTimings()
        }
    }

    func noteRedirect(to url: URL?) {
        guard let url else { return }
        progress.withLock { $0.redirects.append(url) }
    }

    func succeed(status: Int?, headers: HeaderFields, body: Data) {
        finish { attempt in
            attempt.status = status
            attempt.headers = headers
            attempt.body = body
        }
    }

    /// A `tcp://` or `tls://` attempt's answer: the connection opened (and its handshake made). Its latency is the
    /// sum of its phases, up to the last lap.
    func opened() {
        finish(endingAtLastLap: true) { _ in }
    }

    func fail(_ error: any Error) {
        finish { attempt in attempt.error = ProbeClientError(error) }
    }

    /// The attempt's time is up (its timeout, or the deadline when that came first).
    func timeOut() {
        let channel = progress.withLock { $0.channel }
        let limit = formatDuration(end - start)
        finish { attempt in
            attempt.error = ProbeClientError(endsByDeadline ? .cutByDeadline : .timedOut, detail: limit)
        }
        channel?.close(promise: nil)
    }

    private func finish(endingAtLastLap: Bool = false, _ fill: (inout Attempt) -> Void) {
        let now = ContinuousClock.now
        let taken: (CheckedContinuation<Attempt, Never>, Attempt, Scheduled<Void>?)? = progress.withLock { progress in
            guard !progress.finished, let continuation = progress.continuation else { return nil }
            progress.finished = true
            progress.continuation = nil
            let end = endingAtLastLap ? progress.lastMark : now
            var attempt = Attempt(
                latency: end - start, timeToFirstByte: progress.firstByte.map { $0 - start },
                redirects: progress.redirects,
                phases: progress.phases ?? (progress.hopPhases == PhaseTimings() ? nil : progress.hopPhases),
                tls: progress.tlsReport)
            fill(&attempt)
            let timer = progress.watchdog
            progress.watchdog = nil
            progress.channel = nil
            return (continuation, attempt, timer)
        }
        guard let (continuation, attempt, watchdog) = taken else { return }
        watchdog?.cancel()
        continuation.resume(returning: attempt)
    }
}

/// Passes on the end of the TLS handshake (or its failure) to a promise.
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private var promise: EventLoopPromise<Void>?

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            promise?.succeed()
            promise = nil
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise?.fail(error)
        promise = nil
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.fail(NIOSSLError.handshakeFailed(.sslError([])))
        promise = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.fail(ProbeClientError(.connectionLost))
        promise = nil
    }
}

/// Reads one response at a time on a connection, keeping at most the exchange's limit of body bytes.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    enum Outcome {
        case complete(HTTPResponseHead, Data, keepAlive: Bool)
        /// A kept-alive connection closed before a byte of the response came.
        case staleConnection
        case failed(any Error)
    }

    private var context: ChannelHandlerContext?
    private var exchange: AttemptState?
    private var completion: ((Outcome) -> Void)?
    private var head: HTTPResponseHead?
    private var body = Data()
    private var discardingBody = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Sends `request` (on the event loop); `completion` gets the outcome once.
    func start(
        request: ProbeRequest, target: Target, exchange: AttemptState, completion: @escaping (Outcome) -> Void
    ) {
        guard let context, context.channel.isActive else {
            completion(.staleConnection)
            return
        }
        self.exchange = exchange
        self.completion = completion
        head = nil
        body = Data()
        discardingBody = false
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: true)
        var uri = components?.percentEncodedPath ?? "/"
        if uri.isEmpty { uri = "/" }
        if let query = components?.percentEncodedQuery { uri += "?" + query }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        // In the request's order, repeats kept.
        for field in request.headers where !headerNamesMatch(field.name, "Host") {
            headers.add(name: field.name, value: field.value)
        }
        if !headers.contains(name: "User-Agent") {
            headers.add(name: "User-Agent", value: "apiprobe/\(apiprobeVersion)")
        }
        if !headers.contains(name: "Accept") { headers.add(name: "Accept", value: "*/*") }
        let payload = request.body ?? Data()
        let method = HTTPMethod(rawValue: request.method)
        if !payload.isEmpty || [.POST, .PUT, .PATCH].contains(method) {
            headers.replaceOrAdd(name: "Content-Length", value: String(payload.count))
        }
        let requestHead = HTTPRequestHead(version: .http1_1, method: method, uri: uri, headers: headers)
        context.write(wrapOutboundOut(.head(requestHead)), promise: nil)
        if !payload.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: payload)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let exchange else { return }
        switch unwrapInboundIn(data) {
        case .head(let response):
            head = response
            exchange.headReceived()
            if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > exchange.limit {
                finish(.failed(ProbeClientError(.bodyTooLarge(limit: exchange.limit))))
                context.close(promise: nil)
            }
        case .body(let buffer):
            guard !discardingBody else { return }
            if body.count + buffer.readableBytes > exchange.limit {
                discardingBody = true
                body = Data()
                finish(.failed(ProbeClientError(.bodyTooLarge(limit: exchange.limit))))
                context.close(promise: nil)
                return
            }
            buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
        case .end:
            guard let head else { return }
            exchange.hopEnded()
            let keepAlive =
                head.isKeepAlive
                && !(head.headers.first(name: "connection")?.lowercased().contains("close") ?? false)
            let body = self.body
            self.body = Data()
            self.head = nil
            finish(.complete(head, body, keepAlive: keepAlive))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(head == nil && body.isEmpty && isQuietClose(error) ? .staleConnection : .failed(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(head == nil ? .staleConnection : .failed(ProbeClientError(.connectionLost)))
        context.fireChannelInactive()
    }

    /// A connection reset or unclean TLS shutdown before any answer: the server had closed the idle connection.
    private func isQuietClose(_ error: any Error) -> Bool {
        if let error = error as? IOError { return [ECONNRESET, EPIPE].contains(error.errnoCode) }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error { return true }
        return false
    }

    private func finish(_ outcome: Outcome) {
        guard let completion else { return }
        self.completion = nil
        exchange = nil
        completion(outcome)
    }
}

// MARK: Warming up

extension HTTPLoader {
    /// One exchange with a server of our own on loopback, once a process, before anything is timed: a fresh
    /// process (cron, `samples: 1`) otherwise paid its runtime's first use of every code path on the way (type
    /// metadata, protocol conformance lookups, the first channel and codec) inside its first sample, about
    /// 1.5 ms on loopback where curl takes 0.7 ms. Best effort: when loopback cannot be bound, the first sample
    /// pays it.
    package static func warmUp() async {
        await warmUpOnce.value
    }

    private static let warmUpOnce = Task<Void, Never> {
        let group = MultiThreadedEventLoopGroup.singleton
        guard
            let server = try? await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer({ channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(WarmUpResponder())
                    }
                })
                .bind(host: "127.0.0.1", port: 0).get(),
            let port = server.localAddress?.port, let url = URL(string: "http://127.0.0.1:\(port)/")
        else { return }
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        _ = await loader.send(
            ProbeRequest(url: url, timeout: .seconds(2), maxBodySize: 1 << 10), deadline: .now + .seconds(2))
        loader.close()
        try? await server.close()
    }
}

/// Answers every request of the warm-up with a small JSON body.
private final class WarmUpResponder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: "2")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "{}")))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

extension HTTPLoader {
    /// One request the tool sends for itself (an alert, a push to the Pushgateway), through the probes' own
    /// client on connections of its own, closed after: cut after the request's timeout, redirects followed by the
    /// one rule, the system's trust roots, at most the request's `maxBodySize` bytes of the answer read.
    ///
    /// - Returns: the answer's status and its body.
    /// - Throws: ``ProbeClientError`` when no answer came.
    package static func sendOnce(_ request: ProbeRequest) async throws(ProbeClientError) -> (status: Int, body: Data) {
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        switch await loader.send(request, deadline: .now + request.timeout) {
        case .success(let response): return (response.status ?? 0, response.body)
        case .failure(let error): throw error
        }
    }
}
