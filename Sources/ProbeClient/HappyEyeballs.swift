import APIProbeShared
import NIOCore
import NIOPosix

/// Opens one TCP connection to the first of a host's addresses that takes it, racing them as RFC 8305 (Happy
/// Eyeballs) and curl do: the next address is tried 250 ms after the one before if that one has not connected
/// yet, or at once when it failed; the first connection wins and any later one is closed.
///
/// A host whose first address drops packets (an IPv6 route that goes nowhere, one dead server behind a DNS
/// round robin) is then reached a quarter of a second late rather than not at all: tried one after the other,
/// the first address took the attempt's whole time. NIO's `ClientBootstrap.connect(host:port:)` races the same
/// way, but resolves the name inside, where its time cannot be told from the connection's; here the name is
/// resolved first (the `dns` phase) and the race is the `connect` phase.
enum HappyEyeballs {
    /// How long an address is given before the next one is tried beside it (RFC 8305's recommended 250 ms).
    static let stagger = TimeAmount.milliseconds(250)

    /// The addresses in the order they are tried: the families alternate, IPv4 first (a server on 127.0.0.1 is
    /// the common case for `localhost`), each family in the order the resolver gave.
    static func ordered(_ addresses: [SocketAddress]) -> [SocketAddress] {
        let first = addresses.filter { $0.protocol == .inet }
        let second = addresses.filter { $0.protocol != .inet }
        var order: [SocketAddress] = []
        for index in 0..<max(first.count, second.count) {
            if index < first.count { order.append(first[index]) }
            if index < second.count { order.append(second[index]) }
        }
        return order
    }

    /// Connects to the first of `addresses` (in ``ordered(_:)`` order) that takes the connection within
    /// `timeout`; `completion` gets the channel, or `ChannelError.connectTimeout` when the time ran out first, or
    /// the last address's error when every one failed. It is called once.
    static func connect(
        to addresses: [SocketAddress], timeout: TimeAmount,
        completion: @escaping @Sendable (Result<any Channel, any Error>) -> Void
    ) {
        let race = Race(addresses: ordered(addresses), deadline: .now() + timeout, completion: completion)
        guard !race.addresses.isEmpty else {
            completion(.failure(ChannelError.connectTimeout(timeout)))
            return
        }
        race.startNext()
    }

    /// ``connect(to:timeout:completion:)`` for async callers.
    static func connect(to addresses: [SocketAddress], timeout: TimeAmount) async throws -> any Channel {
        try await withCheckedThrowingContinuation { continuation in
            connect(to: addresses, timeout: timeout) { continuation.resume(with: $0) }
        }
    }

    private final class Race: Sendable {
        let addresses: [SocketAddress]
        let deadline: NIODeadline
        let completion: @Sendable (Result<any Channel, any Error>) -> Void

        private struct State {
            /// The next address to try.
            var next = 0
            /// Connects started and not settled.
            var inFlight = 0
            /// A connection won, or the race failed: `completion` was called (or is about to be).
            var decided = false
            /// The timer that starts the next address.
            var timer: Scheduled<Void>?
        }
        private let state = Locked(State())

        init(
            addresses: [SocketAddress], deadline: NIODeadline,
            completion: @escaping @Sendable (Result<any Channel, any Error>) -> Void
        ) {
            self.addresses = addresses
            self.deadline = deadline
            self.completion = completion
        }

        /// Starts the next address, and the timer that starts the one after it.
        func startNext() {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let picked: SocketAddress? = state.withLock { state in
                guard !state.decided, state.next < addresses.count else { return nil }
                state.timer?.cancel()
                state.timer = nil
                defer { state.next += 1 }
                state.inFlight += 1
                if state.next + 1 < addresses.count {
                    state.timer = loop.scheduleTask(in: HappyEyeballs.stagger) { self.startNext() }
                }
                return addresses[state.next]
            }
            guard let address = picked else { return }
            let remaining = deadline - .now()
            guard remaining > .zero else {
                settle(.failure(ChannelError.connectTimeout(.zero)))
                return
            }
            ClientBootstrap(group: loop)
                // At the TCP level: `.socketOption(.tcp_nodelay)` is SOL_SOCKET's option 1, SO_DEBUG, which only
                // root may set (every probe failed with "Permission denied" for any other user, as in a container).
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connectTimeout(remaining)
                .connect(to: address)
                .whenComplete { self.settle($0) }
        }

        private enum Next {
            case wait
            case startNext
            case fail(any Error)
        }

        private func settle(_ result: Result<any Channel, any Error>) {
            switch result {
            case .success(let channel):
                let won = state.withLock { state in
                    state.inFlight -= 1
                    guard !state.decided else { return false }
                    state.decided = true
                    state.timer?.cancel()
                    state.timer = nil
                    return true
                }
                if won { completion(.success(channel)) } else { channel.close(promise: nil) }
            case .failure(let error):
                let next: Next = state.withLock { state in
                    state.inFlight -= 1
                    guard !state.decided else { return .wait }
                    // Every connect is bounded by the attempt's one deadline: when one runs out, all have.
                    if case ChannelError.connectTimeout = error {
                        state.decided = true
                        state.timer?.cancel()
                        state.timer = nil
                        return .fail(error)
                    }
                    if state.next < addresses.count { return .startNext }
                    guard state.inFlight == 0 else { return .wait }
                    state.decided = true
                    return .fail(error)
                }
                switch next {
                case .wait: break
                case .startNext: startNext()
                case .fail(let error): completion(.failure(error))
                }
            }
        }
    }
}
