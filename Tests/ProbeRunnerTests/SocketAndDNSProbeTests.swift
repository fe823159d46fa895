import APIProbeTestSupport
import Foundation
import HTTPFixtures
import NIOCore
import NIOPosix
import ProbeTestSupport
import Testing

@testable import ProbeClient
@testable import ProbeReports
@testable import ProbeRunner

/// `tcp://`, `tls://` and `dns://` endpoints against real parts on 127.0.0.1: a listening socket and a closed one, a
/// TLS server with `openssl`-made certificates, and Debian's `dnsmasq` as the DNS server with `dig` as the oracle
/// for every answer.
@Suite(.tags(.outsideTools), .hangGuard, .temporaryFolder)
struct SocketAndDNSProbeTests {
    func run(_ yaml: String, in folder: URL? = nil, environment: [String: String] = [:]) async throws
        -> ProbeRunResult
    {
        let directory = try folder ?? TemporaryFolder.make("socket-probe")
        let config = try ProbeConfig.parse(
            Data(yaml.utf8), environment: environment, file: "apiprobe.yml", directory: directory)
        return await ProbeRunner(config: config, directory: directory).run()
    }

    func parseError(_ yaml: String) -> InputError? {
        do {
            _ = try ProbeConfig.parse(
                Data(yaml.utf8), environment: [:], file: "apiprobe.yml",
                directory: URL(fileURLWithPath: NSTemporaryDirectory()))
            return nil
        } catch {
            return error
        }
    }

    // MARK: Config

    @Test(arguments: [
        ("  - {name: a, url: \"tcp://127.0.0.1:1\", method: POST}", "endpoints.a.method", "method on a tcp endpoint"),
        (
            "  - {name: a, url: \"tcp://127.0.0.1:1\", expect: {status: 200}}", "endpoints.a.expect.status",
            "status on a tcp endpoint"
        ),
        (
            "  - {name: a, url: \"tcp://127.0.0.1:1\", tls: {insecure: true}}", "endpoints.a.tls",
            "tls on a tcp endpoint"
        ),
        ("  - {name: a, url: \"tcp://127.0.0.1\"}", "endpoints.a.url", "\"tcp://127.0.0.1\""),
        ("  - {name: a, url: \"tcp://127.0.0.1:80/path\"}", "endpoints.a.url", "\"tcp://127.0.0.1:80/path\""),
        ("  - {name: a, url: \"dns://127.0.0.1\"}", "endpoints.a.dns", "none"),
        ("  - {name: a, url: \"dns://127.0.0.1\", dns: {name: \"a..b\"}}", "endpoints.a.dns.name", "\"a..b\""),
        ("  - {name: a, url: \"dns://127.0.0.1\", dns: {name: a.b, type: AXFRX}}", "endpoints.a.dns.type", "\"AXFRX\""),
        (
            "  - {name: a, url: \"dns://127.0.0.1\", dns: {name: a.b}, expect: {rcode: NOPE}}",
            "endpoints.a.expect.rcode", "\"NOPE\""
        ),
        (
            "  - {name: a, url: \"dns://127.0.0.1\", dns: {name: a.b}, expect: {body: /x exists}}",
            "endpoints.a.expect.body", "body on a dns endpoint"
        ),
        ("  - {name: a, url: \"http://127.0.0.1/\", dns: {name: a.b}}", "endpoints.a.dns", "dns on a http endpoint"),
        (
            "  - {name: a, url: \"http://127.0.0.1/\", expect: {answers: [1.2.3.4]}}", "endpoints.a.expect.answers",
            "answers on a http endpoint"
        ),
    ])
    func aKeyTheKindDoesNotTakeIsAnErrorAtThatKey(endpoint: String, key: String, found: String) throws {
        let error = try #require(parseError("api: t\nendpoints:\n" + endpoint))
        #expect(error.key == key, "\(error)")
        #expect(error.found == found, "\(error)")
        #expect(error.position.line == 3, "\(error)")
    }

