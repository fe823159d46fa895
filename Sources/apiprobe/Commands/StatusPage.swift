import ArgumentParser
import Foundation
import HTTPFixtures
import ProbeReports
import ProbeRunner

/// `apiprobe status-page`: a static status site from the history file (and the latest JSON report).
struct StatusPageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status-page",
        abstract: "Write a static status page with SVG badges from the probe history.",
        discussion: """
            Writes DIR/index.html (no scripts, no outside resources) and DIR/badges/*.svg: the overall state, each \
            endpoint's uptime over 24 h, 7 d and 30 d before the newest round, a latency chart (p50, p95), \
            incidents (down after --down-after failed rounds, up again after --success-threshold passing ones, as \
            alerts count them) and schema-drift events. --config takes downAfter, successThreshold, the title, \
            the maintenance windows (a section of their own) and the secrets to mask from apiprobe.yml. Secrets \
            are masked in every file written.
            Exit status: 0 written; 2 a history or report that cannot be read, or a folder that cannot be written.
            """
    )

    @Option(name: .long, help: "The JSON Lines history file `apiprobe run --history` appends to.")
    var history: String

    @Option(name: .long, help: "The folder to write the site into (created when missing).")
    var output: String

    @Option(name: .long, help: "The latest `apiprobe run --report json=FILE`: URLs and failed checks.")
    var report: String?

    @Option(name: .long, help: "The probe config: downAfter, successThreshold, api (the title) and secrets.")
    var config: String?

    @Option(name: .customLong("down-after"), help: "Failed rounds in a row that make an endpoint down (default 1).")
    var downAfter: Int?

    @Option(
        name: .customLong("success-threshold"), help: "Passing rounds in a row that end an incident (default 1).")
    var successThreshold: Int?

    @Option(name: .long, help: "The page's heading (default: the config's api, else \"API status\").")
    var title: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Measure the windows back from this time (2026-11-22T18:00:00Z) instead of the newest round.",
            valueName: "time"),
        transform: Self.parseTime)
    var at: Date?

    static func parseTime(_ argument: String) throws -> Date {
        guard let date = StatusPage.parseTime(argument) else {
            throw ValidationError("expected an ISO 8601 UTC time like 2026-11-22T18:00:00Z")
        }
        return date
    }

    func validate() throws {
        for (flag, value) in [("--down-after", downAfter), ("--success-threshold", successThreshold)] {
            if let value, !(1...1_000).contains(value) {
                throw ValidationError("\(flag) \(value): expected a whole number from 1 to 1000")
            }
        }
    }

    func run() async throws {
        var redactor = Terminal.redactor
        var options = StatusPage.Options()
        if let config {
            let probeConfig = try ProbeConfig.load(contentsOf: URL(fileURLWithPath: config), file: config)
            redactor = probeConfig.makeRedactor(secrets: Terminal.secrets)
            options.downAfter = probeConfig.downAfter
            options.successThreshold = probeConfig.successThreshold
            options.title = "\(probeConfig.api) status"
            options.maintenance = StatusPage.Maintenance.all(in: probeConfig)
        }
        if let downAfter { options.downAfter = downAfter }
        if let successThreshold { options.successThreshold = successThreshold }
        if let title { options.title = title }
        options.reference = at
        let latest = try report.map { try LatestReport(contentsOf: URL(fileURLWithPath: $0), displayName: $0) }
        let page = try StatusPage.build(
            from: HistoryFile(url: URL(fileURLWithPath: history)), report: latest, options: options)
        let written = try StatusPageWriter(page: page, redactor: redactor)
            .write(to: URL(fileURLWithPath: output), displayName: output)
        if page.damagedLines > 0 {
            Terminal.standardError.write(
                "apiprobe status-page: warning: \(history): skipped \(page.damagedLines) damaged line(s) (lines "
                    + page.firstDamagedLines.map(String.init).joined(separator: ", ")
                    + (page.damagedLines > page.firstDamagedLines.count ? ", …" : "") + ")\n")
        }
        Terminal.standardOutput.write(
            "wrote \(output)/\(written.index) and \(written.badges.count) badges: \(page.overallState.headline); "
                + "\(page.endpoints.count) endpoint(s), \(page.rounds) rounds, \(page.incidents.count + page.olderIncidents) incident(s)\n"
        )
    }
}
