package import Foundation
package import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// An HTTP/1.1 server on 127.0.0.1 (a port the system picks) on SwiftNIO's own event loop threads (never the
/// cooperative pool): TLS with a given certificate, optionally requiring a client certificate from a CA, or plain.
/// It answers `200 {"ok":true}` with `X-Method: <method>` (no body for HEAD), keeps connections alive, and counts
/// the connections it accepted.
package final class TLSTestServer: Sendable {
    package let channel: any Channel
    package let port: Int
    private let counter: Counter

    /// Connections accepted so far.
    package var connections: Int { counter.value }

    /// - Parameter redirect: when given, every request is answered `302` with this `Location`.
    package static func start(
        certificate: URL? = nil, key: URL? = nil, clientCA: URL? = nil, redirect: String? = nil
    ) async throws -> TLSTestServer {
        let context: NIOSSLContext?
        if let certificate, let key {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
            if let clientCA {
                configuration.certificateVerification = .noHostnameVerification
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(clientCA.path))
            }
            context = try NIOSSLContext(configuration: configuration)
        } else {
            context = nil
        }
        let counter = Counter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                counter.increment()
                return channel.eventLoop.makeCompletedFuture {
                    if let context {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(redirect: redirect))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return TLSTestServer(channel: channel, port: channel.localAddress?.port ?? 0, counter: counter)
    }

    private init(channel: any Channel, port: Int, counter: Counter) {
        self.channel = channel
        self.port = port
        self.counter = counter
    }

    package func stop() async { try? await channel.close() }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        var value: Int { lock.withLock { count } }
        func increment() { lock.withLock { count += 1 } }
    }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private var method: HTTPMethod = .GET
        private let redirect: String?

        init(redirect: String?) { self.redirect = redirect }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): method = head.method
            case .body: break
            case .end:
                let body = ByteBuffer(string: #"{"ok":true}"#)
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "application/json")
                headers.add(name: "Content-Length", value: String(body.readableBytes))
                headers.add(name: "X-Method", value: method.rawValue)
                if let redirect { headers.add(name: "Location", value: redirect) }
                context.write(
                    wrapOutboundOut(
                        .head(
                            HTTPResponseHead(
                                version: .http1_1, status: redirect == nil ? .ok : .found, headers: headers))
                    ),
                    promise: nil)
                if method != .HEAD { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
