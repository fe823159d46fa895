import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `apiprobe serve` against a curious web page and a careless bind, driven by curl from another process: a miss
/// never repeats a credential of the request or of the fixture, and the admin API answers only this machine's own
/// callers (issue 35, items 1 and 3).
@Suite(.tags(.commandLine, .outsideTools), .hangGuard, .temporaryFolder)
struct ServeSecurityTests {
    static var curl: URL? {
        ["/usr/bin/curl", "/usr/local/bin/curl"].first(where: FileManager.default.isExecutableFile).map(
            URL.init(fileURLWithPath:))
    }

    /// A folder with a login that needs a bearer token and an exact JSON body holding a password.
    static func makeFolder() throws -> URL {
        let folder = try TemporaryFolder.make("serve-secrets")
        let api = folder.appendingPathComponent("shop")
        try FileManager.default.createDirectory(at: api, withIntermediateDirectories: true)
        var login = try Exchange(
            decoding: Data(
                #"{"request": {"method": "POST", "url": "https://shop.example.com/login", "headers": {"Authorization": "Bearer fixture-t0k-secret", "Content-Type": "application/json"}, "body": {"user": "ada", "password": "fixture-pw-secret"}}, "response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": {"ok": true}}}"#
                    .utf8), file: "login.json")
        login.metadata.match = FixtureMatch(
            headers: HeaderFields(["Authorization": "Bearer fixture-t0k-secret"]), body: .exact)
        try login.encoded().write(to: api.appendingPathComponent("login.json"))
        return folder
    }

    @Test func aMissNeverRepeatsACredential() async throws {
        guard let curl = Self.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let (command, base, _) = try await ServeControlTests.serve(Self.makeFolder())
        let miss = try await CommandLineRunner.runProcess(
            curl,
            [
                "-s", "-w", "\n%{http_code}", "-X", "POST", base + "/login", "-H",
                "Authorization: Bearer WRONG-req-secret",
                "-H", "Content-Type: application/json", "--data",
                #"{"user": "ada", "password": "req-pw-secret", "access_token": "req-at-secret"}"#,
            ])
        #expect(miss.standardOutput.hasSuffix("\n404"), "\(miss)")
        #expect(miss.standardOutput.contains("header Authorization differs"), "\(miss)")
        #expect(try await command.stop(SIGTERM) == 0)
        for secret in ["WRONG-req-secret", "req-pw-secret", "req-at-secret", "fixture-t0k-secret", "fixture-pw-secret"]
        {
            #expect(!miss.standardOutput.contains(secret), "\(secret) in the answer: \(miss.standardOutput)")
            #expect(!command.standardError.contains(secret), "\(secret) on stderr: \(command.standardError)")
        }
    }

    @Test func theAdminAPIAnswersOnlyThisMachinesOwnCallers() async throws {
        guard let curl = Self.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let (command, base, _) = try await ServeControlTests.serve(Self.makeFolder())
        func status(_ arguments: [String]) async throws -> String {
            let result = try await CommandLineRunner.runProcess(
                curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments)
            return result.standardOutput
        }
        // The test's own client: allowed.
        #expect(try await status([base + "/__apiprobe/requests"]) == "200")
        // A DNS-rebinding page: its Host is its own name.
        #expect(try await status(["-H", "Host: evil.example", base + "/__apiprobe/requests"]) == "403")
        // A cross-origin "simple" POST from a page: it carries Origin (and Sec-Fetch-Site).
        #expect(
            try await status([
                "-X", "POST", "-H", "Origin: https://evil.example", "-H", "Content-Type: text/plain", "--data",
                #"{"name": null}"#, base + "/__apiprobe/scenario",
            ]) == "403")
        #expect(
            try await status(["-H", "Sec-Fetch-Site: cross-site", base + "/__apiprobe/requests"]) == "403")
        // A page of this server's own origin may.
        #expect(try await status(["-H", "Origin: \(base)", base + "/__apiprobe/requests"]) == "200")
        // The fixtures themselves answer whatever the Host.
        #expect(try await command.stop(SIGTERM) == 0)
        #expect(
            command.standardError.contains(
                "403 GET /__apiprobe/requests: the admin API answers only requests addressed to this server"))
    }

    /// Listening beyond loopback needs a token, and then every admin request must bring it.
    @Test func aBindBeyondLoopbackNeedsAToken() async throws {
        let folder = try Self.makeFolder()
        // Started as a long-running command, so that a server which does listen is a failure, not a hang.
        for extra in [[], ["--admin-token", "short"]] {
            let refused = try RunningCommand(["serve", "--stubs", folder.path, "--host", "0.0.0.0"] + extra)
            let printed = try await refused.waitForOutput(containing: "Stop with Ctrl-C.", timeout: .seconds(10))
            #expect(!printed.contains("Stop with Ctrl-C."), "it listened on every interface: \(printed)")
            #expect(try await refused.stop() == 2, "\(refused.standardError)")
            #expect(
                refused.standardError.contains(
                    extra.isEmpty ? "--host 0.0.0.0: the admin API" : "--admin-token: expected at least 16"),
                "\(refused.standardError)")
        }

        guard let curl = Self.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        let token = "a-token-of-32-characters-exactly"
        let command = try RunningCommand(["serve", "--stubs", folder.path, "--admin-token", token])
        let text = try await command.waitForOutput(containing: "Stop with Ctrl-C.")
        let match = try #require(text.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let base = "http://127.0.0.1:\(match.1)"
        func status(_ arguments: [String]) async throws -> String {
            try await CommandLineRunner.runProcess(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments)
                .standardOutput
        }
        #expect(try await status([base + "/__apiprobe/requests"]) == "401")
        #expect(try await status(["-H", "Authorization: Bearer wrong", base + "/__apiprobe/requests"]) == "401")
        #expect(try await status(["-H", "Authorization: Bearer \(token)", base + "/__apiprobe/requests"]) == "200")
        #expect(try await command.stop(SIGTERM) == 0)
        #expect(!command.standardError.contains(token), "\(command.standardError)")
    }
}
