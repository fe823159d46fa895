import APIProbeShared
package import Foundation
package import HTTPFixtures
import ProbeClient

/// A change of an endpoint's state that alerts announce: it went down, or it recovered.
package struct AlertEvent: Sendable, Hashable {
    package enum State: String, Sendable, Hashable {
        /// No usable answer (or a refused status) `downAfter` rounds in a row; ``recovered`` ends it.
        case down, recovered
        /// It answers, but a check failed (latency, body, schema, a certificate expiring soon) `downAfter` rounds
        /// in a row while it was up; ``restored`` says its checks hold again.
        case degraded, restored
    }

    package var api: String
    var endpoint: String
    var state: State
    /// When the round that changed the state started.
    var at: Date
    /// The failed checks, or what recovered.
    package var message: String
    /// The endpoint's URL (credentials redacted).
    var url: String
    /// Failed rounds in a row (down) or passing rounds in a row (recovered).
    var consecutive: Int

    package init(
        api: String, endpoint: String, state: State, at: Date, message: String, url: String, consecutive: Int
    ) {
        self.api = api
        self.endpoint = endpoint
        self.state = state
        self.at = at
        self.message = message
        self.url = url
        self.consecutive = consecutive
    }
}

/// When an endpoint's state changes: alerts are sent on transitions only, never again for the same outage.
///
/// An endpoint goes **down** in the round its failures in a row reach `downAfter` while it is up, and
/// **recovers** in the round its passes in a row reach `successThreshold` while it is down. The outcomes come
/// from the history file as well as this process, so a probe started by cron every 15 minutes alerts once per
/// outage, as a long-running `--every` does. The status page finds its incidents with the same ``Tracker``.
package enum AlertTransitions {
    /// The state change the last outcome makes, if any: ``Tracker`` replayed over `outcomes`, starting up.
    ///
    /// - Parameters:
    ///   - outcomes: the endpoint's rounds, oldest first, `true` for passed; the last is this round's.
    package static func change(outcomes: [Bool], downAfter: Int, successThreshold: Int) -> AlertEvent.State? {
        var tracker = Tracker(downAfter: downAfter, successThreshold: successThreshold)
        var change: AlertEvent.State?
        for passed in outcomes { change = tracker.record(passed: passed) }
        return change
    }

    /// One endpoint's two alert states, fed one round at a time: whether it answers (``AlertEvent/State/down``,
    /// ``AlertEvent/State/recovered``) and whether its checks hold (``AlertEvent/State/degraded``,
    /// ``AlertEvent/State/restored``), each by the ``Tracker`` rule. A change of the checks is announced only while
    /// the endpoint answers, and not in a round whose answer changed: an outage is one "down" and one "recovered"
    /// (whose message names the checks that still fail), never also "degraded" and "restored".
    package struct EndpointState: Sendable, Hashable {
        var answer: Tracker
        package var checks: Tracker

        init(downAfter: Int, successThreshold: Int) {
            answer = Tracker(downAfter: downAfter, successThreshold: successThreshold)
            checks = Tracker(downAfter: downAfter, successThreshold: successThreshold)
        }

        init(answer: Tracker, checks: Tracker) {
            self.answer = answer
            self.checks = checks
        }

        /// Whether both are as new: nothing to keep.
        var isSettled: Bool { answer.isSettled && checks.isSettled }

        /// Adds a round (`answered`: a usable answer; `passed`: every check held); returns the change to announce.
        @discardableResult
        mutating func record(answered: Bool, passed: Bool) -> AlertEvent.State? {
            let availability = answer.record(passed: answered)
            let health = checks.record(passed: passed)
            if let availability { return availability }
            guard !answer.isDown, let health else { return nil }
            return health == .down ? .degraded : .restored
        }
    }

    /// One endpoint's up/down state, fed one round at a time: the one rule for down and recovered.
    ///
    /// ```swift
    /// var tracker = AlertTransitions.Tracker(downAfter: 2, successThreshold: 1)
    /// tracker.record(passed: false)  // nil: one failure
    /// tracker.record(passed: false)  // .down
    /// tracker.record(passed: true)   // .recovered
    /// ```
    package struct Tracker: Sendable, Hashable {
        let downAfter: Int
        package let successThreshold: Int
        /// Whether the endpoint is down: it went down and has not recovered since.
        package private(set) var isDown = false
        /// Failed rounds in a row, the last round included (0 after a pass).
        package private(set) var failuresInARow = 0
        /// Passing rounds in a row, the last round included (0 after a failure).
        package private(set) var passesInARow = 0

        /// A tracker of an endpoint that is up; `downAfter` and `successThreshold` are at least 1.
        package init(downAfter: Int, successThreshold: Int) {
            self.downAfter = max(1, downAfter)
            self.successThreshold = max(1, successThreshold)
        }

        /// A tracker in the state a run left it (read back from the file beside the history).
        init(downAfter: Int, successThreshold: Int, isDown: Bool, failuresInARow: Int, passesInARow: Int) {
            self.init(downAfter: downAfter, successThreshold: successThreshold)
            self.isDown = isDown
            self.failuresInARow = max(0, failuresInARow)
            self.passesInARow = max(0, passesInARow)
        }

        /// Whether the tracker is as a new one: up, and no failure in a row (the passes in a row of an endpoint
        /// that is up change nothing to come). A file of states keeps only the others.
        var isSettled: Bool { !isDown && failuresInARow == 0 }

        /// Adds a round; returns the state change it makes, if any.
        @discardableResult
        package mutating func record(passed: Bool) -> AlertEvent.State? {
            if passed {
                passesInARow += 1
                failuresInARow = 0
                guard isDown, passesInARow == successThreshold else { return nil }
                isDown = false
                return .recovered
            }
            failuresInARow += 1
            passesInARow = 0
            guard !isDown, failuresInARow == downAfter else { return nil }
            isDown = true
            return .down
        }
    }
}