    /// `defaults.expect`'s HTTP expectations are for the HTTP endpoints; a tcp endpoint keeps its latency budget.
    @Test func theDefaultsHTTPExpectationsAreNotATCPEndpoints() throws {
        let config = try ProbeConfig.parse(
            Data(
                """
                api: t
                defaults: {expect: {status: 204, schema: true, body: /ok exists, latency: p95 < 2s}}
                endpoints:
                  - {name: port, url: "tcp://127.0.0.1:5"}
                  - {name: web, url: "http://127.0.0.1:5/"}
                """.utf8), environment: [:], file: "apiprobe.yml",
            directory: URL(fileURLWithPath: NSTemporaryDirectory()))
        let port = config.endpoints[0]
        #expect(port.kind == .tcp && port.method == "TCP")
        #expect(port.expectations.schema == nil && port.expectations.body.isEmpty)
        #expect(port.expectations.latency.map(\.description) == ["latency p95 < 2s"])
        #expect(
            config.endpoints[1].expectations.schema != nil
                && config.endpoints[1].expectations.status.ranges == [204...204])
    }

    // MARK: TCP and TLS

    @Test func aTCPEndpointPassesWhenTheConnectionOpensAndIsRefusedOtherwise() async throws {
        let listening = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let open = listening.localAddress?.port ?? 0
        let shut = ClosedPort.loopback()
        let result = try await run(
            """
            api: t
            endpoints:
              - {name: open, url: "tcp://127.0.0.1:\(open)", samples: 3, expect: {latency: max < 5s}}
              - {name: shut, url: "tcp://127.0.0.1:\(shut)"}
            """)
        try await listening.close()

        let good = result.endpoints[0]
        #expect(good.passed, "\(good.checks)")
        #expect(good.checks.map(\.name) == ["reachable", "latency p100 < 5s"])
        #expect(good.method == "TCP" && good.statusCodes.isEmpty && good.errors == 0)
        #expect(good.latency?.count == 3)
        for sample in good.samples {
            let phases = try #require(sample.phases)
            #expect(phases.connect > .zero && phases.tls == .zero && phases.processing == .zero)
            let sum = phases.named.reduce(Duration.zero) { $0 + $1.duration }
            #expect(sum <= sample.latency && sample.latency - sum < .milliseconds(1), "\(phases) vs \(sample.latency)")
        }
        #expect(ReportText.answers(good) == "open×3")

        let bad = result.endpoints[1]
        #expect(!bad.passed && bad.failureCategory == .refused)
        #expect(bad.checks.first?.message == "1 of 1 samples failed: connection refused (tcp://127.0.0.1:\(shut))")
        #expect(ReportText.answers(bad) == "-")
        #expect(!result.passed)
    }

    @Test func aTLSEndpointHasTheHTTPSEndpointsCertificateChecks() async throws {
        let certificates = try await TestCertificates.shared()
        let valid = try await TLSTestServer.start(
            certificate: certificates.file("valid.pem"), key: certificates.file("leaf.key"))
        let expiring = try await TLSTestServer.start(
            certificate: certificates.file("expiring.pem"), key: certificates.file("leaf.key"))
        let result = try await run(
            """
            api: t
            endpoints:
              - {name: valid, url: "tls://localhost:\(valid.port)", tls: {caFile: ca.pem, expiresIn: "> 14d"}}
              - {name: expiring, url: "tls://localhost:\(expiring.port)", tls: {caFile: ca.pem, expiresIn: "> 14d"}}
              - {name: untrusted, url: "tls://localhost:\(valid.port)"}
            """, in: certificates.folder)
        await valid.stop()
        await expiring.stop()

        let good = result.endpoints[0]
        #expect(good.passed, "\(good.checks)")
        #expect(good.method == "TLS")
        #expect(good.checks.map(\.name) == ["reachable", "tls", "tls expiresIn > 14d"])
        #expect(good.tls?.verified == true)
        #expect(good.tls?.notAfter == (try await certificates.notAfter("valid")))
        let phases = try #require(good.samples.first?.phases)
        #expect(phases.tls > .zero && phases.connect > .zero)
        #expect(valid.connections == 2, "the valid endpoint's and the untrusted one's handshakes, nothing kept")

        let soon = result.endpoints[1]
        #expect(!soon.passed && soon.failureCategory == .certificateExpiry && soon.answered)
        #expect(soon.checks.first { !$0.passed }?.name == "tls expiresIn > 14d")
        let untrusted = result.endpoints[2]
        #expect(!untrusted.passed && untrusted.failureCategory == .tls)
        #expect(untrusted.tls?.failure == .unknownAuthority, "\(untrusted.checks)")
    }

    // MARK: DNS

    /// Every answer the probe reads from dnsmasq is the one `dig` reads: the same records, written the same way.
    @Test func dnsAnswersAreTheOnesDigReads() async throws {
        guard let server = try await DNSMasq.start() else { return }
        defer { server.stop() }
        guard let dig = ExternalTools.find("dig") else {
            ExternalTools.recordMissing("dig", package: "bind9-dnsutils", brewFormula: "bind")
            return
        }
        let questions: [(String, String)] = [
            ("api.probe.test", "A"), ("api.probe.test", "AAAA"), ("probe.test", "MX"), ("probe.test", "TXT"),
            ("alias.probe.test", "A"), ("_api._tcp.probe.test", "SRV"), ("nope.probe.test", "A"),
            ("big.probe.test", "TXT"),
        ]
        let endpoints = questions.enumerated().map { index, question in
            "  - {name: q\(index), url: \"dns://127.0.0.1:\(server.port)\", dns: {name: \(question.0), type: \(question.1)}, "
                + "expect: {rcode: [NOERROR, NXDOMAIN]}}"
        }
        let result = try await run("api: dns\nendpoints:\n" + endpoints.joined(separator: "\n"))
        for (index, question) in questions.enumerated() {
            let endpoint = result.endpoints[index]
            #expect(endpoint.passed, "\(question): \(endpoint.checks)")
            let answer = try #require(endpoint.samples.first?.dns, "\(question)")
            let short = try await CommandLineRunner.runProcess(
                dig, ["@127.0.0.1", "-p", "\(server.port)", "+short", question.0, question.1])
            let expected = short.standardOutput.split(separator: "\n").map(String.init)
            #expect(answer.records.map(\.value) == expected, "\(question)")
            let full = try await CommandLineRunner.runProcess(
                dig, ["@127.0.0.1", "-p", "\(server.port)", question.0, question.1])
            #expect(full.standardOutput.contains("status: \(answer.rcode),"), "\(question): \(answer.rcode)")
        }
        // The big TXT answer does not fit in 512 bytes: dnsmasq truncates it over UDP and it was asked again over TCP.
        #expect(result.endpoints[7].samples.first?.dns?.records.count == 6)
        #expect(result.endpoints[6].samples.first?.dns?.rcode == .nameError)
    }

    @Test func dnsChecksSayWhatTheServerAnswered() async throws {
        guard let server = try await DNSMasq.start() else { return }
        defer { server.stop() }
        let url = "dns://127.0.0.1:\(server.port)"
        let result = try await run(
            """
            api: dns
            endpoints:
              - {name: good, url: "\(url)", samples: 2, dns: {name: api.probe.test}, expect: {answers: [127.0.0.7], latency: max < 5s}}
              - {name: case, url: "\(url)", dns: {name: probe.test, type: mx}, expect: {answers: ["10 MAIL.probe.test"]}}
              - {name: moved, url: "\(url)", dns: {name: api.probe.test}, expect: {answers: [127.0.0.8]}}
              - {name: gone, url: "\(url)", dns: {name: nope.probe.test, type: AAAA}}
              - {name: down, url: "dns://127.0.0.1:\(server.closedPort)", dns: {name: api.probe.test}}
            """)
        let (good, mixed, moved, gone, down) = (
            result.endpoints[0], result.endpoints[1], result.endpoints[2], result.endpoints[3], result.endpoints[4]
        )
        #expect(good.passed, "\(good.checks)")
        #expect(good.checks.map(\.name) == ["reachable", "rcode NOERROR", "answer 127.0.0.7", "latency p100 < 5s"])
        #expect(good.method == "DNS" && good.url == "\(url) A api.probe.test")
        #expect(ReportText.answers(good) == "NOERROR×2")
        #expect(mixed.passed, "names compare without case or trailing dot: \(mixed.checks)")
        #expect(!moved.passed && moved.failureCategory == .dns)
        #expect(moved.checks.first { !$0.passed }?.message == "not among A 127.0.0.7 (sample 1)")
        #expect(gone.checks.first { !$0.passed }?.message == "was NXDOMAIN (sample 1)")
        #expect(ReportText.answers(gone) == "NXDOMAIN×1")
        #expect(down.failureCategory == .refused, "a connected UDP socket hears the port is closed: \(down.checks)")

        let json = Report.render(result, as: .json)
        let document = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let first = try #require((document?["endpoints"] as? [[String: Any]])?.first)
        let detail = try #require((first["sampleDetails"] as? [[String: Any]])?.first?["dns"] as? [String: Any])
        #expect(detail["rcode"] as? String == "NOERROR")
        let records = try #require(detail["records"] as? [[String: Any]])
        #expect(records.map { $0["value"] as? String } == ["127.0.0.7"])
        #expect(records.map { $0["type"] as? String } == ["A"])
    }

    /// A record's value that is a secret of the config (a TXT record carrying the token) is masked in every report.
    @Test func aSecretInADNSAnswerIsMasked() async throws {
        guard let server = try await DNSMasq.start() else { return }
        defer { server.stop() }
        let result = try await run(
            """
            api: dns
            endpoints:
              - {name: txt, url: "dns://127.0.0.1:\(server.port)", dns: {name: secret.probe.test, type: TXT}, expect: {answers: ["${TOKEN}"]}}
            """, environment: ["TOKEN": DNSMasq.plantedSecret])
        #expect(result.endpoints[0].passed, "\(result.endpoints[0].checks)")
        for format in ReportKind.allCases {
            let text = Report.render(result, as: format)
            #expect(!text.contains(DNSMasq.plantedSecret), "\(format)")
        }
        #expect(Report.render(result, as: .json).contains("${TOKEN}"))
    }

    // MARK: The wire format

    @Test func aHostileDNSAnswerIsAnErrorNotAHang() throws {
        let query = DNSQuery(name: "a.test", type: .a)
        let question = DNSMessage.query(query, id: 7)
        var header: [UInt8] = [0, 7, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]
        let body = Array(question[12...])
        // An answer whose name points at itself.
        var loop = header + body
        loop += [0xC0, UInt8(loop.count)]
        #expect(throws: MalformedDNSMessage.self) { try DNSMessage.answer(loop, to: query, id: 7) }
        // A record claiming more data than the message holds.
        let short = header + body + [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 200, 1, 2]
        #expect(throws: MalformedDNSMessage.self) { try DNSMessage.answer(short, to: query, id: 7) }
        // Another query's ID, and a message that is not a response.
        #expect(throws: MalformedDNSMessage.self) { try DNSMessage.answer(header + body, to: query, id: 8) }
        header[2] = 0x01
        #expect(throws: MalformedDNSMessage.self) { try DNSMessage.answer(header + body, to: query, id: 7) }
        // A well-formed answer reads.
        header[2] = 0x81
        let good = header + body + [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 1]
        #expect(try DNSMessage.answer(good, to: query, id: 7).records.map(\.value) == ["10.0.0.1"])
        #expect(
            DNSProbe.systemNameServers("# x\nnameserver 10.0.0.2\nnameserver fe80::1%eth0\n") == [
                "10.0.0.2", "fe80::1",
            ])
    }
}

