package import Foundation

/// How every client of the package follows a redirect: the stub set standing in for URLSession in tests, and the
/// probe's own HTTP client. One rule, so a redirect behaves the same offline and live.
///
/// - A 301, 302, 303, 307 or 308 with a `Location` (absolute, or relative to the request's URL) to an `http` or
///   `https` URL is followed; any other status, or a location of another scheme, is the answer.
/// - 303, and 301 or 302 after a `POST`, become a `GET` without a body (`HEAD` stays `HEAD`), as browsers, curl and
///   URLSession do; 307 and 308 keep the method and the body.
/// - Credentials are not carried to another origin: `Authorization`, `Proxy-Authorization` and `Cookie` are dropped
///   when the location's scheme, host or port differs (curl's rule, and AsyncHTTPClient's), so a redirect from
///   `https` to `http` (a downgrade) or to another port on the same host never sends them.
/// - At most ``maximumHops`` redirects are followed for one request (URLSession's limit).
package enum RedirectRule {
    /// The most redirects followed for one request.
    package static let maximumHops = 16

    /// The headers dropped on a redirect to another host.
    static let credentialHeaders = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// Whether `status` is a redirect the rule follows (given a `Location`).
    package static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// Where a redirect leads and how the next request differs from the last.
    package struct Hop: Sendable, Hashable {
        package var url: URL
        package var method: String
        /// `false`: the body is dropped, with its `Content-Type`.
        package var keepsBody: Bool
        /// The location's origin (scheme, host or port) differs: the ``RedirectRule/credentialHeaders`` are dropped.
        var changesOrigin: Bool

        /// Whether the next request sends the header `name`.
        package func keeps(header name: String) -> Bool {
            if !keepsBody && headerNamesMatch(name, "Content-Type") { return false }
            return !(changesOrigin && RedirectRule.credentialHeaders.contains { headerNamesMatch($0, name) })
        }
    }

    /// The hop a response with `status` and `location` leads to from a `method` request to `url`, or `nil` when it
    /// is the answer.
    package static func hop(status: Int, location: String?, from url: URL, method: String) -> Hop? {
        guard isRedirect(status), let location,
            let next = URL(string: location, relativeTo: url)?.absoluteURL,
            let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        let upper = method.uppercased()
        let becomesGet = status == 303 || ((status == 301 || status == 302) && upper == "POST")
        return Hop(
            url: next, method: becomesGet && upper != "HEAD" ? "GET" : upper, keepsBody: !becomesGet,
            changesOrigin: origin(of: next) != origin(of: url))
    }

    /// A URL's origin: its scheme and host in lower case and its port, the scheme's default when none is written
    /// (`https://a.example` and `https://a.example:443` are one origin).
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