/// Sends alert events to their targets: a JSON webhook or a Slack-compatible incoming webhook.
///
/// Each target is tried up to three times, with a short backoff, and never past `deadline`: an alert receiver
/// that is down costs a run at most that long, and the failure is a warning, not a failed run. Every byte sent
/// passes the redactor. `apiprobe run` sends through an outbox (kept beside the history), so an alert a receiver
/// could not take is sent again on later rounds and runs, in order, until it is delivered.
package struct AlertSender: Sendable {
    var targets: [AlertTarget]
    var redactor: Redactor

    package init(targets: [AlertTarget], redactor: Redactor) {
        self.targets = targets
        self.redactor = redactor
    }

    /// Sends every event to every target; returns a warning for each that could not be delivered.
    package func send(_ events: [AlertEvent], deadline: ContinuousClock.Instant) async -> [String] {
        guard !events.isEmpty else { return [] }
        var warnings: [String] = []
        for target in targets {
            for event in events {
                if let problem = await deliver(payload(event, for: target.kind), to: target.url, deadline) {
                    warnings.append(
                        redactor.redact(
                            text:
                                "could not send the \(event.state.rawValue) alert of \(event.endpoint) to \(redactor.redactURL(target.url.absoluteString)): \(problem)"
                        ))
                }
            }
        }
        return warnings
    }

    /// The body of one alert for a target kind, redacted.
    package func payload(_ event: AlertEvent, for kind: AlertTarget.Kind) -> Data {
        let text: String
        switch kind {
        case .webhook:
            let value = JSONValue.object([
                ("api", .string(event.api)), ("endpoint", .string(event.endpoint)),
                ("state", .string(event.state.rawValue)), ("at", .string(DisplayText.timestamp(event.at))),
                ("message", .string(event.message)), ("url", .string(event.url)),
                ("consecutive", .number(String(event.consecutive))),
            ])
            text = String(decoding: value.serialized(sortedKeys: true), as: UTF8.self)
        case .slack:
            let line: String
            switch event.state {
            case .down:
                line =
                    ":red_circle: \(event.api) \(event.endpoint) is down (\(event.consecutive) rounds in a row without an answer): \(event.message)"
            case .recovered:
                line =
                    ":large_green_circle: \(event.api) \(event.endpoint) recovered (\(event.consecutive) answered rounds in a row): \(event.message)"
            case .degraded:
                line =
                    ":large_yellow_circle: \(event.api) \(event.endpoint) is degraded (\(event.consecutive) rounds in a row with a failed check): \(event.message)"
            case .restored:
                line =
                    ":large_green_circle: \(event.api) \(event.endpoint): every check holds again (\(event.consecutive) rounds in a row)"
            }
            text = String(decoding: JSONValue.object([("text", .string(line))]).serialized(), as: UTF8.self)
        }
        return Data(redactor.redact(text: text).utf8)
    }

    /// `nil` when a 2xx answered; otherwise the problem. Sent by the probes' own client, by the one retry rule
    /// (``RetryRule``: a transport error tried twice more, a rate limit waited out, never past `deadline`); an answer
    /// other than 2xx leaves the alert in the outbox, sent again next round.
    func deliver(_ body: Data, to url: URL, _ deadline: ContinuousClock.Instant) async -> String? {
        guard deadline - ContinuousClock.now > .milliseconds(50) else { return "no attempt before the deadline" }
        let request = ProbeRequest(
            method: "POST", url: url, headers: ["Content-Type": "application/json"], body: body,
            timeout: .seconds(5), retry: RetryRule(retries: 2))
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        switch await loader.send(request, deadline: deadline) {
        case .success(let response):
            let status = response.status ?? 0
            return (200..<300).contains(status) ? nil : "the receiver answered \(status)"
        case .failure(let error):
            return error.description
        }
    }
}
