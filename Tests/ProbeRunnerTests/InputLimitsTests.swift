import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeTestSupport
import Testing

@testable import ProbeClient
@testable import ProbeRunner

/// Inputs that used to crash, hang or eat memory: numeric config ranges, history lines, response bodies
/// without end, servers that never answer, statuses no reader accepts.
@Suite("Input limits", .hangGuard, .temporaryFolder)
struct InputLimitsTests {
    func parseError(_ text: String) -> String? {
        do {
            _ = try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: Config ranges

    @Test(arguments: ["1e-10", "0", "-1", "0.0001", "1e6", "nan", ".inf"])
    func aRateLimitOutsideItsRangeIsAConfigErrorNotATrap(_ value: String) {
        let text = "api: x\nrateLimit: \(value)\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\"}]\n"
        #expect(
            parseError(text)
                == "apiprobe.yml:2:12: rateLimit: expected requests per second per host, a number from 0.001 to "
                + "100000, found \"\(value)\"")
    }

    @Test func theSmallestAndLargestRateLimitsAreAccepted() throws {
        for (value, rate) in [("0.001", 0.001), ("100000", 100_000.0)] {
            let text = "api: x\nrateLimit: \(value)\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\"}]\n"
            let config = try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
            #expect(config.requestsPerSecondPerHost == rate)
            _ = RateLimiter(requestsPerSecond: rate)
        }
    }

    @Test func maxBodySizeIsReadFromDefaultsAndEachEndpoint() throws {
        let text = """
            api: x
            baseURL: http://127.0.0.1:1
            defaults: {maxBodySize: 512KiB}
            endpoints:
              - {name: a, path: /a}
              - {name: b, path: /b, maxBodySize: 2MiB}
              - {name: c, path: /c, maxBodySize: 1000}
              - {name: d, path: /d, maxBodySize: 3MB}
            """
        let config = try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
        #expect(config.endpoints.map(\.maxBodySize) == [524_288, 2_097_152, 1_000, 3_000_000])
        let none = try ProbeConfig.parse(
            Data("api: x\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\"}]\n".utf8), environment: [:],
            file: "apiprobe.yml")
        #expect(none.endpoints[0].maxBodySize == nil)
    }

    @Test(arguments: ["0", "8XB", "5GiB", "-1KiB", "1e3", "lots"])
    func aBadMaxBodySizeIsAConfigError(_ value: String) {
        let text = "api: x\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\", maxBodySize: \(value)}]\n"
        #expect(
            parseError(text)
                == "apiprobe.yml:2:65: endpoints.a.maxBodySize: expected a size like 512KiB, 8MiB or 1GiB "
                + "(from 1B to 4GiB), found \"\(value)\"")
    }

