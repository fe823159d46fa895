public import Foundation
import HTTPFixtures

/// Where one `--report KIND[=PATH]` goes: a file, or standard output when `path` is `nil`.
public struct ReportDestination: Sendable, Hashable, CustomStringConvertible {
    public var kind: ReportKind
    public var path: String?

    public init(kind: ReportKind, path: String? = nil) {
        self.kind = kind
        self.path = path
    }

    /// `json`, `json=out/report.json`; `json=-` is standard output, as `json` is; `nil` for an unknown kind or
    /// an empty path.
    public init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = ReportKind(rawValue: String(parts[0]).lowercased()) else { return nil }
        if parts.count == 2, parts[1] == "-" {
            self.init(kind: kind)
        } else if parts.count == 2 {
            guard !parts[1].isEmpty else { return nil }
            self.init(kind: kind, path: String(parts[1]))
        } else {
            self.init(kind: kind)
        }
    }

    public var description: String { path.map { "\(kind)=\($0)" } ?? kind.rawValue }
}

/// Rounds of probes as `apiprobe run` makes them: consecutive failures carried between rounds, history
/// read and appended, regressions found, metrics pushed. The command line only parses and prints.
public struct ProbeSession: Sendable {
    public var runner: ProbeRunner
    public var only: [String]
    public var history: HistoryFile?
    public var pushGateway: PushgatewayClient?
    /// Consecutive failed rounds per endpoint, carried into the next round.
    public private(set) var consecutiveFailures: [String: Int] = [:]
    /// Recent rounds per endpoint (`true`: passed), oldest first, from the history and this process: what alert
    /// transitions are judged on.
    public private(set) var outcomes: [String: [Bool]] = [:]
    /// When each endpoint was last probed, from the history file (read once) and this process's rounds: what
    /// an endpoint's `interval` is measured from.
    public private(set) var lastProbed: [String: Date] = [:]
    private var historyLoaded = false
    private var lastProbedLoaded = false

    public init(
        runner: ProbeRunner, only: [String] = [], history: HistoryFile? = nil, pushGateway: PushgatewayClient? = nil
    ) {
        self.runner = runner
        self.only = only
        self.history = history
        self.pushGateway = pushGateway
    }

    /// What a round gave: the result, and problems that did not stop it (a failed push).
    public struct Round: Sendable {
        public var result: ProbeRunResult
        public var warnings: [String]
        /// The counts of every round of this session so far, this one included.
        public var totals = RunningTotals()
    }

    /// The counts of every round of this session (the Prometheus counters of a long-running `--every`).
    public private(set) var totals = RunningTotals()

    /// The endpoints a round at `now` probes: every endpoint without an `interval`, and those whose interval
    /// has passed since they were last probed (or that never were). Endpoints named with `--only` are always
    /// due: the user asked for them.
    ///
    /// - Parameters:
    ///   - now: the round's start.
    ///   - tick: the time between rounds (`--every`); an interval may end up to half a tick early, so a 5m
    ///     interval on a 1m tick is probed every 5th round, not every 6th. Without a tick (one round, as cron
    ///     starts it), a tenth of the interval.
    /// - Throws: the history file's errors.
    public mutating func dueEndpoints(at now: Date = Date(), tick: Duration? = nil) throws -> [String] {
        let endpoints = runner.config.endpoints
        guard only.isEmpty else { return only }
        guard endpoints.contains(where: { $0.interval != nil }) else { return endpoints.map(\.name) }
        if !lastProbedLoaded, let history {
            // The last few thousand rounds: a day of rounds a minute apart.
            for record in try history.read(last: 2_000).records {
                for name in record.endpoints.keys where record.startedAt > lastProbed[name] ?? .distantPast {
                    lastProbed[name] = record.startedAt
                }
            }
        }
        lastProbedLoaded = true
        return endpoints.filter { endpoint in
            guard let interval = endpoint.interval, let last = lastProbed[endpoint.name] else { return true }
            let early = tick.map { $0 / 2 } ?? interval / 10
            return now.timeIntervalSince(last) + early.timeInterval >= interval.timeInterval
        }.map(\.name)
    }

