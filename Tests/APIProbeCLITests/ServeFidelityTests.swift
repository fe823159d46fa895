import APIProbeEchoServer
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apiprobe serve` keeps what a client sent and what it recorded faithful (issue 35, items 2, 4, 5, 10, 11): run by
/// curl and URLSession from other processes, against the built binary.
@Suite(.tags(.commandLine, .outsideTools), .hangGuard, .temporaryFolder)
struct ServeFidelityTests {
    /// Starts `serve` with `arguments` that must be refused: its exit status and standard error; a server that
    /// starts instead is a failure (stopped), never a wait without end.
    static func refusedStart(_ arguments: [String]) async throws -> (status: Int32?, standardError: String) {
        let command = try RunningCommand(["serve"] + arguments)
        let printed = try await command.waitForOutput(containing: "Stop with Ctrl-C.", timeout: .seconds(10))
        #expect(!printed.contains("Stop with Ctrl-C."), "serve started: \(printed)")
        let status = try await command.stop()
        return (status, command.standardError)
    }

    /// `--proxy` forwards the target exactly as received (`%3F`, `%2F`, `%2e%2e` stay escaped), and a recording
    /// whose path holds a masked credential answers its own request from then on, under a name without the secret.
    @Test func theProxyForwardsTheTargetAsReceivedAndARecordingReplays() async throws {
        guard let curl = ServeSecurityTests.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let folder = try TemporaryFolder.make("serve-proxy-fidelity")
        let stubs = folder.appendingPathComponent("Stubs/echo")
        let secret = "tok-PATH-SECRET-6613"
        let (command, echoed) = try await EchoServer.with(serverToken: "srv-x", serverCookie: "c-x") { live in
            let (command, base, _) = try await ServeControlTests.serve(stubs, ["--proxy", live.baseURL.absoluteString])
            let encoded = try await CommandLineRunner.runProcess(
                curl, ["-s", "--path-as-is", base + "/json/a%3Fb/c%2Fd/%2e%2e/e%23f"])
            for _ in 0..<3 {
                let sent = try await CommandLineRunner.runProcess(
                    curl, ["-s", "-H", "Authorization: Bearer \(secret)", base + "/json/tokens/\(secret)"])
                #expect(sent.status == 0, "\(sent)")
            }
            return (command, encoded.standardOutput)
        }
        // The live API saw the target the client sent, byte for byte.
        #expect(echoed.contains(#""url": "/json/a%3Fb/c%2Fd/%2e%2e/e%23f""#), "\(echoed)")

        // One recording for the three requests with the credential in the path: the first proxied, the others
        // answered by it (the live server is gone by now for none of them: they came while it ran).
        let names = FixtureStore(directory: stubs).names()
        #expect(names.filter { $0.contains("tokens") }.count == 1, "\(names)")
        #expect(!names.contains { $0.contains(secret) }, "\(names)")
        #expect(try await command.stop() == 0)
        #expect(!command.standardError.contains(secret), "\(command.standardError)")
        let sources = command.standardError.split(separator: "\n").filter { $0.contains("/json/tokens/") }
        #expect(sources.count == 1, "one request proxied, the rest answered by the recording: \(command.standardError)")
    }

    /// Recording does not grow what serving costs (item 6): a recording written while the server looked at the
    /// folder was taken for an edit on disk, and the whole folder was read again, and again while recording went
    /// on (memory 47 → 164 MB and a hit 0.4 → 3.3 ms after 3,000). 200 recordings, 4 at a time: no reload
    /// follows any, and each answers its own request from then on.
    @Test func recordingsAreNotTakenForEditsOnDisk() async throws {
        let folder = try TemporaryFolder.make("serve-record-many")
        let stubs = folder.appendingPathComponent("Stubs/echo")
        let (command, served) = try await EchoServer.with(serverToken: "srv-y", serverCookie: "c-y") { live in
            // A folder of some size, so that a look at it takes long enough to meet the recordings being written.
            let seeded = stubs.appendingPathComponent("seeded")
            try FileManager.default.createDirectory(at: seeded, withIntermediateDirectories: true)
            for index in 0..<500 {
                try ServeControlTests.fixture("GET", live.baseURL.absoluteString + "/seeded/\(index)", body: "{}")
                    .write(to: seeded.appendingPathComponent("s\(index).json"))
            }
            let (command, base, _) = try await ServeControlTests.serve(stubs, ["--proxy", live.baseURL.absoluteString])
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<4 {
                    group.addTask {
                        for index in stride(from: lane, to: 200, by: 4) {
                            let url = try #require(URL(string: base + "/json/items?n=\(index)"))
                            let (_, response) = try await session.data(from: url)
                            #expect((response as? HTTPURLResponse)?.statusCode == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Past the next look at the folder, a few again: each answered by its recording.
            try await Task.sleep(for: .milliseconds(600))
            for index in [0, 99, 199] {
                _ = try await session.data(from: try #require(URL(string: base + "/json/items?n=\(index)")))
            }
            let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
            return (command, try await client.requests())
        }
        #expect(try await command.stop() == 0)
        #expect(!command.standardError.contains("reloaded"), "\(command.standardError.prefix(2_000))")
        #expect(FixtureStore(directory: stubs).names().count == 700)
        #expect(served.count == 203)
        #expect(served.suffix(3).map(\.source) == ["fixture", "fixture", "fixture"], "\(served.suffix(3))")
    }

    /// Faults and verification compare paths as fixtures do: decoded, segment by segment.
    @Test func faultsAndVerificationReadThePathAsFixturesDo() async throws {
        guard let curl = ServeSecurityTests.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let folder = try TemporaryFolder.make("serve-paths")
        let api = folder.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
        try ServeControlTests.fixture("GET", "https://shop.example.com/api/cart", body: #"{"items": []}"#)
            .write(to: api.appendingPathComponent("cart.json"))
        try ServeControlTests.fixture("GET", "https://shop.example.com/caf%C3%A9", body: #"{"open": true}"#)
            .write(to: api.appendingPathComponent("cafe.json"))
        let (command, base, _) = try await ServeControlTests.serve(folder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        try await client.injectFault(path: "/api/cart", status: 503)
        let faulted = try await CommandLineRunner.runProcess(
            curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--path-as-is", base + "/api/%63art"])
        #expect(faulted.standardOutput == "503", "\(faulted)")
        let cafe = try await CommandLineRunner.runProcess(
            curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "/caf%C3%A9"])
        #expect(cafe.standardOutput == "200", "\(cafe)")
        try await client.requireRequests(path: "/café", count: 1)
        #expect(try await command.stop() == 0)
    }

    /// Limits with their values: a fixture with an informational status or a latency over 10 minutes is refused at
    /// load (file and pointer), `--latency` over 10 minutes too; faults stop at 1,000 pending; a malformed chunked
    /// body is a 400 that says so; a 64 KB path is not echoed whole.
    @Test func limitsAreNamedWithTheirValues() async throws {
        guard let curl = ServeSecurityTests.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let folder = try TemporaryFolder.make("serve-limits")
        let api = folder.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
        try ServeControlTests.fixture("GET", "https://shop.example.com/switch", status: 101, body: "{}")
            .write(to: api.appendingPathComponent("switch.json"))
        let informational = try await Self.refusedStart(["--stubs", folder.path])
        #expect(informational.status == 2, "\(informational)")
        #expect(
            informational.standardError.contains("switch.json: /response/status: expected a status from 200 to 599"),
            "\(informational)")
        try FileManager.default.removeItem(at: api.appendingPathComponent("switch.json"))

        var slow = try Exchange(
            decoding: ServeControlTests.fixture("GET", "https://shop.example.com/slow", body: "{}"), file: "slow.json")
        slow.metadata.latency = .seconds(3_600)
        try slow.encoded().write(to: api.appendingPathComponent("slow.json"))
        let tooSlow = try await Self.refusedStart(["--stubs", folder.path])
        #expect(tooSlow.status == 2, "\(tooSlow)")
        #expect(tooSlow.standardError.contains("slow.json: /metadata/latency: expected a duration up to 10m"))
        try FileManager.default.removeItem(at: api.appendingPathComponent("slow.json"))

        try ServeControlTests.fixture("GET", "https://shop.example.com/ok", body: "{}")
            .write(to: api.appendingPathComponent("ok.json"))
        let latency = try await Self.refusedStart(["--stubs", folder.path, "--latency", "99999h"])
        #expect(latency.status == 2, "\(latency)")
        #expect(latency.standardError.contains("expected at most 10m"), "\(latency)")

        let (command, base, _) = try await ServeControlTests.serve(folder)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let client = FixtureServerClient(baseURL: try #require(URL(string: base)), session: session)
        for _ in 0..<1_000 { try await client.injectFault(path: "/ok", delay: .milliseconds(1)) }
        await #expect(throws: FixtureServerClientError.self) { try await client.injectFault(path: "/ok", status: 500) }

        // A chunk size that is not hexadecimal, on a raw connection (curl would chunk the body itself).
        let port = try #require(base.split(separator: ":").last)
        let script = """
            import socket
            s = socket.create_connection(("127.0.0.1", \(port)), timeout=10)
            s.sendall(b"POST /ok HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\nnot a chunk\\r\\n0\\r\\n\\r\\n")
            data = b""
            try:
                while True:
                    part = s.recv(65536)
                    if not part:
                        break
                    data += part
            except socket.timeout:
                pass
            print(data.decode("utf-8", "replace"))
            """
        let malformed = try await CommandLineRunner.runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script])
        #expect(malformed.standardOutput.hasPrefix("HTTP/1.1 400"), "\(malformed)")
        #expect(!malformed.standardOutput.contains("larger than"), "\(malformed)")

        let long = "/" + String(repeating: "a", count: 65_000)
        let miss = try await CommandLineRunner.runProcess(curl, ["-s", base + long])
        #expect(
            miss.standardOutput.utf8.count < 20_000,
            "a 64 KB path answered with \(miss.standardOutput.utf8.count) bytes")
        #expect(miss.standardOutput.contains("No fixture matches"), "\(miss.standardOutput.prefix(300))")
        #expect(try await command.stop() == 0)
    }
}
