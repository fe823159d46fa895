import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeTestSupport
import RecipesServer
import Testing

@testable import ProbeClient
@testable import ProbeReports
@testable import ProbeRunner

/// `tls:` and phase timings against real servers on 127.0.0.1 with certificates `openssl` made in the test: a CA
/// and its leaves (valid, expiring in 3 days, expired, naming another host, a client certificate), a self-signed
/// one, a server that requires a client certificate.
@Suite(.tags(.outsideTools), .hangGuard, .temporaryFolder)
struct TLSProbeTests {
    /// Runs a config; `now`, when given, is the runner's date (the wall clock otherwise).
    func run(_ yaml: String, in folder: URL, environment: [String: String] = [:], now: Date? = nil) async throws
        -> ProbeRunResult
    {
        let config = try ProbeConfig.parse(
            Data(yaml.utf8), environment: environment, file: "apiprobe.yml", directory: folder)
        var runner = ProbeRunner(config: config, directory: folder)
        if let now { runner.now = { now } }
        return await runner.run()
    }

    func failedChecks(_ result: ProbeRunResult) -> String {
        "\(result.endpoints.flatMap(\.checks).filter { !$0.passed })"
    }

    @Test func aCertificateFromTheConfiguredCAIsVerifiedAndItsConnectionReused() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: ip, url: "https://127.0.0.1:\(server.port)/", samples: 3, tls: {caFile: ca.pem, expiresIn: "> 14d"}}
              - {name: host, url: "https://localhost:\(server.port)/", tls: {caFile: ca.pem}}
            """, in: certificates.folder)
        let connections = server.connections
        await server.stop()

        #expect(result.passed, "\(failedChecks(result))")
        let endpoint = result.endpoints[0]
        #expect(endpoint.checks.map(\.name) == ["reachable", "tls", "tls expiresIn > 14d", "status 200-299"])
        let tls = try #require(endpoint.tls)
        #expect(tls.verified && !tls.insecure && tls.failure == nil)
        #expect(tls.notAfter == (try await certificates.notAfter("valid")))
        #expect(tls.subject.contains("localhost") && tls.issuer.contains("apiprobe test CA"))
        #expect(result.endpoints[1].tls?.verified == true)

        // Phases: the first sample opened the connection, the next two reused it (zero dns, connect and tls).
        let phases = endpoint.samples.compactMap(\.phases)
        try #require(phases.count == 3)
        #expect(!phases[0].connectionReused && phases[0].tls > .zero)
        for later in phases[1...] {
            #expect(later.connectionReused)
            #expect(later.dns == .zero && later.connect == .zero && later.tls == .zero)
        }
        for (sample, timing) in zip(endpoint.samples, phases) {
            #expect(timing.named.allSatisfy { $0.duration >= .zero })
            #expect(timing.named.reduce(Duration.zero) { $0 + $1.duration } <= sample.latency)
        }
        #expect(endpoint.phases?.reusedConnections == 2)
        #expect(endpoint.phases?.phases.keys.sorted() == PhaseTimings.names.sorted())
        #expect(connections == 2, "one connection per host, kept alive across samples")

        let json = try JSONSerialization.jsonObject(with: Data(Report.render(result, as: .json).utf8)) as? [String: Any]
        let first = try #require((json?["endpoints"] as? [[String: Any]])?.first)
        let details = try #require(first["sampleDetails"] as? [[String: Any]])
        #expect(details.map { $0["connectionReused"] as? Bool } == [false, true, true])
        #expect((details[0]["phasesMs"] as? [String: Any])?.keys.sorted() == PhaseTimings.names.sorted())
        #expect(((first["tls"] as? [String: Any])?["verified"]) as? Bool == true)
        #expect(((first["tls"] as? [String: Any])?["notAfter"]) as? String == DisplayText.timestamp(tls.notAfter))
        #expect(first["reusedConnections"] as? Int == 2)
    }

    /// `null` unsets a key an endpoint inherits from `defaults:`: the second endpoint trusts the system's roots
    /// only, so the test CA's certificate is of an unknown authority there, and the defaults' header is not sent.
    @Test func nullUnsetsWhatAnEndpointInheritsFromTheDefaults() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"))
        let yaml = """
            api: tls
            defaults:
              headers: {X-Tenant: acme, Accept: application/json}
              samples: 2
              tls: {caFile: ca.pem, expiresIn: "> 14d"}
            endpoints:
              - {name: inherits, url: "https://127.0.0.1:\(server.port)/"}
              - name: unsets
                url: "https://127.0.0.1:\(server.port)/"
                samples: null
                headers: {X-Tenant: null}
                tls: {caFile: null, expiresIn: ~}
            """
        let config = try ProbeConfig.parse(
            Data(yaml.utf8), environment: [:], file: "apiprobe.yml", directory: certificates.folder)
        #expect(config.endpoints[0].headers == ["X-Tenant": "acme", "Accept": "application/json"])
        #expect(config.endpoints[1].headers == ["Accept": "application/json"])
        #expect(config.endpoints[1].samples == EndpointDefaults().samples)
        #expect(config.endpoints[1].tls.caFile == nil && config.endpoints[1].tls.minimumValidity == nil)
        let result = try await run(yaml, in: certificates.folder)
        await server.stop()
        #expect(result.endpoints[0].tls?.verified == true, "\(failedChecks(result))")
        #expect(result.endpoints[0].checks.map(\.name).contains("tls expiresIn > 14d"))
        #expect(result.endpoints[1].samples.first?.failure?.tlsReason == .unknownAuthority)
        #expect(!result.endpoints[1].checks.map(\.name).contains("tls expiresIn > 14d"))
    }

    static let failures: [(certificate: String, key: String, settings: String, reason: TLSFailureReason)] = [
        ("expired", "leaf.key", "{caFile: ca.pem}", .expired),
        ("selfsigned", "selfsigned.key", "{}", .selfSigned),
        ("mismatch", "leaf.key", "{caFile: ca.pem}", .nameMismatch),
        // The test CA is not among the system's roots.
        ("valid", "leaf.key", "{}", .unknownAuthority),
    ]

    @Test(arguments: failures)
    func eachVerificationFailureHasItsReason(
        _ failure: (certificate: String, key: String, settings: String, reason: TLSFailureReason)
    ) async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("\(failure.certificate).pem"), key: certificates.file(failure.key))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: secure, url: "https://127.0.0.1:\(server.port)/", tls: \(failure.settings)}
            """, in: certificates.folder)
        await server.stop()

        let endpoint = result.endpoints[0]
        #expect(!result.passed)
        #expect(endpoint.failureCategory == .tls)
        #expect(endpoint.samples.first?.failure?.tlsReason == failure.reason, "\(endpoint.samples)")
        let check = try #require(endpoint.checks.first { $0.name == "tls" })
        #expect(!check.passed && check.category == .tls)
        #expect(check.message?.contains("TLS failed (https://127.0.0.1:\(server.port)/): \(failure.reason):") == true)
        // The certificate that failed is still described: its expiry, and why it was not trusted.
        let tls = try #require(endpoint.tls)
        #expect(tls.failure == failure.reason && !tls.verified)
        #expect(tls.notAfter == (try await certificates.notAfter(failure.certificate)))
        #expect(Report.render(result, as: .json).contains("\"tlsFailure\": \"\(failure.reason)\""))
    }

    /// The chain's verification, which the handshake waits for, ran on a task of Swift's cooperative pool: a process
    /// computing there held it until the attempt's timeout cut the attempt (in CI, `anExpiringCertificate…`'s probe
    /// failed as timed out, "no certificate was seen", while CPU-heavy tests ran beside it). In a process of its own
    /// (an exit test): every default thread kept busy would stall every other test of this process meanwhile.
    @Test func aHandshakeDoesNotWaitForABusyPool() async throws {
        let outcome = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let certificates = try await TestCertificates.shared()
            let server = try await TLSTestServer.start(
                certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"))
            let config = try ProbeConfig.parse(
                Data(
                    """
                    api: tls
                    endpoints:
                      - {name: ip, url: "https://127.0.0.1:\(server.port)/", timeout: 5s, tls: {caFile: ca.pem}}
                    """.utf8), environment: [:], file: "apiprobe.yml", directory: certificates.folder)
            let runner = ProbeRunner(config: config, directory: certificates.folder)
            let result = await whileTheDefaultThreadsAreBusy { await runner.run() }
            await server.stop()
            guard result.passed, result.endpoints.first?.tls?.verified == true else {
                FileHandle.standardError.write(
                    Data("\(result.endpoints.flatMap(\.checks).filter { !$0.passed })\n".utf8))
                exit(1)
            }
        }
        if let outcome, outcome.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: outcome.standardErrorContent, as: UTF8.self))")
        }
    }

    @Test func aServerThatDoesNotSpeakTLSIsAHandshakeFailure() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start()
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: plain, url: "https://127.0.0.1:\(server.port)/", tls: {caFile: ca.pem}}
            """, in: certificates.folder)
        await server.stop()
        #expect(result.endpoints[0].samples.first?.failure?.tlsReason == .handshake)
        #expect(result.endpoints[0].failureCategory == .tls)
        #expect(result.endpoints[0].tls == nil)
    }

    @Test func anExpiringCertificateFailsItsBudgetInEveryReport() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("expiring.pem"), key: certificates.file("leaf.key"))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: soon, url: "https://127.0.0.1:\(server.port)/", tls: {caFile: ca.pem, expiresIn: "> 14d"}}
              - {name: fine, url: "https://127.0.0.1:\(server.port)/", tls: {caFile: ca.pem, expiresIn: "> 2d"}}
            """, in: certificates.folder)
        // The days left are counted from the runner's date, not the wall clock: a day before the end, without
        // waiting two days, the 2-day budget fails too, and the round says it started then.
        let notAfter = try await certificates.notAfter("expiring")
        let dayBefore = notAfter.addingTimeInterval(-86_400)
        let later = try await run(
            "api: tls\nendpoints:\n  - {name: fine, url: \"https://127.0.0.1:\(server.port)/\", tls: {caFile: ca.pem, expiresIn: \"> 2d\"}}",
            in: certificates.folder, now: dayBefore)
        await server.stop()

        let soon = result.endpoints[0]
        let budget = try #require(soon.checks.first { $0.name == "tls expiresIn > 14d" })
        #expect(!budget.passed && budget.category == .certificateExpiry)
        // A certificate expiring soon is a failed check of an endpoint that answers: degraded, never down.
        #expect(soon.answered && soon.consecutiveOutages == 0 && !soon.isDown)
        #expect(budget.message == "the certificate expires \(DisplayText.timestamp(notAfter)), in 3.0 days")
        #expect(soon.checks.first { $0.name == "tls" }?.passed == true)
        #expect(result.endpoints[1].passed, "\(failedChecks(result))")

        #expect(later.startedAt == dayBefore)
        let twoDays = try #require(later.endpoints.first?.checks.first { $0.name == "tls expiresIn > 2d" })
        #expect(!twoDays.passed)
        #expect(twoDays.message == "the certificate expires \(DisplayText.timestamp(notAfter)), in 1.0 days")

        let prometheus = try PrometheusText(parsing: Report.render(result, as: .prometheus))
        for name in ["soon", "fine"] {
            #expect(
                prometheus.value("apiprobe_tls_cert_expiry_timestamp_seconds", ["endpoint": name])
                    == notAfter.timeIntervalSince1970)
            #expect(prometheus.value("apiprobe_tls_verified", ["endpoint": name]) == 1)
            #expect(prometheus.value("apiprobe_tls_insecure", ["endpoint": name]) == 0)
            #expect(prometheus.value("apiprobe_check_passed", ["endpoint": name, "check": "tls"]) == 1)
            for phase in PhaseTimings.names {
                #expect(
                    prometheus.value(
                        "apiprobe_request_phase_duration_seconds_count", ["endpoint": name, "phase": phase]) == 1)
            }
        }
        #expect(prometheus.value("apiprobe_check_passed", ["endpoint": "soon", "check": "tls expiresIn > 14d"]) == 0)
        let junit = Report.render(result, as: .junit)
        #expect(junit.contains(#"<testcase classname="soon" name="tls expiresIn &gt; 14d""#))
        #expect(
            junit.contains(
                #"type="certificate-expiry">the certificate expires \#(DisplayText.timestamp(notAfter)), in 3.0 days</failure>"#
            ))
        #expect(
            Report.render(result, as: .markdown).contains("| soon | CN=localhost | \(DisplayText.timestamp(notAfter))"))
        #expect(Report.render(result, as: .console).contains("✗ tls expiresIn > 14d: the certificate expires"))

        if let promtool = ExternalTools.find("promtool") {
            let text = Report.render(result, as: .prometheus)
            let (status, output) = try await ExternalTools.run(promtool, ["check", "metrics"], input: text)
            #expect(status == 0, "promtool check metrics:\n\(output)\n\(text)")
        } else {
            ExternalTools.recordMissing("promtool", package: "prometheus")
        }
    }

    @Test func aServerThatRequiresAClientCertificateGetsOne() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"),
            clientCA: certificates.file("ca.pem"))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: without, url: "https://127.0.0.1:\(server.port)/", tls: {caFile: ca.pem}}
              - name: with
                url: https://127.0.0.1:\(server.port)/
                tls: {caFile: ca.pem, clientCertificate: client.pem, clientKey: leaf.key}
            """, in: certificates.folder)
        await server.stop()

        let without = result.endpoints[0]
        #expect(without.failureCategory == .tls)
        #expect(without.samples.first?.failure?.tlsReason == .clientCertificateRequired, "\(without.samples)")
        // Our words, with the library's reason code, never its text (file paths of the machine it was built on).
        #expect(
            without.samples.first?.failure?.message
                == "TLS failed (https://127.0.0.1:\(server.port)/): client-certificate-required: the server asks for a client certificate (set tls.clientCertificate and tls.clientKey) (TLSV1_ALERT_CERTIFICATE_REQUIRED)",
            "\(without.samples)")
        #expect(result.endpoints[1].passed, "\(failedChecks(result))")
        #expect(result.endpoints[1].statusCodes == [200: 1])
        // The server's chain verified: asking for a client certificate does not make it unverified.
        #expect(without.tls?.verified == true && without.tls?.failure == .clientCertificateRequired)
        let prometheus = try PrometheusText(parsing: Report.render(result, as: .prometheus))
        #expect(prometheus.value("apiprobe_tls_verified", ["endpoint": "without"]) == 1)
    }

    /// A TLS URL on a server that speaks plain HTTP: the handshake fails, said in our words with BoringSSL's
    /// reason code, and no report carries the TLS library's own text (which names files of the build machine).
    @Test func aHandshakeFailureIsOurMessageWithoutTheLibrarysPaths() async throws {
        try await RecipesServer.with(RecipesServer.Configuration()) { server in
            let folder = try TemporaryFolder.make("tls-plain")
            let result = try await run(
                """
                api: tls
                endpoints:
                  - {name: plain, url: "https://127.0.0.1:\(server.port)/api/search?q=x"}
                """, in: folder)
            let failure = try #require(result.endpoints[0].samples.first?.failure)
            #expect(failure.tlsReason == .handshake)
            #expect(
                failure.message
                    == "TLS failed (https://127.0.0.1:\(server.port)/api/search?q=x): handshake: the TLS handshake failed: WRONG_VERSION_NUMBER"
            )
            for format in ReportKind.allCases {
                let text = Report.render(result, as: format)
                #expect(!text.contains(".cc:") && !text.contains("checkouts") && !text.contains("OPENSSL_internal"))
            }
        }
    }

    @Test func insecureIsReportedAsSuchInEveryReport() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("selfsigned.pem"), key: certificates.file("selfsigned.key"))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: lab, url: "https://127.0.0.1:\(server.port)/", tls: {insecure: true}}
            """, in: certificates.folder)
        await server.stop()

        #expect(result.passed, "\(failedChecks(result))")
        let tls = try #require(result.endpoints[0].tls)
        #expect(tls.insecure && !tls.verified)
        #expect(tls.notAfter == (try await certificates.notAfter("selfsigned")))
        #expect(
            result.endpoints[0].checks.first { $0.name == "tls" }?.message?.hasPrefix("not verified (insecure: true)")
                == true)
        #expect(
            Report.render(result, as: .console).contains("TLS not verified (insecure: true), certificate CN=127.0.0.1"))
        #expect(Report.render(result, as: .markdown).contains("| lab | CN=127.0.0.1 |"))
        #expect(Report.render(result, as: .markdown).contains("⚠️ no (insecure: true)"))
        #expect(Report.render(result, as: .json).contains("\"insecure\": true"))
        let prometheus = try PrometheusText(parsing: Report.render(result, as: .prometheus))
        #expect(prometheus.value("apiprobe_tls_insecure", ["endpoint": "lab"]) == 1)
        #expect(prometheus.value("apiprobe_tls_verified", ["endpoint": "lab"]) == 0)
    }

    static let configErrors: [(settings: String, at: String, message: String)] = [
        (
            "{caFile: missing.pem}", "missing.pem",
            "endpoints.a.tls.caFile: expected a PEM file of certificates at missing.pem, found no such file"
        ),
        (
            "{caFile: bad.pem}", "bad.pem",
            "endpoints.a.tls.caFile: expected a PEM file of certificates in bad.pem, found text that is not valid PEM"
        ),
        (
            "{clientCertificate: client.pem, clientKey: ca.pem}", "ca.pem",
            "endpoints.a.tls.clientKey: expected a PEM private key in ca.pem, found a PEM CERTIFICATE instead"
        ),
        (
            "{caFile: leaf.key}", "leaf.key",
            "endpoints.a.tls.caFile: expected a PEM file of certificates in leaf.key, found a PEM PRIVATE KEY instead"
        ),
        (
            "{clientCertificate: client.pem}", "{clientCertificate",
            "endpoints.a.tls: expected clientCertificate and clientKey together, found clientCertificate without clientKey"
        ),
        (
            "{expiresIn: soon}", "soon",
            #"endpoints.a.tls.expiresIn: expected how long the certificate must still be valid, like "> 14d" (d, h, m or s), found "soon""#
        ),
        (
            "{insecure: sometimes}", "sometimes",
            #"endpoints.a.tls.insecure: expected true or false, found "sometimes""#
        ),
    ]

    @Test(arguments: configErrors)
    func aBadTLSSettingIsAConfigErrorAtItsPlace(_ bad: (settings: String, at: String, message: String)) async throws {
        let certificates = try await TestCertificates.shared()
        let line = "  - {name: a, url: \"https://127.0.0.1:1/\", tls: \(bad.settings)}"
        let text = "api: tls\nendpoints:\n\(line)\n"
        let column = try #require(line.range(of: bad.at)).lowerBound.utf16Offset(in: line) + 1
        #expect {
            try ProbeConfig.parse(
                Data(text.utf8), environment: [:], file: "apiprobe.yml", directory: certificates.folder)
        } throws: { error in
            "\(error)" == "apiprobe.yml:3:\(column): \(bad.message)"
        }
    }

    @Test func headAndOptionsAreMethodsLikeAnyOther() async throws {
        let server = try await TLSTestServer.start()
        let folder = try TemporaryFolder.make("methods")
        let result = try await run(
            """
            api: methods
            baseURL: http://127.0.0.1:\(server.port)
            endpoints:
              - {name: head, method: HEAD, path: /, samples: 2, expect: {headers: {X-Method: HEAD}}}
              - {name: options, method: OPTIONS, path: /, samples: 2, expect: {headers: {X-Method: OPTIONS}}}
            """, in: folder)
        await server.stop()
        #expect(result.passed, "\(failedChecks(result))")
        #expect(result.endpoints[0].samples.map(\.bytes) == [0, 0])
        #expect(result.endpoints[1].samples.map(\.bytes) == [11, 11])
        // Plain http: no TLS phase, no TLS report, the second sample on the first's connection.
        #expect(result.endpoints.allSatisfy { $0.tls == nil && $0.phases?.reusedConnections == 1 })
        #expect(result.endpoints.flatMap(\.samples).allSatisfy { $0.phases?.tls == .zero })
    }

    /// A server that closes each connection after its response (without saying so) costs no sample: a kept-alive
    /// connection found closed is replaced by a new one, and the sample says it was not reused.
    @Test func aKeptAliveConnectionTheServerClosedIsReplaced() async throws {
        let server = try RawHTTPServer { _ in .respondAndClose(body: "{}") }
        defer { server.stop() }
        let folder = try TemporaryFolder.make("stale")
        let result = try await run(
            """
            api: stale
            baseURL: \(server.baseURL.absoluteString)
            endpoints:
              - {name: closing, path: /, samples: 4}
            """, in: folder)
        #expect(result.passed, "\(failedChecks(result))")
        #expect(result.endpoints[0].statusCodes == [200: 4])
        #expect(result.endpoints[0].samples.map { $0.phases?.connectionReused } == [false, false, false, false])
        #expect(server.requestCount == 4)
    }

    static let token = "bearer-PLANT-7A7A"
    static let querySecret = "query-PLANT-8B8B"

    /// A redirect chain is reported hop by hop; a planted secret (a bearer token from the environment, a credential
    /// in a query, the same in a Location) reaches none of the new outputs: TLS failures, redirect chains, phases.
    @Test func redirectChainsAreReportedAndSecretsStayOut() async throws {
        let redirector = try RawHTTPServer { path in
            if path.hasPrefix("/start") { return .redirect(location: "/hop?access_token=\(Self.querySecret)") }
            if path.hasPrefix("/hop") { return .redirect(location: "/end") }
            return .respond(status: 200, headers: [:], body: "{}")
        }
        defer { redirector.stop() }
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("selfsigned.pem"), key: certificates.file("selfsigned.key"))
        let result = try await run(
            """
            api: tls
            defaults: {headers: {Authorization: "Bearer ${TOKEN}"}}
            endpoints:
              - {name: moved, url: "\(redirector.baseURL.absoluteString)/start?api_key=${KEY}"}
              - {name: untrusted, url: "https://127.0.0.1:\(server.port)/?api_key=${KEY}"}
            """, in: certificates.folder, environment: ["TOKEN": Self.token, "KEY": Self.querySecret])
        await server.stop()

        let base = redirector.baseURL.absoluteString
        #expect(result.endpoints[0].samples.first?.redirects == ["\(base)/hop?access_token=REDACTED", "\(base)/end"])
        #expect(result.endpoints[0].passed, "\(failedChecks(result))")
        #expect(result.endpoints[1].failureCategory == .tls)
        #expect(Report.render(result, as: .markdown).contains("- **moved**: \(MarkdownReport.escape(base))/hop"))
        #expect(
            Report.render(result, as: .console).contains("redirected \(base)/hop?access_token=REDACTED → \(base)/end"))
        for kind in [ReportKind.console, .json, .junit, .markdown, .prometheus] {
            let text = Report.render(result, as: kind)
            for secret in [Self.token, Self.querySecret] {
                #expect(!text.contains(secret), "\(kind) shows a secret:\n\(text)")
            }
        }
    }

    /// A redirect that changes the origin drops `Authorization` and `Cookie` (issue 36): from `https` to plain
    /// `http` on the same host (a downgrade), and to another port of the same host; a redirect within the origin
    /// keeps them. Before, only a change of host dropped them, so both were sent, the first in clear text.
    @Test func aRedirectToAnotherOriginNeverCarriesCredentials() async throws {
        let plain = try RawHTTPServer { path in
            path.hasPrefix("/hop") ? .redirect(location: "/landed") : .respond(status: 200, headers: [:], body: "{}")
        }
        defer { plain.stop() }
        let other = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { other.stop() }
        let certificates = try await TestCertificates.shared()
        let secure = try await TLSTestServer.start(
            certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"),
            redirect: plain.baseURL.absoluteString + "/downgraded")
        let redirector = try RawHTTPServer { _ in .redirect(location: other.baseURL.absoluteString + "/other-port") }
        defer { redirector.stop() }
        let result = try await run(
            """
            api: redirects
            defaults: {headers: {Authorization: "Bearer ${TOKEN}", Cookie: "session=${TOKEN}"}}
            endpoints:
              - {name: downgrade, url: "https://127.0.0.1:\(secure.port)/start", tls: {caFile: ca.pem}}
              - {name: port, url: "\(redirector.baseURL.absoluteString)/start"}
              - {name: same, url: "\(plain.baseURL.absoluteString)/hop"}
            """, in: certificates.folder, environment: ["TOKEN": Self.token])
        await secure.stop()
        #expect(result.passed, "\(failedChecks(result))")
        func head(_ server: RawHTTPServer, _ path: String) -> String {
            server.requestHeads.first { $0.contains(" \(path) ") } ?? "(no request to \(path))"
        }
        for (server, path) in [(plain, "/downgraded"), (other, "/other-port")] {
            let received = head(server, path).lowercased()
            #expect(received.hasPrefix("get \(path)"), "\(received)")
            #expect(!received.contains("authorization:"), "\(path): \(received)")
            #expect(!received.contains("cookie:"), "\(path): \(received)")
            #expect(!received.contains(Self.token.lowercased()), "\(path): \(received)")
        }
        // Within one origin the credentials go on.
        #expect(head(plain, "/landed").contains("Bearer \(Self.token)"), "\(head(plain, "/landed"))")
    }

    /// Expiry covers the chain the server presents, as blackbox_exporter's `probe_ssl_earliest_cert_expiry`: an
    /// intermediate that expires in 3 days fails `expiresIn: "> 14d"` although the leaf has 30, and the exported
    /// expiry is the intermediate's (issue 38, item 1). Before, only the leaf was read, and it passed.
    @Test func anIntermediateThatExpiresFirstIsTheExpiry() async throws {
        let certificates = try await TestCertificates.shared()
        let server = try await TLSTestServer.start(
            certificate: certificates.file("chained.pem"), key: certificates.file("leaf.key"))
        let result = try await run(
            """
            api: tls
            endpoints:
              - {name: chained, url: "https://localhost:\(server.port)/", tls: {caFile: ca.pem, expiresIn: "> 14d"}}
            """, in: certificates.folder)
        await server.stop()
        let endpoint = result.endpoints[0]
        let tls = try #require(endpoint.tls)
        #expect(tls.verified, "\(failedChecks(result))")
        #expect(tls.subject.contains("localhost"))
        #expect(tls.expiresFirst?.contains("apiprobe test intermediate") == true, "\(tls)")
        #expect(tls.notAfter == (try await certificates.notAfter("intermediate")))
        #expect(tls.notAfter < (try await certificates.notAfter("chained-leaf")))
        let check = try #require(endpoint.checks.first { $0.name == "tls expiresIn > 14d" })
        #expect(!check.passed)
        #expect(check.message?.contains("apiprobe test intermediate") == true, "\(check)")
        let metrics = Report.render(result, as: .prometheus)
        let expected = Int(tls.notAfter.timeIntervalSince1970.rounded())
        #expect(
            metrics.contains("apiprobe_tls_cert_expiry_timestamp_seconds{endpoint=\"chained\"} \(expected)\n"),
            "\(metrics)")
        #expect(Report.render(result, as: .json).contains("apiprobe test intermediate"))
    }
}