    /// One round. Reads the history the first time (consecutive failures, the regression baseline),
    /// appends this round to it, pushes metrics.
    ///
    /// - Parameter endpoints: the endpoints to probe (``dueEndpoints(at:tick:)``); `nil` for every endpoint
    ///   (or those of `only`).
    /// - Throws: the history file's errors (reading or appending).
    public mutating func round(endpoints: [String]? = nil) async throws -> Round {
        var records: [HistoryRecord] = []
        var warnings: [String] = []
        if let history {
            let config = runner.config
            let contents = try history.read(
                last: max(1, config.regression.window, config.downAfter + config.successThreshold + 1))
            records = contents.records
            if !historyLoaded {
                consecutiveFailures.merge(RegressionDetector.consecutiveFailures(in: records)) { current, _ in current }
                for record in records {
                    for (name, summary) in record.endpoints { outcomes[name, default: []].append(summary.passed) }
                }
                historyLoaded = true
                if contents.damagedLines > 0 {
                    warnings.append(
                        "\(history.url.relativePath): skipped \(ReportText.count(contents.damagedLines, "damaged line")) "
                            + "(not a whole record, or longer than \(HistoryFile.maximumLineLength) bytes)")
                }
            }
        }
        var result = await runner.run(only: endpoints ?? only, previousFailures: consecutiveFailures)
        for endpoint in result.endpoints { lastProbed[endpoint.name] = result.startedAt }
        if history != nil {
            result.regressions = RegressionDetector.regressions(
                in: result, history: records, policy: runner.config.regression)
        }
        for endpoint in result.endpoints { consecutiveFailures[endpoint.name] = endpoint.consecutiveFailures }
        totals.add(result)
        let events = alertEvents(for: result)
        if !events.isEmpty, !runner.config.alerts.isEmpty {
            // Alerts never hold the run for long: at most 10 s (or the config's deadline) for all of them.
            let budget = min(runner.config.deadline, .seconds(10))
            let sender = AlertSender(targets: runner.config.alerts, redactor: runner.redactor)
            warnings += await sender.send(events, deadline: .now + budget)
        }
        if let history { try history.append(result) }
        if let pushGateway {
            do {
                let text = Report.render(result, as: .prometheus, options: ReportOptions(totals: totals))
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
        return Round(result: result, warnings: warnings, totals: totals)
    }

    /// The state changes this round makes (down, recovered), after adding it to the outcomes.
    private mutating func alertEvents(for result: ProbeRunResult) -> [AlertEvent] {
        let config = runner.config
        let keep = config.downAfter + config.successThreshold + 1
        var events: [AlertEvent] = []
        for endpoint in result.endpoints {
            let passed = endpoint.passed
            var recent = outcomes[endpoint.name, default: []]
            recent.append(passed)
            if recent.count > keep { recent.removeFirst(recent.count - keep) }
            outcomes[endpoint.name] = recent
            guard
                let state = AlertTransitions.change(
                    outcomes: recent, downAfter: config.downAfter, successThreshold: config.successThreshold)
            else { continue }
            let failed = endpoint.checks.filter { !$0.passed }.map { check in
                check.message.map { "\(check.name): \($0)" } ?? check.name
            }
            events.append(
                AlertEvent(
                    api: config.api, endpoint: endpoint.name, state: state, at: result.startedAt,
                    message: state == .down ? failed.joined(separator: "; ") : "all checks hold",
                    url: endpoint.url,
                    consecutive: state == .down ? endpoint.consecutiveFailures : config.successThreshold))
        }
        return events
    }

    /// How long to wait after a round that took `elapsed` so rounds start `interval` apart (`--every` is measured
    /// start to start); no wait when the round took the whole interval or more.
    public static func delayBeforeNextRound(interval: Duration, elapsed: Duration) -> Duration {
        max(.zero, interval - elapsed)
    }

    /// `interval` ± 10%, so many probes started together drift apart.
    public static func jittered(_ interval: Duration) -> Duration {
        interval * Double.random(in: 0.9...1.1)
    }
}

extension ProbeConfig {
    /// A duration as the config writes it (`300ms`, `1.5s`, `2m`, `1h`); `nil` when it is not one.
    public static func parseDuration(_ text: String) -> Duration? {
        ConfigReader.parseDuration(text)
    }
}
