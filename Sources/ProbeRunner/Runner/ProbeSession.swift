import APIProbeShared
package import Foundation
import HTTPFixtures
import ProbeClient

/// Rounds of probes as `apiprobe run` makes them: consecutive failures carried between rounds, history
/// read and appended, regressions found, metrics pushed. The command line only parses and prints.
package struct ProbeSession: Sendable {
    package var runner: ProbeRunner
    var only: [String]
    var history: HistoryFile?
    var pushGateway: PushgatewayClient?
    /// Consecutive failed rounds per endpoint, carried into the next round.
    package private(set) var consecutiveFailures: [String: Int] = [:]
    /// Consecutive rounds without a usable answer per endpoint, carried into the next round.
    package private(set) var consecutiveOutages: [String: Int] = [:]
    /// Each endpoint's alert state (down or up, rounds in a row): with a history, as the last round left it in
    /// the outbox file beside it (the history's last rounds replayed stand in for a file without states); without
    /// one, this process's rounds.
    package private(set) var alertStates: [String: AlertTransitions.EndpointState] = [:]
    /// When each endpoint was last probed, from the history file (read once) and this process's rounds: what
    /// an endpoint's `interval` is measured from.
    package private(set) var lastProbed: [String: Date] = [:]
    private var historyLoaded = false
    private var pendingWarnings: [String] = []
    /// Alerts not delivered yet, when there is no history file to keep them beside.
    private var pendingAlerts: [AlertOutbox.Item] = []

    /// How many of the history's last rounds are read when a session starts: a day of rounds a minute apart.
    static let historyMemory = 2_000

    package init(
        runner: ProbeRunner, only: [String] = [], history: HistoryFile? = nil, pushGateway: PushgatewayClient? = nil
    ) {
        self.runner = runner
        self.only = only
        self.history = history
        self.pushGateway = pushGateway
    }

    /// What a round gave: the result, and problems that did not stop it (a failed push).
    package struct Round: Sendable {
        package var result: ProbeRunResult
        package var warnings: [String]
        /// The counts of every round of this session so far, this one included.
        package var totals = RunningTotals()
    }

    /// The counts behind the Prometheus counters: of every run sharing the history file (read from and written
    /// to `history.totals.json` beside it each round), or of every round of this session without one.
    package private(set) var totals = RunningTotals()

    /// The endpoints a round at `now` probes: those outside their maintenance windows, of them every endpoint
    /// without an `interval`, and those whose interval has passed since they were last probed (or that never
    /// were). Endpoints named with `--only` are always due: the user asked for them.
    ///
    /// - Parameters:
    ///   - now: the round's start (the runner's ``ProbeRunner/now`` when `nil`).
    ///   - tick: the time between rounds (`--every`); an interval may end up to half a tick early, so a 5m
    ///     interval on a 1m tick is probed every 5th round, not every 6th. Without a tick (one round, as cron
    ///     starts it), a tenth of the interval.
    /// - Throws: the history file's errors.
    package mutating func dueEndpoints(at now: Date? = nil, tick: Duration? = nil) throws -> [String] {
        guard only.isEmpty else { return only }
        let now = now ?? runner.now()
        let endpoints = runner.config.endpoints.filter { runner.config.maintenanceEnd(of: $0, at: now) == nil }
        guard endpoints.contains(where: { $0.interval != nil }) else { return endpoints.map(\.name) }
        try loadHistory()
        return endpoints.filter { endpoint in
            guard let interval = endpoint.interval, let last = lastProbed[endpoint.name] else { return true }
            let early = tick.map { $0 / 2 } ?? interval / 10
            return now.timeIntervalSince(last) + early.timeInterval >= interval.timeInterval
        }.map(\.name)
    }

    /// The endpoints a round at `now` does not probe because a maintenance window contains it, each with the
    /// window's end, in config order; none when `--only` names the endpoints (the user asked for them). `now` is
    /// the runner's ``ProbeRunner/now`` when `nil`.
    package func inMaintenance(at now: Date? = nil) -> [(name: String, until: Date)] {
        guard only.isEmpty else { return [] }
        let now = now ?? runner.now()
        return runner.config.endpoints.compactMap { endpoint in
            runner.config.maintenanceEnd(of: endpoint, at: now).map { (endpoint.name, $0) }
        }
    }

    /// One round. Reads the history the first time (consecutive failures, the regression baseline),
    /// appends this round to it, pushes metrics.
    ///
    /// - Parameter endpoints: the endpoints to probe (``dueEndpoints(at:tick:)``); `nil` for every endpoint
    ///   (or those of `only`).
    /// - Throws: the history file's errors (reading or appending).
    package mutating func round(endpoints: [String]? = nil) async throws -> Round {
        try loadHistory()
        var warnings = pendingWarnings
        pendingWarnings = []
        var records: [HistoryRecord] = []
        if let history {
            let config = runner.config
            records = try history.read(last: max(1, config.regression.window)).records
        }
        let shown = await runner.run(
            only: endpoints ?? only, previousFailures: consecutiveFailures, previousOutages: consecutiveOutages)
        var result = shown
        let probed = Set(result.endpoints.map(\.name))
        result.inMaintenance = inMaintenance(at: result.startedAt).map(\.name).filter { !probed.contains($0) }
        // An endpoint named with --only is probed even inside a maintenance window (the user asked), but the
        // window is honoured by what the run keeps: its result is shown and nothing else (no history, counters,
        // alert or push), so a manual check during maintenance neither pages anyone nor counts against uptime.
        let maintained = Dictionary(
            uniqueKeysWithValues: runner.config.endpoints.compactMap { endpoint in
                probed.contains(endpoint.name)
                    ? runner.config.maintenanceEnd(of: endpoint, at: shown.startedAt).map { (endpoint.name, $0) } : nil
            })
        if !maintained.isEmpty {
            result.endpoints.removeAll { maintained[$0.name] != nil }
            for (name, until) in maintained.sorted(by: { $0.key < $1.key }) {
                warnings.append(
                    "\(name) is in a maintenance window until \(DisplayText.timestamp(until)): probed because --only "
                        + "names it, and not recorded (no history, alert or metric)")
            }
            if result.endpoints.isEmpty {
                var answer = result
                answer.endpoints = shown.endpoints
                return Round(result: answer, warnings: warnings, totals: totals)
            }
        }
        for endpoint in result.endpoints { lastProbed[endpoint.name] = result.startedAt }
        if history != nil {
            result.regressions = RegressionDetector.regressions(
                in: result, history: records, policy: runner.config.regression)
        }
        for endpoint in result.endpoints {
            consecutiveFailures[endpoint.name] = endpoint.consecutiveFailures
            consecutiveOutages[endpoint.name] = endpoint.consecutiveOutages
        }
        // The run goes into the history first: a history that cannot be written is the error to report, before
        // the state kept beside it (the counters' totals, the alerts' outbox).
        if let history {
            try history.append(result)
            // Rounds older than `history.keep`, or beyond `history.maxSize`, go (the counters and alert states
            // are kept beside the history, so they stay exact).
            try history.prune(runner.config.historyRetention, now: runner.now())
        }
        if let history {
            // The counters go on from where the last run sharing this history left them (a new process each time
            // under cron), so the Pushgateway's series never go back.
            let url = RunningTotals.url(besideHistory: history.url)
            var damaged = false
            totals = try await StateFile.update(url) { data in
                var totals = RunningTotals()
                if let data {
                    if let read = RunningTotals(decoding: data) { totals = read } else { damaged = true }
                }
                totals.add(result)
                return (totals.encoded(), totals)
            }
            if damaged {
                warnings.append("\(url.relativePath): not a totals file apiprobe wrote; the counters start again")
            }
        } else {
            totals.add(result)
        }
        if !runner.config.alerts.isEmpty {
            // Alerts never hold the run for long: at most 10 s (or the config's deadline) for all of them. What a
            // receiver could not take waits in the outbox (beside the history, or in this process without one)
            // and is sent again, in order, on the next round or run.
            let deadline = ContinuousClock.now + min(runner.config.deadline, .seconds(10))
            let sender = AlertSender(targets: runner.config.alerts, redactor: runner.redactor)
            if let history {
                // The transitions are decided from the states kept in the outbox file, under its lock, and queued
                // there in the same turn: runs that overlap on this history take turns, and each outage is one
                // "down" and one "recovered" whatever their number.
                let url = AlertOutbox.url(besideHistory: history.url)
                let seeds = alertStates
                let (sent, states) = try await AlertOutbox.withLockedFile(url) {
                    contents, damaged -> ([String], [String: AlertTransitions.EndpointState]) in
                    // No file yet, or one of an earlier version without states: the history's rounds, read when
                    // this process started, stand in for them (once: the file written here keeps them after).
                    var trackers =
                        contents.states.map {
                            $0.mapValues {
                                $0.state(
                                    downAfter: runner.config.downAfter,
                                    successThreshold: runner.config.successThreshold)
                            }
                        } ?? seeds
                    let events = Self.alertEvents(for: result, config: runner.config, trackers: &trackers)
                    contents.states = trackers.filter { !$0.value.isSettled }.mapValues(AlertOutbox.StoredState.init)
                    guard !contents.items.isEmpty || !events.isEmpty || damaged != nil else { return ([], trackers) }
                    let sent = await AlertOutbox.deliver(
                        &contents.items, adding: events, sender: sender, now: runner.now(), deadline: deadline,
                        outboxName: url.relativePath)
                    return ((damaged.map { [$0] } ?? []) + sent, trackers)
                }
                warnings += sent
                alertStates = states
            } else if case let events = Self.alertEvents(
                for: result, config: runner.config, trackers: &alertStates),
                !events.isEmpty || !pendingAlerts.isEmpty
            {
                warnings += await AlertOutbox.deliver(
                    &pendingAlerts, adding: events, sender: sender, now: runner.now(), deadline: deadline,
                    outboxName: nil)
            }
        }
        if let pushGateway {
            do {
                let text = PrometheusReport.render(result, totals: totals)
                try await pushGateway.push(runner.redactor.redact(text: text))
            } catch {
                let redactor = runner.redactor
                warnings.append(
                    redactor.redact(
                        text:
                            "could not push to the Pushgateway at \(redactor.redactURL(pushGateway.url.absoluteString)): \(error)"
                    ))
            }
        }
        // What the run shows is every endpoint it probed, those in maintenance included.
        var answer = result
        answer.endpoints = shown.endpoints
        return Round(result: answer, warnings: warnings, totals: totals)
    }

    /// Reads the history's last rounds once: each endpoint's alert state replayed, consecutive failures, when
    /// each endpoint was last probed; damaged lines become a warning of the next round.
    private mutating func loadHistory() throws {
        guard !historyLoaded else { return }
        historyLoaded = true
        guard let history else { return }
        let config = runner.config
        let contents = try history.read(last: Self.historyMemory)
        consecutiveFailures.merge(RegressionDetector.consecutiveFailures(in: contents.records)) { current, _ in current
        }
        consecutiveOutages.merge(RegressionDetector.consecutiveOutages(in: contents.records)) { current, _ in current }
        for record in contents.records {
            for (name, summary) in record.endpoints {
                // A round that was only rate limited counts neither way, as in a live round.
                if summary.failures != [FailureCategory.rateLimited.rawValue] {
                    alertStates[name, default: Self.alertState(config)].record(
                        answered: summary.answered, passed: summary.passed)
                }
                if record.startedAt > lastProbed[name] ?? .distantPast { lastProbed[name] = record.startedAt }
            }
        }
        if contents.damagedLines > 0 {
            pendingWarnings.append(
                "\(history.url.relativePath): skipped \(DisplayText.count(contents.damagedLines, "damaged line")) "
                    + "(not a whole record, or longer than \(HistoryFile.maximumLineLength) bytes)")
        }
    }

    private static func alertState(_ config: ProbeConfig) -> AlertTransitions.EndpointState {
        AlertTransitions.EndpointState(downAfter: config.downAfter, successThreshold: config.successThreshold)
    }

    /// The state changes this round makes (down, recovered, degraded, restored), each endpoint's state in
    /// `trackers` moved on.
    private static func alertEvents(
        for result: ProbeRunResult, config: ProbeConfig, trackers: inout [String: AlertTransitions.EndpointState]
    ) -> [AlertEvent] {
        var events: [AlertEvent] = []
        for endpoint in result.endpoints {
            // Down and recovered follow the answer, degraded and restored the other checks: a latency budget
            // missed or a certificate expiring soon is not an outage to page for. Rate limiting counts neither way.
            if endpoint.onlyRateLimited { continue }
            guard
                let state = trackers[endpoint.name, default: Self.alertState(config)].record(
                    answered: endpoint.answered, passed: endpoint.passed)
            else { continue }
            let failed = endpoint.checks.filter { !$0.passed }.map { check in
                check.message.map { "\(check.name): \($0)" } ?? check.name
            }
            let message: String
            let consecutive: Int
            switch state {
            case .down:
                message = failed.joined(separator: "; ")
                consecutive = trackers[endpoint.name]?.answer.failuresInARow ?? endpoint.consecutiveOutages
            case .degraded:
                message = failed.joined(separator: "; ")
                consecutive = trackers[endpoint.name]?.checks.failuresInARow ?? endpoint.consecutiveFailures
            case .recovered:
                message =
                    failed.isEmpty ? "all checks hold" : "answers again; failing: " + failed.joined(separator: "; ")
                consecutive = config.successThreshold
            case .restored:
                message = "all checks hold"
                consecutive = config.successThreshold
            }
            events.append(
                AlertEvent(
                    api: config.api, endpoint: endpoint.name, state: state, at: result.startedAt, message: message,
                    url: endpoint.url, consecutive: consecutive))
        }
        return events
    }

    /// How long to wait after a round that took `elapsed` so rounds start `interval` apart (`--every` is measured
    /// start to start); no wait when the round took the whole interval or more.
    package static func delayBeforeNextRound(interval: Duration, elapsed: Duration) -> Duration {
        max(.zero, interval - elapsed)
    }

    /// `interval` ± 10%, so many probes started together drift apart.
    package static func jittered(_ interval: Duration) -> Duration {
        interval * Double.random(in: 0.9...1.1)
    }
}

extension ProbeConfig {
    /// A duration as the config writes it (`300ms`, `1.5s`, `2m`, `1h`); `nil` when it is not one.
    static func parseDuration(_ text: String) -> Duration? {
        ConfigReader.parseDuration(text)
    }
}
