import APIProbeShared
import Foundation
import NIOCore
import NIOPosix

/// One DNS question to one server, over SwiftNIO: a connected UDP socket (so an ICMP "port unreachable" is a refused
/// connection, not a timeout), then TCP when the answer was truncated (RFC 7766). Only a datagram from the server
/// with the query's ID is read; the answer is at most 65,535 bytes by the protocol's framing.
///
/// Phases: `dns` is resolving the server's own name (zero for an address), `processing` the question and its
/// answer, so they add up to the latency.
enum DNSProbe {
    static func ask(
        _ query: DNSQuery, server url: URL, timeout: Duration, deadline: ContinuousClock.Instant
    ) async -> Attempt {
        let start = ContinuousClock.now
        let limit = min(timeout, deadline - start)
        let end = start + limit
        let cutByDeadline = deadline - start < timeout
        func finished(_ result: Result<DNSAnswer, any Error>, dns: Duration) -> Attempt {
            let now = ContinuousClock.now
            var attempt = Attempt(latency: now - start, phases: PhaseTimings(dns: dns, processing: now - start - dns))
            switch result {
            case .success(let answer): attempt.dns = answer
            case .failure(let error):
                var failure = ProbeClientError(error)
                if failure.code == .timedOut {
                    failure = ProbeClientError(
                        cutByDeadline ? .cutByDeadline : .timedOut, detail: formatDuration(limit))
                }
                attempt.error = failure
            }
            return attempt
        }
        let resolved = await server(of: url)
        let dns = ContinuousClock.now - start
        let address: SocketAddress
        switch resolved {
        case .failure(let error): return finished(.failure(error), dns: dns)
        case .success(let found): address = found
        }
        let id = UInt16.random(in: 0...UInt16.max)
        let question = DNSMessage.query(query, id: id)
        do {
            var bytes = try await exchange(question, id: id, with: address, overTCP: false, until: end)
            if DNSMessage.isTruncated(bytes) {
                bytes = try await exchange(question, id: id, with: address, overTCP: true, until: end)
            }
            return finished(.success(try DNSMessage.answer(bytes, to: query, id: id)), dns: dns)
        } catch {
            return finished(.failure(error), dns: dns)
        }
    }

    /// The server of a `dns://` URL: its host and port (53), or the system resolver's first `nameserver`.
    static func server(of url: URL) async -> Result<SocketAddress, any Error> {
        let port = url.port ?? 53
        var host = url.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty {
            guard let first = systemNameServers().first else {
                return .failure(
                    ProbeClientError(
                        .noNameServer,
                        detail: "no nameserver in /etc/resolv.conf: give the server in the url (dns://1.1.1.1)"))
            }
            host = first
        }
        let name = host
        return await withCheckedContinuation { continuation in
            HTTPLoader.lookUp(name, port: port) { resolved in
                continuation.resume(returning: resolved.map { HappyEyeballs.ordered($0)[0] })
            }
        }
    }

    /// The `nameserver` lines of `/etc/resolv.conf`, in order (a zone index such as `%eth0` dropped).
    static func systemNameServers(_ text: String? = nil) -> [String] {
        let contents = text ?? ((try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)) ?? "")
        return contents.split(whereSeparator: \.isNewline).compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 2, words[0] == "nameserver" else { return nil }
            return String(words[1].split(separator: "%").first ?? words[1])
        }
    }

    /// Sends `question` and reads the answer with the same ID, failing with a timeout at `end`.
    private static func exchange(
        _ question: [UInt8], id: UInt16, with server: SocketAddress, overTCP: Bool, until end: ContinuousClock.Instant
    ) async throws -> [UInt8] {
        let remaining = end - ContinuousClock.now
        guard remaining > .zero else { throw ProbeClientError(.timedOut) }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: [UInt8].self)
        let once = Once(promise)
        let timer = loop.scheduleTask(in: .nanoseconds(Int64(remaining.timeInterval * 1e9))) {
            once.fail(ProbeClientError(.timedOut))
        }
        let connected: EventLoopFuture<any Channel>
        if overTCP {
            connected = ClientBootstrap(group: loop)
                .connectTimeout(.nanoseconds(Int64(remaining.timeInterval * 1e9)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(StreamAnswerReader(id: id, once: once))
                    }
                }
                .connect(to: server)
        } else {
            connected = DatagramBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(DatagramAnswerReader(id: id, once: once))
                    }
                }
                .connect(to: server)
        }
        connected.whenComplete { result in
            switch result {
            case .failure(ChannelError.connectTimeout): once.fail(ProbeClientError(.timedOut))
            case .failure(let error): once.fail(error)
            case .success(let channel):
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                var buffer = channel.allocator.buffer(capacity: question.count + 2)
                if overTCP { buffer.writeInteger(UInt16(question.count)) }
                buffer.writeBytes(question)
                channel.writeAndFlush(buffer).whenFailure { once.fail($0) }
            }
        }
        defer { timer.cancel() }
        return try await promise.futureResult.get()
    }
}

/// A promise completed once, whoever comes first (the answer, an error, the timer).
private final class Once: Sendable {
    let promise: EventLoopPromise<[UInt8]>
    private let done = Locked(false)

    init(_ promise: EventLoopPromise<[UInt8]>) { self.promise = promise }

    private func claim() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }

    func succeed(_ bytes: [UInt8]) { if claim() { promise.succeed(bytes) } }
    func fail(_ error: any Error) { if claim() { promise.fail(error) } }
}

/// Reads datagrams until one carries the query's ID (others, late answers to an earlier query, are dropped).
private final class DatagramAnswerReader: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let id: UInt16
    let once: Once

    init(id: UInt16, once: Once) {
        self.id = id
        self.once = once
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = Self.unwrapInboundIn(data)
        let bytes = envelope.data.readBytes(length: envelope.data.readableBytes) ?? []
        if DNSMessage.id(of: bytes) == id { once.succeed(bytes) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { once.fail(error) }
}

/// Reads one length-prefixed message from a TCP connection (at most 65,535 bytes, by the prefix).
private final class StreamAnswerReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let id: UInt16
    let once: Once
    private var received: [UInt8] = []

    init(id: UInt16, once: Once) {
        self.id = id
        self.once = once
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = Self.unwrapInboundIn(data)
        received += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard received.count >= 2 else { return }
        let length = Int(received[0]) << 8 | Int(received[1])
        guard received.count >= 2 + length else { return }
        once.succeed(Array(received[2..<2 + length]))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { once.fail(error) }

    func channelInactive(context: ChannelHandlerContext) { once.fail(ProbeClientError(.connectionLost)) }
}
