public import Foundation
import HTTPFixtures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (system-picked port) that misbehaves on purpose: it drops the
/// connection mid-body or trickles the body, which a well-behaved framework server will not do.
/// One thread, one connection at a time; it records when each request arrived.
public final class RawHTTPServer: @unchecked Sendable {
    public enum Behaviour: Sendable {
        /// A complete response.
        case respond(status: Int, headers: [String: String], body: String)
        /// Promises `Content-Length: 1000`, sends 10 bytes, closes.
        case dropMidBody
        /// Closes the connection as soon as the request is read, without a byte.
        case closeWithoutResponse
        /// Sends `bytes` body bytes one at a time, `interval` apart.
        case trickle(bytes: Int, interval: Duration)
        /// `302` to `location`.
        case redirect(location: String)
        /// A `200` whose body never ends: 64 KiB at a time until the client goes away. `Content-Length`
        /// announces `announcedLength` bytes when given; otherwise the body runs until the connection closes.
        case endless(announcedLength: Int?)
        /// Reads the request and never answers, until the client goes away.
        case silent
        /// A complete `200` (without `Connection: close`), then the connection closed: a keep-alive timeout of zero.
        case respondAndClose(body: String)
    }

    public let port: Int
    private let socket: Int32
    private let lock = NSLock()
    private var arrivals: [ContinuousClock.Instant] = []
    private var paths: [String] = []
    private var received: [(method: String, path: String, body: String)] = []
    private var heads: [String] = []
    private var sent = 0
    private var ended = 0
    private var behaviourFor: @Sendable (String) -> Behaviour
    private var thread: Thread?
    /// `stop()` was called; the listening socket was closed (both under `lock`).
    private var isStopping = false
    private var isClosed = false

    public var requestTimes: [ContinuousClock.Instant] { lock.withLock { arrivals } }
    public var requestPaths: [String] { lock.withLock { paths } }
    /// Every request's method, path and body, in order of arrival.
    public var requests: [(method: String, path: String, body: String)] { lock.withLock { received } }
    /// Each request's head as received (request line and header lines), in order.
    public var requestHeads: [String] { lock.withLock { heads } }
    public var requestCount: Int { lock.withLock { arrivals.count } }
    /// Body bytes sent by `.endless` responses, all connections together.
    public var bodyBytesSent: Int { lock.withLock { sent } }
    /// `.endless` responses that ended because the client closed the connection.
    public var endlessResponsesCut: Int { lock.withLock { ended } }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The string value of `key` in each POST request's JSON body, in order of arrival (`?` where there is none):
    /// what an alert receiver was told.
    public func posted(_ key: String) -> [String] {
        requests.filter { $0.method == "POST" }.map { request in
            guard case .string(let value)? = (try? JSONValue(parsing: Data(request.body.utf8)))?[key] else {
                return "?"
            }
            return value
        }
    }

    public init(_ behaviour: @escaping @Sendable (String) -> Behaviour) throws {
        behaviourFor = behaviour
        #if canImport(Darwin)
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        socket = fd
        let thread = Thread { [self] in self.acceptLoop() }
        self.thread = thread
        thread.start()
    }

    /// Stops accepting. The socket is only shut down here; the accept loop closes it when `accept` fails, so
    /// its number cannot be reused by another test's socket while the loop may still call `accept` on it (the
    /// loop would then take that test's connections).
    ///
    /// Both sides hold the lock, and neither touches the number once the socket is closed: a shutdown of a
    /// closed number would cut whichever socket of another test had been given that number since.
    public func stop() {
        lock.withLock {
            isStopping = true
            if !isClosed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(socket, nil, nil)
            guard client >= 0 else {
                let failure = errno
                let closes = lock.withLock {
                    // A signal or a connection reset before it was taken is no reason to stop listening.
                    guard isStopping || (failure != EINTR && failure != ECONNABORTED) else { return false }
                    isClosed = true
                    close(socket)
                    return true
                }
                if closes { return }
                continue
            }
            var noSigPipe: Int32 = 1
            #if canImport(Darwin)
            setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #else
            _ = noSigPipe
            #endif
            let connection = client
            Thread.detachNewThread { [self] in self.serve(connection) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        while let path = readRequest(client) {
            lock.withLock {
                arrivals.append(ContinuousClock.now)
                paths.append(path)
            }
            switch behaviourFor(path) {
            case .respond(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                guard send(client, head + "\r\n" + body) else { return }
            case .dropMidBody:
                _ = send(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
                _ = send(client, "{\"recipes\"")
                return
            case .closeWithoutResponse:
                return
            case .trickle(let bytes, let interval):
                guard send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(bytes)\r\n\r\n") else { return }
                for _ in 0..<bytes {
                    Thread.sleep(
                        forTimeInterval: Double(interval.components.attoseconds) / 1e18
                            + Double(interval.components.seconds))
                    guard send(client, "x") else { return }
                }
            case .endless(let announced):
                let length = announced.map { "Content-Length: \($0)\r\n" } ?? "Connection: close\r\n"
                guard send(client, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\(length)\r\n") else { return }
                let chunk = String(repeating: "x", count: 65_536)
                while send(client, chunk) {
                    lock.withLock { sent += chunk.utf8.count }
                }
                lock.withLock { ended += 1 }
                return
            case .respondAndClose(let body):
                _ = send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
                return
            case .silent:
                var byte: UInt8 = 0
                while Self.receive(client, &byte, 1) > 0 {}
                return
            case .redirect(let location):
                guard send(client, "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n")
                else { return }
            }
        }
    }

    /// Reads one request head; returns its path, or `nil` at end of stream.
    /// Reads one request (its body too, by `Content-Length`); records its method, path and body; returns the path.
    private func readRequest(_ client: Int32) -> String? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = Self.receive(client, &buffer, buffer.count)
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            guard let end = data.indices.first(where: { data[$0...].starts(with: Array("\r\n\r\n".utf8)) }) else {
                if data.count > 65_536 { return nil }
                continue
            }
            let head = String(decoding: data[..<end], as: UTF8.self)
            let lines = head.split(separator: "\r\n")
            let requestLine = lines.first?.split(separator: " ") ?? []
            let length =
                lines.dropFirst().compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            var body = Array(data[(end + 4)...])
            while body.count < length {
                let count = Self.receive(client, &buffer, min(buffer.count, length - body.count))
                guard count > 0 else { return nil }
                body.append(contentsOf: buffer[0..<count])
            }
            let path = requestLine.count > 1 ? String(requestLine[1]) : "/"
            let method = requestLine.first.map(String.init) ?? "GET"
            lock.withLock {
                received.append((method, path, String(decoding: body, as: UTF8.self)))
                heads.append(head)
            }
            return path
        }
    }

    /// `recv`, again when a signal interrupted it: a signal (a child process of another test exiting) is not
    /// the client going away, and closing the connection on it failed tests at random.
    private static func receive(_ client: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            let received = recv(client, buffer, count, 0)
            if received < 0 && errno == EINTR { continue }
            return received
        }
    }

    private func send(_ client: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            #if canImport(Darwin)
            let sent = bytes[offset...].withUnsafeBytes { Darwin.send(client, $0.baseAddress, $0.count, 0) }
            #else
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            #endif
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
