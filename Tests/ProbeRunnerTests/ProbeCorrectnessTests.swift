import APIProbeTestSupport
import Foundation
import HTTPFixtures
import NIOCore
import Testing

@testable import ProbeClient
@testable import ProbeReports
@testable import ProbeRunner

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Probe results that were wrong: quoted regular expressions, body conditions that could never hold, TLS
/// failures filed as connection failures, the step summary growing a report a round.
@Suite("Probe correctness", .temporaryFolder)
struct ProbeCorrectnessTests {
    func condition(_ text: String) throws -> BodyCondition {
        try BodyConditionParser.parse(text)
    }

    func evaluate(_ conditions: [String], body: String) throws -> [CheckResult] {
        let endpoint = EndpointConfig(
            name: "echo", path: "/echo", expectations: Expectations(body: try conditions.map(condition)))
        let sample = Sample(status: 200, latency: .milliseconds(5), bytes: body.utf8.count)
        let response = ReceivedResponse(status: 200, headers: [:], body: Data(body.utf8))
        let evaluator = ExpectationEvaluator(endpoint: endpoint, directory: FileManager.default.temporaryDirectory)
        return evaluator.checks(samples: [sample], responses: [response]).checks.filter {
            conditions.contains($0.name)
        }
    }

    // MARK: Quoted regular expressions

    @Test func quotesAroundARegularExpressionMeanWhatTheyMeanForEquals() throws {
        let body = #"{"headers": {"Content-Type": "application/json"}}"#
        let conditions = [
            #"/headers/Content-Type matches "application/json""#,
            #"/headers/Content-Type matches "^application/\\w+$""#,
            #"/headers/Content-Type matches ^application/json$"#,
            #"/headers/Content-Type == "application/json""#,
        ]
        let checks = try evaluate(conditions, body: body)
        #expect(checks.map(\.passed) == [true, true, true, true], "\(checks)")
        #expect(try condition(conditions[0]).operand == .string("application/json"))
        #expect(try condition(conditions[1]).operand == .string(#"^application/\w+$"#))
    }

    @Test func aQuotedRegularExpressionThatFailsNamesThePatternWithoutItsQuotes() throws {
        let checks = try evaluate([#"/type matches "^text/""#], body: #"{"type": "application/json"}"#)
        #expect(checks.first?.message == #"/type: expected a match for ^text/, found "application/json" (sample 1)"#)
    }

    // MARK: Conditions that could never hold are config errors

    func configError(_ condition: String) -> String? {
        let text = """
            api: x
            baseURL: http://127.0.0.1:1
            endpoints:
              - name: a
                path: /a
                expect:
                  body:
                    - '\(condition)'
            """
        do {
            _ = try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test(arguments: ["/a~2b exists", "/a~ exists", "/a/~x/b == 1", "/items/*/id~ exists"])
    func anInvalidPointerEscapeIsAConfigError(_ text: String) {
        #expect(
            configError(text)
                == "apiprobe.yml:8:11: endpoints.a.expect.body[0]: expected a JSON Pointer whose ~ escapes are ~0 "
                + "(for ~) or ~1 (for /), found \"\(text)\"")
    }

    @Test func validPointerEscapesAreRead() throws {
        let checks = try evaluate(["/a~1b/c~0d == 1"], body: #"{"a/b": {"c~d": 1}}"#)
        #expect(checks.map(\.passed) == [true])
    }

    @Test(arguments: [
        (#"/a == {"x": "#, "a JSON value at column 6 of the operand, found end of file"),
        (#"/a == [1, 2"#, "',' or ']' at column 6 of the operand, found end of file"),
        (#"/a != "unterminated"#, #"'"' to close the string opened at column 1 of the operand, found end of file"#),
        (#"/a matches "(""#, "nothing"),
    ])
    func aMalformedJSONOperandIsAConfigError(_ text: String, _ problem: String) {
        let op = text.split(separator: " ")[1]
        let expected =
            problem == "nothing"
            ? "a valid regular expression after matches" : "JSON after \(op) (\(problem))"
        #expect(
            configError(text)
                == "apiprobe.yml:8:11: endpoints.a.expect.body[0]: expected \(expected), found \"\(text)\"")
    }

    @Test func aBareWordOperandIsStillAString() throws {
        #expect(try condition("/publisher == Closet").operand == .string("Closet"))
        #expect(try condition("/id == 12").operand == .number("12"))
    }

    // MARK: TLS

    static let openssl = "/usr/bin/openssl"

    /// A real self-signed certificate (made by `openssl req -x509`), served by `openssl s_server` on loopback.
    /// Without openssl the test is a known issue outside CI and a failure under it (the one rule for a missing
    /// tool), never silently disabled.
    @Test(.tags(.outsideTools), .hangGuard)
    func aSelfSignedCertificateFailsAsTLS() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.openssl) else {
            TestEnvironment.recordMissing("\(Self.openssl) is not installed (apt-get install -y openssl; .ci/run does)")
            return
        }
        let folder = try TemporaryFolder.make("tls")
        let made = try await CommandLineRunner.runProcess(
            URL(fileURLWithPath: Self.openssl),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "1",
                "-subj", "/CN=127.0.0.1",
            ], in: folder)
        try #require(made.status == 0, "\(made)")

        let server = Process()
        server.executableURL = URL(fileURLWithPath: Self.openssl)
        server.arguments = ["s_server", "-accept", "127.0.0.1:0", "-cert", "cert.pem", "-key", "key.pem", "-www"]
        server.currentDirectoryURL = folder
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        server.standardInput = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                continuation.finish()
            } else {
                continuation.yield(String(decoding: data, as: UTF8.self))
            }
        }
        try server.run()
        ChildProcesses.started(server)
        defer {
            output.fileHandleForReading.readabilityHandler = nil
            // Never left behind when the test stops early; s_server does not end on SIGTERM.
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        }
        // `ACCEPT 127.0.0.1:<port>` once it listens.
        var port: Int?
        var seen = ""
        for await text in lines {
            seen += text
            if let range = seen.range(of: "ACCEPT 127.0.0.1:") {
                port = Int(seen[range.upperBound...].prefix { $0.isNumber })
                if port != nil { break }
            }
        }
        let url = "https://127.0.0.1:\(try #require(port, "openssl said: \(seen)"))"
        let endpoint = EndpointConfig(name: "secure", path: "/", timeout: .seconds(10))
        let config = ProbeConfig(api: "x", baseURL: URL(string: url), endpoints: [endpoint])
        let result = await ProbeRunner(config: config, directory: folder).run()
        kill(server.processIdentifier, SIGKILL)
        _ = await CommandLineRunner.waitForExit(server)

        let reachable = try #require(result.endpoints.first?.checks.first)
        #expect(reachable.category == .tls)
        #expect(reachable.message?.hasPrefix("1 of 1 samples failed: TLS failed (\(url)/): ") == true, "\(reachable)")
    }

    // MARK: Step summary

    @Test func theStepSummaryKeepsEarlierStepsAndOnlyTheLastSectionOfThisProcess() throws {
        let folder = try TemporaryFolder.make("summary")
        let file = folder.appendingPathComponent("summary.md")
        try Data("earlier step".utf8).write(to: file)
        var summary = StepSummary(environment: ["GITHUB_STEP_SUMMARY": file.path])
        #expect(try summary.write("## round 1\nlong text of the first round"))
        #expect(try summary.write("## round 2"))
        #expect(try summary.write("## round 3\n"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "earlier step\n## round 3\n")
        var outside = StepSummary(environment: [:])
        #expect(try outside.write("## nothing") == false)
    }
}
