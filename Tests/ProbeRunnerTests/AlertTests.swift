import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeRunner
import ProbeTestSupport
import Testing

/// Alerts on state transitions only, against real receivers on loopback.
@Suite(.hangGuard, .temporaryFolder)
struct AlertTests {
    @Test(
        arguments: [
            // outcomes (oldest first, the last is this round), downAfter, successThreshold, change
            ([false], 1, 1, AlertEvent.State?.some(.down)),
            ([true, false], 2, 1, nil),
            ([true, false, false], 2, 1, .down),
            ([false, false, false], 2, 1, nil),  // still down: no second alert for the same outage
            ([false, false, true], 2, 1, .recovered),
            ([false, false, true], 2, 2, nil),
            ([false, false, true, true], 2, 2, .recovered),
            ([false, false, true, true, true], 2, 2, nil),
            ([true, false, true], 2, 1, nil),  // one failure never went down: nothing recovered
        ] as [([Bool], Int, Int, AlertEvent.State?)])
    func transitionsOnly(outcomes: [Bool], downAfter: Int, successThreshold: Int, change: AlertEvent.State?) {
        #expect(
            AlertTransitions.change(outcomes: outcomes, downAfter: downAfter, successThreshold: successThreshold)
                == change)
    }

    func config(_ text: String) throws -> ProbeConfig {
        try ProbeConfig.parse(Data(text.utf8), environment: ["TOKEN": "tok-planted-1234"], file: "apiprobe.yml")
    }

    @Test func aWebhookAndSlackHearOfTheOutageOnceAndOfTheRecovery() async throws {
        let healthy = Locked(false)
        let api = try RawHTTPServer { _ in
            healthy.withLock { $0 }
                ? .respond(status: 200, headers: [:], body: "{}") : .respond(status: 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "ok") }
        defer { receiver.stop() }
        let history = try TemporaryFolder.url.appendingPathComponent("alerts.jsonl")
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 2
            successThreshold: 1
            alerts:
              - webhook: \(receiver.baseURL.absoluteString)/hook
              - slack: \(receiver.baseURL.absoluteString)/slack
            endpoints:
              - {name: cart, path: /cart, headers: {Authorization: "Bearer ${TOKEN}"}, expect: {status: 200}}
            """)
        // Each round is a new process (cron): the state comes from the history file.
        func round() async throws -> [String] {
            var session = ProbeSession(
                runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory),
                history: HistoryFile(url: history))
            return try await session.round().warnings
        }
        _ = try await round()  // 1st failure: not down yet
        #expect(receiver.requests.isEmpty)
        _ = try await round()  // 2nd failure: down
        _ = try await round()  // 3rd failure: still down, no second alert
        #expect(receiver.requests.map(\.path) == ["/hook", "/slack"])
        healthy.withLock { $0 = true }
        _ = try await round()  // recovered
        _ = try await round()  // still up: nothing
        let requests = receiver.requests
        #expect(requests.map(\.path) == ["/hook", "/slack", "/hook", "/slack"])
        #expect(requests.allSatisfy { $0.method == "POST" })

        let down = try JSONValue(parsing: Data(requests[0].body.utf8))
        #expect(down["state"] == .string("down"))
        #expect(down["endpoint"] == .string("cart"))
        #expect(down["api"] == .string("shop"))
        #expect(down["consecutive"] == .number("2"))
        #expect(down["message"] == .string("status 200: got 500 × 1 of 1 samples"))
        let slack = try JSONValue(parsing: Data(requests[1].body.utf8))
        guard case .string(let text)? = slack["text"] else { throw Failure("no text in \(requests[1].body)") }
        #expect(text.hasPrefix(":red_circle: shop cart is down (2 rounds in a row without an answer): "))
        let recovered = try JSONValue(parsing: Data(requests[2].body.utf8))
        #expect(recovered["state"] == .string("recovered"))
        #expect(!requests.contains { $0.body.contains("tok-planted") })
    }

    /// Rounds started by cron, each a new process: the alert state is the whole history replayed, not its
    /// last few rounds, so a pass or two inside an outage neither repeats the down alert nor loses a recovery.
    @Test(arguments: [
        // downAfter, successThreshold, outcomes (P passed, F failed), alerts sent
        (2, 3, "FFPFPFF", ["down"]),
        (2, 2, "FFPFPP", ["down", "recovered"]),
        (3, 2, "FFFPFFF", ["down"]),
    ])
    func cronRoundsAlertOncePerOutage(downAfter: Int, successThreshold: Int, outcomes: String, alerts: [String])
        async throws
    {
        let healthy = Locked(false)
        let api = try RawHTTPServer { _ in
            .respond(status: healthy.withLock { $0 } ? 200 : 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "ok") }
        defer { receiver.stop() }
        let history = try TemporaryFolder.url.appendingPathComponent("cron.jsonl")
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: \(downAfter)
            successThreshold: \(successThreshold)
            alerts:
              - webhook: \(receiver.baseURL.absoluteString)/hook
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """)
        for outcome in outcomes {
            healthy.withLock { $0 = outcome == "P" }
            var session = ProbeSession(
                runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory),
                history: HistoryFile(url: history))
            _ = try await session.round()
        }
        let sent = try receiver.requests.map { request -> String in
            guard case .string(let state)? = try JSONValue(parsing: Data(request.body.utf8))["state"] else {
                return "?"
            }
            return state
        }
        #expect(sent == alerts, "\(outcomes) with downAfter \(downAfter), successThreshold \(successThreshold)")
    }

    /// A receiver that is down when the endpoint goes down (503, then connection refused would do the same)
    /// hears of the outage when it is back, before it hears of the recovery: the alerts wait in the outbox beside
    /// the history, across rounds that are separate sessions (cron), and go out in order.
    @Test(arguments: [true, false])
    func anAlertWaitsForItsReceiverAndArrivesInOrder(cron: Bool) async throws {
        let healthy = Locked(false)
        let receiverUp = Locked(false)
        let api = try RawHTTPServer { _ in
            .respond(status: healthy.withLock { $0 } ? 200 : 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in
            receiverUp.withLock { $0 }
                ? .respond(status: 200, headers: [:], body: "ok") : .respond(status: 503, headers: [:], body: "busy")
        }
        defer { receiver.stop() }
        let folder = try TemporaryFolder.url
        let history = folder.appendingPathComponent("history.jsonl")
        let outbox = folder.appendingPathComponent("history.outbox.json")
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 2
            successThreshold: 1
            alerts:
              - webhook: \(receiver.baseURL.absoluteString)/hook?token=${TOKEN}
            endpoints:
              - {name: cart, path: /cart, headers: {Authorization: "Bearer ${TOKEN}"}, expect: {status: 200}}
            """)
        // cron: each round a new session (a new process) with the history; --every: one session without one.
        var every = ProbeSession(runner: ProbeRunner(config: probe, directory: folder))
        func round() async throws -> [String] {
            if cron {
                var session = ProbeSession(
                    runner: ProbeRunner(config: probe, directory: folder), history: HistoryFile(url: history))
                return try await session.round().warnings
            }
            return try await every.round().warnings
        }
        _ = try await round()  // 1st failure
        let down = try await round()  // down: the receiver answers 503
        #expect(
            down.first
                == "could not send the down alert of cart to \(receiver.baseURL.absoluteString)/hook?token=REDACTED: the receiver answered 503; 1 alert \(cron ? "kept in \(outbox.relativePath)" : "kept") and sent again next round",
            "\(down)")
        #expect(FileManager.default.fileExists(atPath: outbox.path) == cron)
        if cron {
            let kept = try String(contentsOf: outbox, encoding: .utf8)
            #expect(kept.contains(#""state":"down""#) && !kept.contains("tok-planted"), "\(kept)")
        }
        _ = try await round()  // still down, the receiver too: the down alert waits
        healthy.withLock { $0 = true }
        let recovered = try await round()  // recovered: queued behind the down alert, never before it
        #expect(recovered.first?.contains("2 alerts") == true, "\(recovered)")
        #expect(receiver.posted("state").allSatisfy { $0 == "down" }, "the recovery never goes before the down alert")
        receiverUp.withLock { $0 = true }
        let delivered = try await round()  // the receiver is back: both, in order
        #expect(delivered.isEmpty, "\(delivered)")
        let sent = receiver.requests.filter { $0.method == "POST" }
        let accepted = Array(receiver.posted("state").suffix(2))
        #expect(accepted == ["down", "recovered"])
        // With a history, the file stays: no alert waits, and the endpoint's state is settled (none kept).
        if cron {
            #expect(
                try String(contentsOf: outbox, encoding: .utf8)
                    == #"{"alerts":[],"endpoints":{},"version":2}"# + "\n")
        } else {
            #expect(!FileManager.default.fileExists(atPath: outbox.path))
        }
        _ = try await round()  // nothing more to send
        #expect(receiver.requests.filter { $0.method == "POST" }.count == sent.count)
        #expect(!sent.contains { $0.body.contains("tok-planted") })
    }

    /// Alerts added to a config whose history shows an outage (or an outbox file of an earlier version, which kept
    /// no states): the history's rounds stand in for the states once, so the recovery is announced and no second
    /// "down" is; from then on the states live in the outbox file.
    @Test func withoutKeptStatesTheHistoryStandsInOnce() async throws {
        let healthy = Locked(false)
        let api = try RawHTTPServer { _ in
            .respond(status: healthy.withLock { $0 } ? 200 : 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "ok") }
        defer { receiver.stop() }
        let folder = try TemporaryFolder.url
        let history = folder.appendingPathComponent("history.jsonl")
        let outbox = folder.appendingPathComponent("history.outbox.json")
        func round(alerts: Bool) async throws {
            let probe = try config(
                """
                api: shop
                baseURL: \(api.baseURL.absoluteString)
                downAfter: 2
                \(alerts ? "alerts: [{webhook: \"\(receiver.baseURL.absoluteString)/hook\"}]" : "")
                endpoints:
                  - {name: cart, path: /cart, expect: {status: 200}}
                """)
            var session = ProbeSession(
                runner: ProbeRunner(config: probe, directory: folder), history: HistoryFile(url: history))
            _ = try await session.round()
        }
        try await round(alerts: false)
        try await round(alerts: false)  // down, by the history: no alert configured
        try Data(#"{"alerts": [], "version": 1}"#.utf8).write(to: outbox)  // an earlier version's empty outbox
        try await round(alerts: true)  // still down: no "down" for an outage already under way
        #expect(receiver.posted("state").isEmpty)
        let kept = try JSONValue(parsing: Data(contentsOf: outbox))
        #expect(kept["endpoints"]?["cart"]?["down"] == .bool(true), "\(kept)")
        healthy.withLock { $0 = true }
        try await round(alerts: true)
        try await round(alerts: true)
        #expect(receiver.posted("state") == ["recovered"])
    }

    /// Down is no usable answer (or a refused status), not any failed check: an endpoint that answers 200 with a
    /// body that fails its condition is degraded: `apiprobe_up` stays 1 (`apiprobe_endpoint_passed` is 0) and the
    /// receiver hears "degraded", not "down". A 500 is down; the 200 after it recovers it, naming the checks that
    /// still fail; the checks holding again is "restored". Each change once, in that order.
    @Test func aFailedCheckOfAnEndpointThatAnswersIsDegradedNotDown() async throws {
        let status = Locked(200)
        let body = Locked("{}")
        let api = try RawHTTPServer { _ in
            .respond(status: status.withLock { $0 }, headers: [:], body: body.withLock { $0 })
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "ok") }
        defer { receiver.stop() }
        let folder = try TemporaryFolder.url
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 1
            alerts: [{webhook: "\(receiver.baseURL.absoluteString)/hook"}, {slack: "\(receiver.baseURL.absoluteString)/slack"}]
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200, body: [/ok == true]}}
            """)
        func round() async throws -> ProbeRunResult {
            var session = ProbeSession(
                runner: ProbeRunner(config: probe, directory: folder),
                history: HistoryFile(url: folder.appendingPathComponent("history.jsonl")))
            return try await session.round().result
        }
        func webhooks() -> [String] {
            receiver.requests.filter { $0.path == "/hook" }.map { request in
                guard case .string(let state)? = (try? JSONValue(parsing: Data(request.body.utf8)))?["state"] else {
                    return "?"
                }
                return state
            }
        }
        let degraded = try await round()
        let text = PrometheusReport.render(degraded)
        #expect(
            text.contains(#"apiprobe_up{endpoint="cart"} 1"#)
                && text.contains(#"apiprobe_endpoint_passed{endpoint="cart"} 0"#))
        _ = try await round()  // still degraded: nothing more
        #expect(webhooks() == ["degraded"])
        status.withLock { $0 = 500 }
        let down = try await round()
        #expect(PrometheusReport.render(down).contains(#"apiprobe_up{endpoint="cart"} 0"#))
        status.withLock { $0 = 200 }
        _ = try await round()
        body.withLock { $0 = #"{"ok": true}"# }
        _ = try await round()
        _ = try await round()
        #expect(webhooks() == ["degraded", "down", "recovered", "restored"])
        let hooks = receiver.requests.filter { $0.path == "/hook" }
        let recovered = try JSONValue(parsing: Data(hooks[2].body.utf8))
        #expect(
            recovered["message"]
                == .string("answers again; failing: /ok == true: /ok: expected true, found nothing (sample 1)"),
            "\(recovered)")
        let slack = receiver.requests.filter { $0.path == "/slack" }.map(\.body)
        #expect(slack.count == 4)
        #expect(
            slack.first?.contains(":large_yellow_circle: shop cart is degraded (1 rounds in a row with a failed check)")
                == true, "\(slack)")
    }

    /// Rounds of the history that were only rate limited count neither way when they stand in for the alert
    /// states: no "restored" for checks that never failed.
    @Test func rateLimitedRoundsOfTheHistoryCountNeitherWay() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "ok") }
        defer { receiver.stop() }
        let folder = try TemporaryFolder.url
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for minute in 0..<3 {
            try history.append(
                HistoryRecord(
                    startedAt: SampleRuns.startedAt.addingTimeInterval(Double(minute) * 60), passed: false,
                    endpoints: ["cart": .init(passed: false, p95: 1, failures: ["rate-limited"])]))
        }
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            alerts: [{webhook: "\(receiver.baseURL.absoluteString)/hook"}]
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """)
        var session = ProbeSession(runner: ProbeRunner(config: probe, directory: folder), history: history)
        _ = try await session.round()
        #expect(receiver.posted("state").isEmpty)
    }

    /// An outbox that is not one apiprobe wrote (a hand edit, another version) is a warning naming the file, the
    /// JSON Pointer of the bad field, what was expected and what was found; the round goes on.
    @Test func aDamagedOutboxIsAWarningAtItsPlace() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let folder = try TemporaryFolder.url
        let history = folder.appendingPathComponent("history.jsonl")
        let outbox = folder.appendingPathComponent("history.outbox.json")
        let cases: [(String, String)] = [
            (
                #"{"alerts": [{"target": 0, "receiver": "r", "api": "shop", "endpoint": "cart", "state": "sideways", "at": "2026-11-26T10:00:00Z", "message": "m", "url": "u", "consecutive": 2, "attempts": 1}]}"#,
                #"/alerts/0/state: expected down, recovered, degraded or restored, found "sideways""#
            ),
            (#"{"alerts": [{"target": "zero"}]}"#, #"/alerts/0/target: expected an integer, found string "zero""#),
            (#"{"alerts": {}}"#, "/alerts: expected an array of alerts, found object"),
            (#"{"alerts": [1,]}"#, ":1:15: expected a JSON value, found ']'"),
            (
                #"{"alerts": [], "endpoints": {"cart": {"down": "yes", "failuresInARow": 1, "passesInARow": 0}}}"#,
                #"/endpoints/cart/down: expected true or false, found string "yes""#
            ),
            (
                #"{"alerts": [], "endpoints": {"cart": {"down": true, "failuresInARow": -2, "passesInARow": 0}}}"#,
                "/endpoints/cart/failuresInARow: expected a count of 0 or more, found -2"
            ),
            (
                #"{"alerts": [], "endpoints": []}"#,
                "/endpoints: expected an object of endpoint states, found array of 0"
            ),
        ]
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            alerts:
              - webhook: http://127.0.0.1:9/hook
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """)
        for (text, place) in cases {
            try Data(text.utf8).write(to: outbox)
            var session = ProbeSession(
                runner: ProbeRunner(config: probe, directory: folder), history: HistoryFile(url: history))
            let warnings = try await session.round().warnings
            #expect(
                warnings.contains {
                    $0.hasPrefix(outbox.relativePath) && $0.contains(place)
                        && $0.hasSuffix("; its undelivered alerts and alert states are lost")
                },
                "\(warnings)")
        }
    }

    @Test func aReceiverThatIsDownIsAWarningWithinTheBudget() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 500, headers: [:], body: "{}") }
        defer { api.stop() }
        let probe = try config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            deadline: 3s
            alerts:
              - webhook: http://127.0.0.1:9/hook
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """)
        var session = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory))
        let round = try await session.round()
        #expect(round.warnings.count == 1)
        #expect(
            round.warnings.first?.hasPrefix("could not send the down alert of cart to http://127.0.0.1:9/hook: ")
                == true)
    }

    /// The sender gives up at its deadline: past it, nothing is sent and the warning says so.
    @Test func nothingIsSentPastTheDeadline() async {
        let sender = AlertSender(
            targets: [AlertTarget(kind: .webhook, url: URL(string: "http://127.0.0.1:9/hook")!)], redactor: Redactor())
        let event = AlertEvent(
            api: "shop", endpoint: "cart", state: .down, at: Date(), message: "m", url: "u", consecutive: 1)
        let warnings = await sender.send([event], deadline: .now)
        #expect(
            warnings == [
                "could not send the down alert of cart to http://127.0.0.1:9/hook: no attempt before the deadline"
            ])
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
