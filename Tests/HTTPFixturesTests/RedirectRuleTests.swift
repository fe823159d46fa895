import Foundation
import Testing

@testable import HTTPFixtures

/// The one redirect rule's credential boundary is the origin (scheme, host and port), as curl's and
/// AsyncHTTPClient's: issue 36.
struct RedirectRuleTests {
    @Test(arguments: [
        ("https://api.example.com/a", "http://api.example.com/b", true),  // a downgrade
        ("https://api.example.com/a", "https://api.example.com:8443/b", true),  // another port
        ("http://127.0.0.1:8080/a", "http://127.0.0.1:9090/b", true),
        ("https://api.example.com/a", "https://cdn.example.com/b", true),
        ("https://api.example.com/a", "https://API.example.com:443/b", false),  // the same origin, spelt otherwise
        ("https://api.example.com/a", "/b", false),
    ])
    func credentialsStayWithinTheOrigin(from: String, to: String, changes: Bool) throws {
        let origin = try #require(URL(string: from))
        let hop = try #require(RedirectRule.hop(status: 302, location: to, from: origin, method: "GET"))
        #expect(hop.changesOrigin == changes)
        #expect(hop.keeps(header: "Authorization") == !changes)
        #expect(hop.keeps(header: "cookie") == !changes)
        #expect(hop.keeps(header: "Accept"))
    }
}
