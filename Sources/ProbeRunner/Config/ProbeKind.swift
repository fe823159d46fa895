import Foundation

/// What an endpoint probes, told by the scheme of its `url`, as Gatus and blackbox_exporter have beside HTTP.
///
/// - `http`: `http://` and `https://` (or a path under `baseURL`): a request and its response.
/// - `tcp`: `tcp://host:port`: a TCP connection opens; its time is the latency (`dns` and `connect` phases).
/// - `tls`: `tls://host:port`: a TCP connection and a TLS handshake, with the `tls` checks of an `https` endpoint
///   (chain and host name, `tls.expiresIn`, `caFile`, a client certificate) and a `tls` phase.
/// - `dns`: `dns://server[:port]` with `dns: {name: …, type: A}`: one query to that server (UDP, and TCP when
///   the answer is truncated); `dns://` alone asks the first `nameserver` of `/etc/resolv.conf`. Checks:
///   `expect.rcode` (default `NOERROR`) and `expect.answers`.
///
/// An endpoint that is not `http` takes no `method`, `query`, `headers`, `body`, `auth`, `maxBodySize` or
/// `followRedirects`, and expects no `status`, `headers`, `body` or `schema` (an error naming the key); the same
/// expectations inherited from `defaults.expect` apply to its HTTP siblings only.
package enum ProbeKind: String, Sendable, Hashable, CaseIterable {
    case http
    case tcp
    case tls
    case dns

    /// The kind a URL's scheme names (`http` for anything else, a path included).
    init(url text: String) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            self = .http
            return
        }
        self = ProbeKind(rawValue: text[..<colon].lowercased()).flatMap { $0 == .http ? nil : $0 } ?? .http
    }

    /// What reports show in the method column: `TCP`, `TLS`, `DNS`.
    var label: String { rawValue.uppercased() }

    /// Endpoint keys only an HTTP endpoint takes.
    static let httpOnlyKeys = ["method", "query", "headers", "body", "auth", "maxBodySize", "followRedirects"]
    /// Expectations only an HTTP endpoint has.
    static let httpOnlyExpectations = ["status", "headers", "body", "schema"]
    /// Expectations only a DNS endpoint has.
    static let dnsOnlyExpectations = ["rcode", "answers"]
}
