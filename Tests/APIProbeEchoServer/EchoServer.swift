import APIProbeShared
public import Foundation
import Hummingbird

/// A loopback server that echoes every request back, credentials included, the way debugging APIs
/// (httpbin and the like) do, and hands out credentials of its own: the hostile peer of redaction tests.
///
/// Every path answers `GET` and `POST`. The answer's form depends on the path's first segment:
/// - `/json…`: `{"url": …, "headers": {…}, "body": …, "refresh_token": serverToken}`;
/// - `/html…`: an HTML page listing the URL, each header and the body;
/// - `/multipart…`: `multipart/form-data` with one field per header, the URL, the body, and a `password` field;
/// - `/deep…`: JSON nested deeper than the fixture reader's limit, holding `"token": serverToken` inside.
///
/// Every answer carries `Set-Cookie: session=<serverCookie>`, `X-Echo-Authorization` (the request's
/// `Authorization`) and `Access-Control-Allow-Credentials: true`.
public struct EchoServer: Sendable {
    /// The port it listens on, on 127.0.0.1.
    public var port: Int
    private var task: Task<Void, any Error>

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Runs `body` against a server that hands out `serverToken` and `serverCookie`, and stops it afterwards.
    public static func with<R>(
        serverToken: String, serverCookie: String, _ body: (EchoServer) async throws -> R
    ) async throws -> R {
        let router = Router()
        let echo: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            try await respond(to: request, serverToken: serverToken, serverCookie: serverCookie)
        }
        router.get("**", use: echo)
        router.post("**", use: echo)
        let (ports, continuation) = AsyncStream.makeStream(of: Int?.self)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "EchoServer"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port)
                continuation.finish()
            }
        )
        let serve: @Sendable () async throws -> Void = {
            defer { continuation.finish() }
            try await application.run()
        }
        // On threads of its own, as the recipes server: a busy cooperative pool must not starve it.
        let task = dedicatedTask(.servers, serve)
        var iterator = ports.makeAsyncIterator()
        guard let reported = await iterator.next(), let port = reported else {
            task.cancel()
            throw EchoServerError()
        }
        let server = EchoServer(port: port, task: task)
        do {
            let result = try await body(server)
            task.cancel()
            _ = try? await task.value
            return result
        } catch {
            task.cancel()
            _ = try? await task.value
            throw error
        }
    }

    private static func respond(to request: Request, serverToken: String, serverCookie: String) async throws
        -> Response
    {
        let url = request.uri.description
        let headers = request.headers.map { ($0.name.rawName, $0.value) }.sorted { $0.0 < $1.0 }
        let bodyBuffer = try await request.body.collect(upTo: 1 << 20)
        let body = String(buffer: bodyBuffer)
        var fields = HTTPFields()
        fields[.init("Set-Cookie")!] = "session=\(serverCookie); Path=/; HttpOnly"
        fields[.init("Access-Control-Allow-Credentials")!] = "true"
        if let authorization = request.headers[.authorization] {
            fields[.init("X-Echo-Authorization")!] = authorization
        }
        let text: String
        let path = request.uri.path
        if path.hasPrefix("/html") {
            fields[.contentType] = "text/html; charset=utf-8"
            text =
                "<html><body><h1>\(url)</h1><dl>"
                + headers.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined()
                + "</dl><pre>\(body)</pre></body></html>\n"
        } else if path.hasPrefix("/multipart") {
            let boundary = "echo-boundary-7d3f"
            fields[.contentType] = "multipart/form-data; boundary=\(boundary)"
            var parts = headers.map { ($0.0, $0.1) }
            parts.append(("url", url))
            parts.append(("body", body))
            parts.append(("password", serverToken))
            text =
                parts.map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }
                .joined() + "--\(boundary)--\r\n"
        } else if path.hasPrefix("/deep") {
            fields[.contentType] = "application/json"
            let depth = 600
            text =
                String(repeating: "{\"a\":", count: depth) + "{\"token\": \"\(serverToken)\", \"echo\": \(quoted(url))}"
                + String(repeating: "}", count: depth)
        } else {
            fields[.contentType] = "application/json"
            let echoed = headers.map { "\(quoted($0.0)): \(quoted($0.1))" }.joined(separator: ", ")
            text =
                "{\"url\": \(quoted(url)), \"headers\": {\(echoed)}, \"body\": \(quoted(body)), "
                + "\"refresh_token\": \(quoted(serverToken))}"
        }
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A JSON string literal.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// The echo server could not start.
public struct EchoServerError: Error, Sendable {}
