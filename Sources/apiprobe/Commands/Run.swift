import APIProbeShared
import ArgumentParser
import Dispatch
import Foundation
import HTTPFixtures
import ProbeReports
import ProbeRunner

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `apiprobe run`: probe the endpoints of a config and report.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Probe the endpoints of a config: latency, status, headers, body conditions, schema.",
        discussion: """
            KIND is console, json, junit, markdown or prometheus; without =PATH, or with =-, it goes to standard \
            output (default: console). Secrets (environment values in the config, credentials in traffic) are \
            masked in every report, the history, the push and the terminal. Under GitHub Actions the Markdown \
            report is also written to $GITHUB_STEP_SUMMARY (once: with --every, the last round's replaces the \
            earlier ones). With --every, rounds repeat (±10% jitter) until SIGINT or SIGTERM; the \
            current round finishes, reports are flushed and the exit status is 0. SIGHUP reads the config again \
            before the next round (a config that cannot be read keeps the one before, with a warning).
            Exit status: 0 all checks held; 1 a check failed; 2 bad usage or config; 3 an internal error.
            """
    )

    @Option(name: .long, help: "The probe config (YAML or JSON).")
    var config = "apiprobe.yml"

    @Option(name: .long, help: "Probe only this endpoint (repeatable).")
    var only: [String] = []

    @Option(name: .long, help: "A report: KIND or KIND=PATH (repeatable).", transform: Self.parseReport)
    var report: [ReportDestination] = []

    @Option(
        name: .long, parsing: .unconditional, help: "Repeat rounds this often (30s, 5m) until SIGINT/SIGTERM.",
        transform: Self.parseInterval)
    var every: Duration?

    /// `--report KIND[=PATH]`, parsed once, where the arguments are read.
    static func parseReport(_ argument: String) throws -> ReportDestination {
        guard let destination = ReportDestination(argument: argument) else {
            // ArgumentParser says which value of which option; this says what was expected.
            throw ValidationError(
                "expected KIND or KIND=PATH with KIND one of "
                    + ReportKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return destination
    }

    /// `--every DURATION`: a positive duration in the config's notation.
    static func parseInterval(_ argument: String) throws -> Duration {
        try DurationArgument.positive(argument)
    }

    @Flag(
        name: .customLong("dry-run"),
        help:
            "Check the config and print the plan (endpoints, requests, checks, receivers), its secrets masked; send nothing."
    )
    var dryRun = false

    @Option(name: .long, help: "A JSON Lines history file: consecutive failures, regressions; each run appended.")
    var history: String?

    @Option(name: .customLong("push-gateway"), help: "Push Prometheus metrics to this Pushgateway URL.")
    var pushGateway: String?

    @Option(
        name: .customLong("push-label"),
        help: ArgumentHelp(
            "A grouping label of the push beside api and instance (repeatable; instance=… replaces the host name).",
            valueName: "key=value"),
        transform: Self.parseLabel)
    var pushLabels: [PushLabel] = []

    struct PushLabel {
        var name: String
        var value: String
    }

    /// `--push-label key=value`: a Prometheus label name (not `job`, not `__…`) and its value.
    static func parseLabel(_ argument: String) throws -> PushLabel {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard parts.count == 2, PushgatewayClient.isGroupingLabelName(name) else {
            throw ValidationError("expected key=value with \(PushgatewayClient.groupingLabelRule)")
        }
        return PushLabel(name: name, value: String(parts[1]))
    }

    func validate() throws {
        if let pushGateway {
            guard let url = URL(string: pushGateway), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil
            else { throw ValidationError("--push-gateway \(pushGateway): expected an http(s) URL") }
        }
    }

    func run() async throws {
        let configURL = URL(fileURLWithPath: config)
        if let pushGateway { Terminal.redactor.learnURL(pushGateway) }
        let probeConfig = try ProbeConfig.load(contentsOf: configURL, file: config)
        let unknown = only.filter { name in !probeConfig.endpoints.contains { $0.name == name } }
        if !unknown.isEmpty {
            throw ValidationError(
                "--only \(unknown.joined(separator: ", ")): no such endpoint in \(config); it has "
                    + probeConfig.endpoints.map(\.name).joined(separator: ", "))
        }
        if dryRun {
            var plan = probeConfig.plan(redactor: Terminal.redactor)
            if let history { plan += "history: \(history)\n" }
            if let pushGateway { plan += "push: \(Terminal.redactor.redactURL(pushGateway))\n" }
            plan += "reports: " + (report.isEmpty ? "console" : report.map(\.description).joined(separator: ", "))
            plan += every.map { "; a round every \(formatDuration($0))" } ?? "; one round"
            Terminal.standardOutput.write(plan + "\nnothing sent (--dry-run)\n")
            return
        }
        let destinations = report.isEmpty ? [ReportDestination(kind: .console)] : report
        var runner = ProbeRunner(config: probeConfig, directory: configURL.deletingLastPathComponent())
        runner.redactor = probeConfig.makeRedactor(secrets: Terminal.secrets)
        var session = ProbeSession(
            runner: runner,
            only: only,
            history: history.map { HistoryFile(url: URL(fileURLWithPath: $0)) },
            pushGateway: pushGateway.flatMap(URL.init(string:)).map { url in
                PushgatewayClient.forRun(
                    url: url, api: probeConfig.api,
                    labels: Dictionary(pushLabels.map { ($0.name, $0.value) }) { $1 })
            }
        )
        var summary = StepSummary()

        var noted: [String] = []
        guard let interval = every else {
            let due = try dueEndpoints(&session, tick: nil, noted: &noted)
            guard !due.isEmpty else {
                Terminal.standardError.write(
                    noted.isEmpty
                        ? "apiprobe run: no endpoint is due: each has an interval that has not passed since its last"
                            + " probe in \(history ?? "the history")\n"
                        : "apiprobe run: no endpoint is due: \(noted.count) in maintenance"
                            + (noted.count < probeConfig.endpoints.count
                                ? ", the others waiting for their interval\n" : "\n"))
                return
            }
            let result = try await round(
                &session, endpoints: due, destinations: destinations, summary: &summary)
            if !result.passed { throw ChecksFailed() }
            return
        }
        let stop = StopSignal()
        stop.listenForReload()
        let clock = ContinuousClock()
        while !stop.isSet {
            // --every is measured start to start: a round that takes 1.5 s of a 2 s interval waits 0.5 s.
            let started = clock.now
            if stop.takeReloadRequest() { reload(&session, from: configURL) }
            // Endpoints with an `interval` of their own are probed in the rounds where it has passed.
            let due = try dueEndpoints(&session, tick: interval, noted: &noted)
            if !due.isEmpty {
                _ = try await round(&session, endpoints: due, destinations: destinations, summary: &summary)
            }
            await stop.wait(
                for: ProbeSession.delayBeforeNextRound(
                    interval: ProbeSession.jittered(interval), elapsed: clock.now - started))
        }
    }

    /// SIGHUP between rounds: the config read again and used from the next round on, the session's state
    /// (consecutive failures, alert states, totals, undelivered alerts) kept. A config that cannot be read, or no
    /// longer has an `--only` endpoint, keeps the one loaded before, and a warning says why.
    private func reload(_ session: inout ProbeSession, from configURL: URL) {
        let problem: String
        do {
            let reloaded = try ProbeConfig.load(contentsOf: configURL, file: config)
            let unknown = only.filter { name in !reloaded.endpoints.contains { $0.name == name } }
            if unknown.isEmpty {
                var runner = ProbeRunner(config: reloaded, directory: configURL.deletingLastPathComponent())
                runner.redactor = reloaded.makeRedactor(secrets: Terminal.secrets)
                session.runner = runner
                Terminal.standardError.write(
                    "apiprobe run: SIGHUP: reloaded \(config) (\(reloaded.endpoints.count) endpoints)\n")
                return
            }
            problem = "--only \(unknown.joined(separator: ", ")): no such endpoint in the new config"
        } catch {
            problem = "\(error)"
        }
        Terminal.standardError.write(
            "apiprobe run: warning: SIGHUP: \(Terminal.redactor.redact(text: problem)); kept the config loaded before\n"
        )
    }

    /// The endpoints due now; says which are left alone for maintenance when that changes (`noted`: the ones said
    /// last), so a two-hour window under `--every 1m` is one line, not 120.
    private func dueEndpoints(_ session: inout ProbeSession, tick: Duration?, noted: inout [String]) throws
        -> [String]
    {
        let now = Date()
        let resting = session.inMaintenance(at: now)
        if resting.map(\.name) != noted {
            noted = resting.map(\.name)
            if !resting.isEmpty {
                let list = resting.map { "\($0.name) (until \(DisplayText.timestamp($0.until)))" }
                Terminal.standardError.write(
                    "apiprobe run: in maintenance, not probed: \(list.joined(separator: ", "))\n")
            }
        }
        do {
            return try session.dueEndpoints(at: now, tick: tick)
        } catch {
            throw ValidationError("--history \(history ?? ""): \(error)")
        }
    }

    /// One round: progress on a terminal, the reports, the step summary.
    private func round(
        _ session: inout ProbeSession, endpoints: [String], destinations: [ReportDestination],
        summary: inout StepSummary
    ) async throws -> ProbeRunResult {
        let progress = Terminal.standardError
        if progress.isTerminal { progress.write("apiprobe: probing \(endpoints.count) endpoint(s)…") }
        let round: ProbeSession.Round
        do {
            round = try await session.round(endpoints: endpoints)
        } catch {
            if progress.isTerminal { progress.write("\r\u{1B}[K") }
            throw ValidationError("--history \(history ?? ""): \(error)")
        }
        if progress.isTerminal { progress.write("\r\u{1B}[K") }
        for warning in round.warnings { Terminal.standardError.write("apiprobe run: warning: \(warning)\n") }
        for destination in destinations {
            if let path = destination.path {
                let text = Report.render(
                    round.result, as: destination.kind, options: ReportOptions(totals: round.totals))
                let masked = Terminal.redactor.redact(text: text)
                try AtomicFile.write(Data(masked.utf8), to: URL(fileURLWithPath: path), displayName: path)
            } else {
                let out = Terminal.standardOutput
                let options = ReportOptions(
                    usesColor: destination.kind == .console && out.usesColor, totals: round.totals)
                out.write(Report.render(round.result, as: destination.kind, options: options))
            }
        }
        do {
            let markdown = Report.render(round.result, as: .markdown, options: ReportOptions())
            try summary.write(Terminal.redactor.redact(text: markdown))
        } catch {
            Terminal.standardError.write("apiprobe run: warning: cannot write to GITHUB_STEP_SUMMARY: \(error)\n")
        }
        return round.result
    }
}