/// Debian's dnsmasq on 127.0.0.1 (a free port), answering for `probe.test` only, from records given on its command
/// line; nothing is forwarded. It runs as a daemon (not a child of the test process: as a child, Foundation's
/// `Process` stopped noticing the exit of every later child, `dig` included) and is stopped by its pid file.
final class DNSMasq: Sendable {
    static let plantedSecret = "tok-DNS-9f3a51"
    let pid: pid_t
    let port: Int
    /// A UDP port nothing listens on.
    let closedPort: Int

    private init(pid: pid_t, port: Int, closedPort: Int) {
        self.pid = pid
        self.port = port
        self.closedPort = closedPort
    }

    /// `nil` (recorded as missing) when dnsmasq is not installed.
    static func start() async throws -> DNSMasq? {
        guard
            let dnsmasq = ExternalTools.find("dnsmasq")
                ?? ["/usr/sbin/dnsmasq", "/usr/local/sbin/dnsmasq"]
                .map({ URL(fileURLWithPath: $0) }).first(where: {
                    FileManager.default.isExecutableFile(atPath: $0.path)
                })
        else {
            ExternalTools.recordMissing("dnsmasq", package: "dnsmasq-base", brewFormula: "dnsmasq")
            return nil
        }
        let folder = try TemporaryFolder.make("dnsmasq")
        let pidFile = folder.appendingPathComponent("dnsmasq.pid")
        let long = String(repeating: "x", count: 200)
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...60_000)
            let arguments =
                [
                    "--port=\(port)", "--listen-address=127.0.0.1", "--bind-interfaces", "--no-resolv", "--no-hosts",
                    "--conf-file=/dev/null", "--pid-file=\(pidFile.path)", "--local=/probe.test/",
                    "--host-record=api.probe.test,127.0.0.7,fd00::7", "--mx-host=probe.test,mail.probe.test,10",
                    "--txt-record=probe.test,v=spf1 -all", "--cname=alias.probe.test,api.probe.test",
                    "--srv-host=_api._tcp.probe.test,api.probe.test,8443,5,10",
                    "--txt-record=secret.probe.test,\(plantedSecret)",
                ] + (0..<6).map { "--txt-record=big.probe.test,\($0)\(long)" } + (getuid() == 0 ? ["--user=root"] : [])
            // The parent exits once the daemon listens; a port already taken makes it exit 2.
            let started = try await CommandLineRunner.runProcess(dnsmasq, arguments)
            guard started.status == 0, let text = try? String(contentsOf: pidFile, encoding: .utf8),
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { continue }
            let server = DNSMasq(pid: pid, port: port, closedPort: try await freeUDPPort())
            let asked = await HTTPLoader(maximumConnectionsPerHost: 1).send(
                ProbeRequest(
                    url: URL(string: "dns://127.0.0.1:\(port)")!, timeout: .seconds(2),
                    dns: DNSQuery(name: "api.probe.test")),
                deadline: .now + .seconds(2))
            if case .success(let answer) = asked, answer.dns != nil { return server }
            server.stop()
        }
        Issue.record("dnsmasq did not start on a free port in 5 tries")
        return nil
    }

    func stop() { kill(pid, SIGKILL) }

    private static func freeUDPPort() async throws -> Int { ClosedPort.loopback(udp: true) }
}
