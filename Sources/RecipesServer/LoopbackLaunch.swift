import APIProbeShared
import Foundation
package import Hummingbird
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a Hummingbird server and returns once it accepts connections, with the port it listens on: the one way
/// the demo API (``RecipesServer``) and `apiprobe serve` start.
///
/// The server's tasks run on threads of their own, not on Swift's cooperative pool: a test process that keeps both
/// pool threads busy (CPU-heavy tests, on a 2-core machine) must not starve the server a child process waits on.
package enum LoopbackLaunch {
    /// A server that could not start: the address and why, and whether the port was in use.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        var host: String
        var port: Int
        var reason: String
        package var isAddressInUse: Bool
        package var description: String { "cannot listen on \(host):\(port): \(reason)" }
    }

    /// How long a connection may stay without a byte read or written before it is closed, so idle connections
    /// (a client that opens thousands and sends nothing) do not pile up. Headers are bounded by Hummingbird's
    /// decoder (80 KiB in all, 1,000 fields: a 400 beyond), bodies by each responder.
    static let idleTimeout: TimeAmount = .seconds(60)

    /// - Returns: the port listened on (the system's pick for 0) and the server's task (cancel it to stop).
    package static func start<Responder: HTTPResponder>(
        _ responder: Responder, host: String, port: Int, name: String
    ) async throws(Failure) -> (port: Int, task: Task<Void, any Error>)
    where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        // A port in use is found before the server starts: Hummingbird's service group, failing to bind, cancels
        // its tasks, and that cancellation deadlocked inside swift-async-algorithms' merge about one time in 75 on
        // a loaded machine (`apiprobe demo --serve --port N` never exited).
        if port != 0, await isInUse(host: host, port: port) {
            throw Failure(host: host, port: port, reason: "the port is already in use", isAddressInUse: true)
        }
        var logger = Logger(label: name)
        logger.logLevel = .critical
        let (ports, portsContinuation) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            responder: responder,
            server: .http1(configuration: .init(idleTimeout: idleTimeout)),
            configuration: .init(address: .hostname(host, port: port), serverName: name),
            onServerRunning: { channel in
                portsContinuation.yield(channel.localAddress?.port)
                portsContinuation.finish()
            },
            logger: logger
        )
        let task = dedicatedTask(.servers) {
            defer { portsContinuation.finish() }
            try await application.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let reported = await iterator.next(), let bound = reported else {
            // The stream ends without a port only once `run()` has returned or thrown: the task is ending by itself
            // (cancelling it then raced Hummingbird's own teardown into the same deadlock).
            do {
                try await task.value
                throw Failure(
                    host: host, port: port, reason: "the server stopped before it was running", isAddressInUse: false)
            } catch let error as Failure {
                throw error
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw Failure(host: host, port: port, reason: "the port is already in use", isAddressInUse: true)
            } catch {
                throw Failure(host: host, port: port, reason: "\(error)", isAddressInUse: false)
            }
        }
        return (bound, task)
    }

    /// Whether binding `host`:`port` fails with "address in use" (with `SO_REUSEADDR`, as the server binds).
    private static func isInUse(host: String, port: Int) async -> Bool {
        do {
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: host, port: port).get()
            try? await channel.close()
            return false
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            return true
        } catch {
            return false  // another failure (an address not on this machine) is reported by the server's own bind
        }
    }
}
