import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeClient
import ProbeRunner
import Testing

/// `followRedirects` and `auth`, per endpoint.
@Suite(.hangGuard, .temporaryFolder)
struct RequestControlsTests {
    func parse(_ endpoint: String) throws -> ProbeConfig {
        try ProbeConfig.parse(
            Data("api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - \(endpoint)\n".utf8), environment: [:],
            file: "apiprobe.yml")
    }

    @Test func aRedirectCanBeTheExpectedAnswer() async throws {
        let server = try RawHTTPServer { path in
            path.hasPrefix("/old") ? .redirect(location: "/new") : .respond(status: 200, headers: [:], body: "{}")
        }
        defer { server.stop() }
        let directory = try TemporaryFolder.url
        let config = try ProbeConfig.parse(
            Data(
                """
                api: x
                baseURL: \(server.baseURL.absoluteString)
                endpoints:
                  - {name: kept, path: /old, followRedirects: false, expect: {status: 302}}
                  - {name: followed, path: /old, expect: {status: 200}}
                """.utf8), environment: [:], file: "apiprobe.yml")
        let result = await ProbeRunner(config: config, directory: directory).run()
        #expect(result.passed, "\(result.endpoints.flatMap(\.checks).filter { !$0.passed })")
        #expect(result.endpoints.map(\.statusCodes) == [[302: 1], [200: 1]])
        #expect(result.endpoints[0].samples.first?.redirectedTo == nil)
        #expect(result.endpoints[1].samples.first?.redirectedTo == server.baseURL.absoluteString + "/new")
        // The two endpoints are probed at once: their requests arrive in either order.
        #expect(server.requestPaths.sorted() == ["/new", "/old", "/old"])
    }

    /// A redirect loop fails the sample after 16 hops, as the stubs fail it (the last 3xx was taken as the answer).
    @Test func aRedirectLoopFailsAfterSixteenHops() async throws {
        let server = try RawHTTPServer { _ in .redirect(location: "/loop") }
        defer { server.stop() }
        let config = try ProbeConfig.parse(
            Data(
                "api: x\nbaseURL: \(server.baseURL.absoluteString)\nendpoints:\n  - {name: loop, path: /loop}\n".utf8),
            environment: [:], file: "apiprobe.yml")
        let result = await ProbeRunner(config: config, directory: FileManager.default.temporaryDirectory).run()
        let endpoint = result.endpoints[0]
        #expect(endpoint.failureCategory == .connection, "\(endpoint.checks)")
        #expect(endpoint.checks.first?.message?.contains("more than 16 redirects") == true, "\(endpoint.checks)")
        #expect(server.requestPaths.count == 17, "the request and 16 hops")
    }

    @Test func authIsSentAsTheAuthorizationHeader() throws {
        let bearer = try parse("{name: a, path: /a, auth: {bearer: tok-123456}}")
        #expect(bearer.endpoints[0].headers == ["Authorization": "Bearer tok-123456"])
        let basic = try parse(
            "{name: a, path: /a, headers: {authorization: old}, auth: {basic: {username: u, password: p}}}")
        #expect(basic.endpoints[0].headers == ["Authorization": "Basic dTpw"])
        // The credential is masked in what the run prints, by the redactor that knows the config.
        #expect(basic.makeRedactor().redact(text: "sent Basic dTpw") == "sent REDACTED")
    }

    @Test(arguments: [
        (
            "{name: a, path: /a, auth: {token: x}}",
            #"apiprobe.yml:4:32: endpoints.a.auth.token: expected one of basic, bearer, found unknown key "token""#
        ),
        (
            "{name: a, path: /a, auth: {basic: {username: u}}}",
            "apiprobe.yml:4:39: endpoints.a.auth.basic: expected {username: …, password: …}, found a mapping"
        ),
        (
            "{name: a, path: /a, followRedirects: maybe}",
            #"apiprobe.yml:4:42: endpoints.a.followRedirects: expected true or false, found "maybe""#
        ),
    ])
    func badControlsAreConfigErrors(endpoint: String, message: String) {
        let error = #expect(throws: InputError.self) { try parse(endpoint) }
        #expect(error?.description == message)
    }
}

/// Conditions on bodies that are not JSON: the text and the size; HEAD and OPTIONS requests.
@Suite(.hangGuard, .temporaryFolder)
struct TextBodyConditionTests {
    func run(_ endpoints: String, server: RawHTTPServer) async throws -> ProbeRunResult {
        let config = try ProbeConfig.parse(
            Data("api: x\nbaseURL: \(server.baseURL.absoluteString)\nendpoints:\n\(endpoints)".utf8),
            environment: [:], file: "apiprobe.yml")
        let directory = try TemporaryFolder.url
        return await ProbeRunner(config: config, directory: directory).run()
    }

    @Test func textAndSizeConditionsHoldOnAnHTMLPage() async throws {
        let page = "<!doctype html><title>Status: all systems operational</title>"
        let server = try RawHTTPServer { _ in .respond(status: 200, headers: ["Content-Type": "text/html"], body: page)
        }
        defer { server.stop() }
        let passing = try await run(
            """
              - name: page
                path: /
                expect:
                  body:
                    - text contains "all systems operational"
                    - text not-contains "degraded"
                    - text matches "^<!doctype html>"
                    - size < 1KB
                    - size >= 10
              - {name: head, method: HEAD, path: /, expect: {status: 200}}
              - {name: options, method: OPTIONS, path: /, expect: {status: 200}}
            """, server: server)
        #expect(passing.passed, "\(passing.endpoints.flatMap(\.checks).filter { !$0.passed })")

        let failing = try await run(
            """
              - name: page
                path: /
                expect:
                  body:
                    - text contains "degraded"
                    - size < 10
            """, server: server)
        let failed = failing.endpoints[0].checks.filter { !$0.passed }
        #expect(
            failed.map(\.message) == [
                #"expected the body to contain "degraded", found 61 bytes without it (sample 1)"#,
                "expected a body of < 10 bytes, found 61 bytes (sample 1)",
            ])
        #expect(failed.map(\.category) == [.bodyCondition, .bodyCondition])
    }

    @Test(arguments: [
        "text contains", "text starts x", "size < lots", "/a contains x",
    ])
    func badTextConditionsAreConfigErrors(condition: String) {
        let error = #expect(throws: InputError.self) {
            try ProbeConfig.parse(
                Data(
                    "api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - {name: a, path: /a, expect: {body: [\"\(condition)\"]}}\n"
                        .utf8),
                environment: [:], file: "apiprobe.yml")
        }
        #expect(error?.description.hasPrefix("apiprobe.yml:4:") == true, "\(String(describing: error))")
        #expect(error?.key == "endpoints.a.expect.body[0]", "\(String(describing: error))")
    }
}