    @Test func aControlCharacterOrABrokenByteInTheConfigNamesItsLineAndColumn() {
        #expect(
            parseError("api: x\nbaseURL: http://127.0.0.1:1\u{1}\nendpoints: []\n")
                == "apiprobe.yml:2:28: (syntax): expected valid YAML or JSON, found control characters are not allowed "
                + "(U+0001)")
        do {
            _ = try ProbeConfig.parse(
                Data([0x61, 0x3A, 0x20, 0x78, 0x0A, 0x62, 0xFF]), environment: [:], file: "c.yml")
            Issue.record("bytes that are not UTF-8 were read")
        } catch {
            #expect(error.description == "c.yml:2:2: (file): expected UTF-8 text, found byte 0xFF")
        }
    }

    // MARK: History

    func historyFolder() throws -> URL {
        try TemporaryFolder.make("history-limits")
    }

    @Test func aTimestampWithAnyNumberOfFractionDigitsIsReadNotATrap() throws {
        let folder = try historyFolder()
        let url = folder.appendingPathComponent("history.jsonl")
        let digits = String(repeating: "9", count: 19)
        let lines = [
            #"{"endpoints":{},"passed":true,"startedAt":"2026-11-22T18:00:00.\#(digits)Z","version":1}"#,
            #"{"endpoints":{},"passed":true,"startedAt":"2026-11-22T18:00:00.\#(digits)\#(digits)Z","version":1}"#,
            #"{"endpoints":{},"passed":true,"startedAt":"2026-11-22T18:00:00.25x1Z","version":1}"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        let contents = try HistoryFile(url: url).read(last: 10)
        #expect(contents.records.count == 2)
        #expect(contents.damagedLines == 1)
        let expected = SampleRuns.startedAt.timeIntervalSinceReferenceDate + 1
        #expect(contents.records.allSatisfy { abs($0.startedAt.timeIntervalSinceReferenceDate - expected) < 1e-3 })
    }

    /// A 16 MiB last line without a line feed, read 1 KiB at a time: the old reader copied everything it had
    /// gathered on every chunk (quadratic, hours here); now the line is skipped as too long once it passes
    /// 1 MiB and only scanned after that.
    @Test func aHugeUnterminatedLastLineIsSkippedAndCountedInLinearTime() throws {
        let folder = try historyFolder()
        let url = folder.appendingPathComponent("history.jsonl")
        let history = HistoryFile(url: url)
        try history.append(SampleRuns.mixed)
        try history.append(SampleRuns.green)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        let block = Data(repeating: UInt8(ascii: "x"), count: 1 << 20)
        for _ in 0..<16 { try handle.write(contentsOf: block) }
        try handle.close()

        let contents = try history.read(last: 10, chunkSize: 1 << 10)
        #expect(contents.records == [HistoryRecord(SampleRuns.mixed), HistoryRecord(SampleRuns.green)])
        #expect(contents.damagedLines == 1)
    }

    @Test func aWholeRecordLongerThanTheLineLimitIsDamaged() throws {
        let folder = try historyFolder()
        let url = folder.appendingPathComponent("history.jsonl")
        let padding = String(repeating: " ", count: HistoryFile.maximumLineLength)
        let long = #"{"endpoints":{},"passed":true,\#(padding)"startedAt":"2026-11-22T18:00:00Z","version":1}"#
        let short = #"{"endpoints":{},"passed":false,"startedAt":"2026-11-22T18:01:00Z","version":1}"#
        try Data((long + "\n" + short + "\n" + long + "\n").utf8).write(to: url)
        for chunkSize in [1 << 10, 1 << 20, 1 << 22] {
            let contents = try HistoryFile(url: url).read(last: 10, chunkSize: chunkSize)
            #expect(contents.records.map(\.passed) == [false], "chunk \(chunkSize)")
            #expect(contents.damagedLines == 2, "chunk \(chunkSize)")
        }
    }

    // MARK: Response bodies

    func endlessServer(announcing length: Int? = nil) throws -> RawHTTPServer {
        try RawHTTPServer { _ in .endless(announcedLength: length) }
    }

    func run(_ server: RawHTTPServer, maxBodySize: Int?, timeout: Duration = .seconds(20)) async -> EndpointResult? {
        let endpoint = EndpointConfig(name: "big", path: "/big", timeout: timeout, maxBodySize: maxBodySize)
        let config = ProbeConfig(api: "x", baseURL: server.baseURL, endpoints: [endpoint], deadline: .seconds(30))
        let result = await ProbeRunner(config: config, directory: FileManager.default.temporaryDirectory).run()
        return result.endpoints.first
    }

    @Test func anEndlessBodyStopsBeingReadAtTheLimitAndFailsAsBodyTooLarge() async throws {
        let server = try endlessServer()
        defer { server.stop() }
        let endpoint = try #require(await run(server, maxBodySize: 256 << 10))
        let reachable = try #require(endpoint.checks.first)
        #expect(reachable.category == .bodyTooLarge)
        #expect(
            reachable.message
                == "1 of 1 samples failed: the body is larger than maxBodySize 256KiB; reading stopped there "
                + "(\(server.baseURL.absoluteString)/big)")
        #expect(endpoint.samples.first?.status == nil)
        try await expectTransferCut(server)
    }

    /// The client closed the connection: the endless body stopped being sent (the old loader read it until
    /// the timeout, the old recorder forever).
    func expectTransferCut(_ server: RawHTTPServer) async throws {
        while server.endlessResponsesCut == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.endlessResponsesCut == 1)
    }

    @Test func anAnnouncedLengthAboveTheLimitFailsBeforeTheBodyIsRead() async throws {
        let server = try endlessServer(announcing: 10 << 30)
        defer { server.stop() }
        let endpoint = try #require(await run(server, maxBodySize: nil))
        #expect(endpoint.checks.first?.category == .bodyTooLarge)
        #expect(endpoint.checks.first?.message?.contains("larger than maxBodySize 8MiB;") == true)
    }

    @Test func aBodyWithinTheLimitIsRead() async throws {
        let server = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "12345678") }
        defer { server.stop() }
        let endpoint = try #require(await run(server, maxBodySize: 8))
        #expect(endpoint.checks.first?.passed == true)
        #expect(endpoint.samples.first?.bytes == 8)
    }

    // MARK: Recording

    func record(
        // Minutes, not seconds, where a test does not judge them: on two cores shared by some 750 tests, a recording
        // can wait half a minute for Swift's cooperative pool, and then the deadline, not the server, would decide.
        _ server: RawHTTPServer, timeout: Duration = .seconds(300), deadline: Duration = .seconds(600),
        maxBodySize: Int? = nil
    ) async throws -> (EndpointRecording, [String]) {
        let folder = try TemporaryFolder.make("record-limits")
        let endpoint = EndpointConfig(name: "slow", path: "/slow", timeout: timeout, maxBodySize: maxBodySize)
        let config = ProbeConfig(api: "x", baseURL: server.baseURL, endpoints: [endpoint], deadline: deadline)
        let result = try await Recorder(config: config, directory: folder).record(snapshots: true)
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return (try #require(result.endpoints.first), files)
    }

    @Test func recordCutsASilentServerAtTheEndpointsTimeout() async throws {
        let server = try RawHTTPServer { _ in .silent }
        defer { server.stop() }
        let (recording, files) = try await record(server, timeout: .milliseconds(300))
        #expect(recording.outcome == .failed)
        #expect(
            recording.message
                == "slow: \(server.baseURL.absoluteString)/slow: no complete response within 300ms; nothing was written"
        )
        #expect(files.isEmpty)
    }

    /// 2,000 bytes 50 ms apart would take 100 s; the old recorder had no whole-request timeout (only an idle
    /// one, which a trickle never trips) and held on past the test's time limit.
    @Test func recordCutsATricklingBodyAtTheEndpointsTimeout() async throws {
        let server = try RawHTTPServer { _ in .trickle(bytes: 2_000, interval: .milliseconds(50)) }
        defer { server.stop() }
        let (recording, files) = try await record(server, timeout: .milliseconds(500))
        #expect(recording.message?.hasSuffix("no complete response within 500ms; nothing was written") == true)
        #expect(files.isEmpty)
    }

    @Test func recordStopsAtTheConfigsDeadline() async throws {
        let server = try RawHTTPServer { _ in .silent }
        defer { server.stop() }
        let (recording, _) = try await record(server, timeout: .seconds(300), deadline: .milliseconds(400))
        #expect(
            recording.message
                == "slow: \(server.baseURL.absoluteString)/slow: cut off by the deadline (400ms); nothing was written")
    }

    @Test func recordStopsReadingAtTheBodyLimit() async throws {
        let server = try endlessServer()
        defer { server.stop() }
        let (recording, files) = try await record(server, maxBodySize: 1 << 20)
        #expect(
            recording.message
                == "slow: \(server.baseURL.absoluteString)/slow: the body is larger than maxBodySize 1MiB; "
                + "reading stopped there and nothing was written")
        #expect(files.isEmpty)
        try await expectTransferCut(server)
    }

    /// (curl itself refuses a status that is not three digits: that is a transport error, also not written.)
    @Test(arguments: [600, 999])
    func recordRefusesAStatusNoReaderAccepts(_ status: Int) async throws {
        let server = try RawHTTPServer { _ in .respond(status: status, headers: [:], body: "{}") }
        defer { server.stop() }
        let (recording, files) = try await record(server)
        #expect(recording.outcome == .failed)
        #expect(
            recording.message
                == "slow: \(server.baseURL.absoluteString)/slow: expected an HTTP status from 100 to 599, "
                + "found \(status); nothing was written")
        #expect(files.isEmpty)
    }
}
