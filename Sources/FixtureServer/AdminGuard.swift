import HTTPTypes
import Hummingbird

/// Who may use the admin API (`/__apiprobe/`): it switches scenarios, injects faults and reads the request log, so a
/// web page the developer happens to have open must not reach it, nor a caller on the network.
///
/// - `Host` names this server: a loopback name or address (`127.0.0.1`, `localhost`, `[::1]`), or the address it was
///   told to listen on. Anything else is a DNS-rebinding page (`Host: evil.example` resolving to 127.0.0.1).
/// - `Origin`, when a browser sends one, is this server's own; `Sec-Fetch-Site: cross-site` is refused too. A
///   cross-origin `text/plain` POST from any page carries one of them.
/// - With a token (`--admin-token`, required for a bind other than loopback), `Authorization: Bearer <token>`,
///   compared in constant time.
struct AdminGuard: Sendable {
    /// The address the server listens on.
    var host: String
    var token: String?

    /// Whether `host` is a loopback address or name (127.0.0.0/8, `::1`, `localhost`).
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The host part of a `Host` or `Origin` authority (`127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `[::1]`).
    static func hostPart(of authority: Substring) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[...end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// Why the request may not use the admin API, or `nil` when it may.
    func refusal(of request: Request) -> (status: HTTPResponse.Status, reason: String)? {
        guard let hostField = request.head.authority else {
            return (.forbidden, "the admin API answers only requests with a Host header naming this server")
        }
        let named = Self.hostPart(of: Substring(hostField))
        guard Self.isLoopback(named) || named.lowercased() == host.lowercased() else {
            return (
                .forbidden,
                "the admin API answers only requests addressed to this server (Host: 127.0.0.1, localhost, [::1] or "
                    + "\(host)), found Host \(hostField.prefix(100))"
            )
        }
        if request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "cross-site" {
            return (.forbidden, "the admin API does not answer requests a web page of another site makes")
        }
        if let origin = request.headers[HTTPField.Name("Origin")!] {
            let authority = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
            let originHost = Self.hostPart(of: authority)
            guard origin.lowercased().hasPrefix("http://") || origin.lowercased().hasPrefix("https://"),
                Self.isLoopback(originHost) || originHost.lowercased() == host.lowercased()
            else {
                return (
                    .forbidden,
                    "the admin API does not answer requests a web page of another origin makes (Origin "
                        + "\(origin.prefix(100)))"
                )
            }
        }
        if let token {
            let sent = request.headers[.authorization] ?? ""
            guard Self.constantTimeEqual(sent, "Bearer " + token) else {
                return (.unauthorized, "the admin API needs Authorization: Bearer <the --admin-token>")
            }
        }
        return nil
    }

    /// Equal strings, compared in time that does not depend on where they first differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
