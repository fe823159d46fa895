import APIProbeTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

@testable import ProbeClient

/// The client's connection race on 127.0.0.1: a listener that takes no connection (its queue full, so the kernel
/// drops the next SYN, as a host behind a dead route does), beside ones that answer or refuse.
@Suite(.hangGuard)
struct HappyEyeballsTests {
    /// A listener whose accept queue is full: a connect to it neither succeeds nor fails until its timeout.
    struct SilentListener {
        let server: any Channel
        let filler: any Channel
        var address: SocketAddress { server.localAddress! }

        static func start() async throws -> SilentListener {
            let group = MultiThreadedEventLoopGroup.singleton
            let server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 0)
                // Nothing is ever accepted: the one queued connection below fills the queue.
                .serverChannelOption(.autoRead, value: false)
                .bind(host: "127.0.0.1", port: 0).get()
            let filler = try await ClientBootstrap(group: group).connect(to: server.localAddress!).get()
            return SilentListener(server: server, filler: filler)
        }

        func stop() async {
            try? await filler.close()
            try? await server.close()
        }
    }

    /// A listener that accepts.
    static func listening() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { _ in MultiThreadedEventLoopGroup.singleton.next().makeSucceededVoidFuture() }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// An address that refuses at once: a port below 1024 that nothing on a test machine listens on (tcpmux and
    /// compressnet, 1 and 2), and that no test binds. A port bound and closed for the purpose could be handed out
    /// again to a server of a test running beside this one, and the "refused" address then answered.
    static func refusingAddress(_ port: Int) throws -> SocketAddress {
        try SocketAddress(ipAddress: "127.0.0.1", port: port)
    }

    @Test func aSilentFirstAddressDoesNotKeepTheHostFromBeingReached() async throws {
        let silent = try await SilentListener.start()
        let server = try await Self.listening()
        let started = ContinuousClock.now
        let channel = try await HappyEyeballs.connect(
            to: [silent.address, server.localAddress!], timeout: .seconds(20))
        let took = ContinuousClock.now - started
        // Tried one after the other, the first address took the whole 20 s and the attempt failed.
        #expect(channel.remoteAddress?.port == server.localAddress?.port)
        #expect(took < .seconds(10), "connected after \(took)")
        try await channel.close()
        try await server.close()
        await silent.stop()
    }

    @Test func aRefusedAddressHandsOnAtOnceAndTheLastErrorIsTheOneReported() async throws {
        let server = try await Self.listening()
        let refused = try Self.refusingAddress(1)
        let channel = try await HappyEyeballs.connect(to: [refused, server.localAddress!], timeout: .seconds(20))
        #expect(channel.remoteAddress?.port == server.localAddress?.port)
        try await channel.close()
        try await server.close()

        await #expect {
            try await HappyEyeballs.connect(to: [refused, try Self.refusingAddress(2)], timeout: .seconds(20))
        } throws: { error in
            (error as? IOError)?.errnoCode == ECONNREFUSED
        }
    }

    @Test func addressesThatNeverAnswerEndInTheAttemptsTimeout() async throws {
        let first = try await SilentListener.start()
        let second = try await SilentListener.start()
        await #expect {
            try await HappyEyeballs.connect(to: [first.address, second.address], timeout: .milliseconds(600))
        } throws: { error in
            if case ChannelError.connectTimeout = error { return true }
            return false
        }
        await first.stop()
        await second.stop()
    }

    @Test func theFamiliesAlternateIPv4First() throws {
        let v4a = try SocketAddress(ipAddress: "192.0.2.1", port: 443)
        let v4b = try SocketAddress(ipAddress: "192.0.2.2", port: 443)
        let v6a = try SocketAddress(ipAddress: "2001:db8::1", port: 443)
        let v6b = try SocketAddress(ipAddress: "2001:db8::2", port: 443)
        let v6c = try SocketAddress(ipAddress: "2001:db8::3", port: 443)
        #expect(HappyEyeballs.ordered([v6a, v6b, v6c, v4a, v4b]) == [v4a, v6a, v4b, v6b, v6c])
        #expect(HappyEyeballs.ordered([v6a]) == [v6a])
    }
}
