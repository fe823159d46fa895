import APIProbeShared
package import Foundation
import ProbeClient
package import ProbeRunner

/// What `apiprobe status-page` shows, computed from a history file: each endpoint's state, uptime over 24 hours,
/// 7 days and 30 days, latency over time in buckets, incidents and schema-drift events.
///
/// Every window is measured back from the newest history entry (or ``Options/reference``), never from the
/// wall clock, so the same history always gives the same page.
///
/// ```swift
/// let page = try StatusPage.build(from: HistoryFile(url: history), options: .init(downAfter: 2))
/// try StatusPageWriter(page: page).write(to: URL(fileURLWithPath: "site"))
/// ```
///
/// - **Uptime** of an endpoint over a window: the share of its rounds in the window in which every check passed.
///   Overall: the share of rounds in which every endpoint of the round passed.
/// - **Incidents**: an endpoint is down from the round its rounds without a usable answer (no response, or a status
///   its expectation refuses) in a row reach `downAfter` until the round its answered rounds in a row reach
///   `successThreshold`: the rule alerts use (``AlertTransitions/Tracker``). An incident is shown from the first
///   unanswered round of that run to the first answered round of those that ended it, with the failure categories
///   of every round in between. An endpoint that answers but fails another check (latency, body, schema, a
///   certificate expiring soon) is degraded: shown as failing, not as an incident.
/// - **Latency** of a set of rounds (a chart bucket, the last 24 hours): p50 is the median of the rounds' p50s,
///   p95 the 95th percentile of the rounds' p95s, so a slow spell inside a bucket still shows.
/// - **Schema drift**: an event each time the drift an endpoint's rounds record changes (appears, changes,
///   clears). A line with a `schema-drift` failure but no `drift` is an event without details; lines written
///   before `drift` and `failures` were recorded hold no drift.
package struct StatusPage: Sendable {
    /// How the page is computed.
    package struct Options: Sendable {
        /// The page's heading (the config's `api`, say).
        package var title: String
        /// Failed rounds in a row that make an endpoint down (the config's `downAfter`).
        package var downAfter: Int
        /// Passing rounds in a row that bring it back (the config's `successThreshold`).
        package var successThreshold: Int
        /// How many buckets the latency chart has at most (fewer for an endpoint with fewer rounds).
        var chartBuckets: Int
        /// The time windows are measured back from; rounds after it are left out. `nil`: the newest entry's start.
        package var reference: Date?
        /// The most incidents and drift events kept (the newest).
        var maximumEvents: Int
        /// The config's maintenance windows, shown in a section of their own (``Maintenance/all(in:)``). A round
        /// inside one did not probe its endpoints, so it counts towards no uptime.
        package var maintenance: [Maintenance] = []

        package init(
            title: String = "API status", downAfter: Int = 1, successThreshold: Int = 1, chartBuckets: Int = 96,
            reference: Date? = nil, maximumEvents: Int = 100
        ) {
            self.title = title
            self.downAfter = max(1, downAfter)
            self.successThreshold = max(1, successThreshold)
            self.chartBuckets = max(1, chartBuckets)
            self.reference = reference
            self.maximumEvents = max(1, maximumEvents)
        }
    }

    /// A maintenance window of the config and the endpoints it covers.
    package struct Maintenance: Sendable, Hashable {
        var window: MaintenanceWindow
        /// The endpoints it covers; empty: every endpoint (a top-level `maintenance:`).
        var endpoints: [String]

        package init(window: MaintenanceWindow, endpoints: [String] = []) {
            self.window = window
            self.endpoints = endpoints
        }

        /// Every window of `config`: the top-level ones, then each endpoint's own.
        package static func all(in config: ProbeConfig) -> [Maintenance] {
            config.maintenance.map { Maintenance(window: $0) }
                + config.endpoints.flatMap { endpoint in
                    endpoint.maintenance.map { Maintenance(window: $0, endpoints: [endpoint.name]) }
                }
        }
    }

    /// An uptime window: 24 hours, 7 days, 30 days.
    package struct Window: Sendable, Hashable, CaseIterable {
        package var label: String
        var seconds: TimeInterval
        package static let day = Window(label: "24h", seconds: 86_400)
        package static let week = Window(label: "7d", seconds: 7 * 86_400)
        package static let month = Window(label: "30d", seconds: 30 * 86_400)
        package static let allCases: [Window] = [.day, .week, .month]
    }

    /// Passing rounds out of all rounds in a window.
    package struct Uptime: Sendable, Hashable {
        var passed: Int
        var total: Int
        package init(passed: Int, total: Int) {
            self.passed = passed
            self.total = total
        }
        /// 0...1; `nil` with no rounds in the window.
        var ratio: Double? { total > 0 ? Double(passed) / Double(total) : nil }
    }

    /// p50 and p95 of a set of rounds (see the type's discussion), in milliseconds.
    package struct Latency: Sendable, Hashable {
        package var p50: Double?
        package var p95: Double?
        /// Rounds with a measured latency.
        package var rounds: Int
        package init(p50: Double?, p95: Double?, rounds: Int) {
            self.p50 = p50
            self.p95 = p95
            self.rounds = rounds
        }
    }

    /// One bar of the latency chart.
    package struct Bucket: Sendable, Hashable {
        var start: Date
        var end: Date
        package var latency: Latency
    }

    /// An endpoint's state in its newest round.
    package enum State: String, Sendable, Hashable {
        /// Its newest round passed and it is not down.
        case up
        /// Its newest round failed, but not yet `downAfter` in a row (or not yet `successThreshold` passes).
        case failing
        /// Down: an ongoing incident.
        case down
    }

    package struct Endpoint: Sendable {
        package var name: String
        package var state: State
        /// Its newest round.
        var lastSeen: Date
        package var uptime: [Window: Uptime]
        /// Over the last 24 hours.
        package var latency: Latency
        package var chart: [Bucket]
        /// From the latest report, when given.
        var url: String?
        /// The failed checks of the latest report (`name: message`), or of its newest round in the history.
        var failedChecks: [String]
    }

    /// A down period of an endpoint.
    package struct Incident: Sendable, Hashable {
        package var endpoint: String
        /// The first failed round of the failures that took it down.
        package var start: Date
        /// The first passing round of the passes that brought it back; `nil` while it is still down.
        package var end: Date?
        /// Categories of the failed checks of its failed rounds, sorted.
        var failures: [String]
        /// The first failed check of its first round.
        package var message: String?
        /// Failed rounds during it.
        var failedRounds: Int
        package init(
            endpoint: String, start: Date, end: Date?, failures: [String], message: String?, failedRounds: Int
        ) {
            self.endpoint = endpoint
            self.start = start
            self.end = end
            self.failures = failures
            self.message = message
            self.failedRounds = failedRounds
        }
        /// How long it lasted (ongoing: up to the reference time).
        package func duration(until reference: Date) -> TimeInterval { (end ?? reference).timeIntervalSince(start) }
    }

    /// A change of the schema drift an endpoint's rounds record.
    package struct DriftEvent: Sendable, Hashable {
        var endpoint: String
        var at: Date
        /// The drift from this round on, one change a line; empty when it cleared.
        var changes: [String]
        /// Whether the history line held only a `schema-drift` failure, without the changes.
        var withoutDetails: Bool
        package init(endpoint: String, at: Date, changes: [String], withoutDetails: Bool) {
            self.endpoint = endpoint
            self.at = at
            self.changes = changes
            self.withoutDetails = withoutDetails
        }
    }

    /// The state of everything: operational, degraded, a partial or a major outage.
    package enum OverallState: String, Sendable {
        case operational
        case degraded
        case partialOutage = "partial-outage"
        case majorOutage = "major-outage"

        package var headline: String {
            switch self {
            case .operational: return "All systems operational"
            case .degraded: return "Degraded: some checks are failing"
            case .partialOutage: return "Partial outage"
            case .majorOutage: return "Major outage"
            }
        }
    }

    package var options: Options
    /// The time windows are measured back from.
    package var reference: Date
    /// The oldest round read.
    var firstRound: Date
    package var rounds: Int
    /// Lines skipped as damaged, and the first of their numbers.
    package var damagedLines: Int
    package var firstDamagedLines: [Int]
    /// Sorted by name.
    package var endpoints: [Endpoint]
    /// Over every endpoint: share of rounds in which all passed.
    package var uptime: [Window: Uptime]
    /// Over every endpoint's rounds of the last 24 hours.
    var latency: Latency
    /// Newest first, at most ``Options/maximumEvents``.
    package var incidents: [Incident]
    /// Incidents older than those kept.
    package var olderIncidents: Int
    /// Newest first, at most ``Options/maximumEvents``.
    package var driftEvents: [DriftEvent]
    var olderDriftEvents: Int
    /// The latest report's start, when one was given.
    var reportStartedAt: Date?

    /// Whether `endpoint` has had a round in the 24 hours before the reference time. One that has not (removed
    /// from the config, say) keeps its numbers on the page but no longer counts for the overall state.
    package func isCurrent(_ endpoint: Endpoint) -> Bool {
        reference.timeIntervalSince(endpoint.lastSeen) < Window.day.seconds
    }

    /// From the endpoints seen in the last 24 hours (``isCurrent(_:)``).
    package var overallState: OverallState {
        let current = endpoints.filter(isCurrent)
        let down = current.filter { $0.state == .down }.count
        if down > 0 { return down == current.count ? .majorOutage : .partialOutage }
        return current.contains { $0.state == .failing } ? .degraded : .operational
    }
}

extension StatusPage {
    /// `2026-11-22T18:00:00Z` (fractional seconds allowed), as the history and reports write times.
    package static func parseTime(_ text: String) -> Date? { DisplayText.parseTimestamp(text) }

    /// The page for `history` (and the latest report, when given).
    ///
    /// - Complexity: one pass over the file; memory grows by about 25 bytes per endpoint and round (what the
    ///   windows and the chart need), besides at most ``Options/maximumEvents`` incidents and drift events.
    /// - Throws: ``HTTPFixtures/InputError`` for a missing, empty or bad history file or report.
    package static func build(from history: HistoryFile, report: LatestReport? = nil, options: Options = Options())
        throws -> StatusPage
    {
        let reference: Date
        if let given = options.reference {
            reference = given
        } else if let newest = try history.read(last: 1).records.last {
            reference = newest.startedAt
        } else {
            reference = .distantPast  // scan names the problem
        }
        var builder = Builder(options: options, reference: reference)
        let summary = try history.scan { builder.add($0) }
        return builder.finish(summary: summary, report: report)
    }
}

extension StatusPage {
    /// The one pass over the history: columns for the windows and the chart, trackers for incidents and drift.
    fileprivate struct Column {
        var times: [Double] = []
        var passed: [Bool] = []
        var p50: [Double] = []
        var p95: [Double] = []
        var tracker: AlertTransitions.Tracker
        /// The incident in progress: counted from the first failure of the current run of failures.
        var openIncident: Incident?
        var drift: [String] = []
        var lastSeen = Date.distantPast
        var lastFailed: [String] = []
    }

    fileprivate struct Builder {
        var options: Options
        var reference: Date
        var columns: [String: Column] = [:]
        var rounds = 0
        var firstRound = Date.distantFuture
        var overall: [Window: Uptime] = Dictionary(
            uniqueKeysWithValues: Window.allCases.map { ($0, Uptime(passed: 0, total: 0)) })
        var incidents: [Incident] = []
        var olderIncidents = 0
        var driftEvents: [DriftEvent] = []
        var olderDriftEvents = 0

        init(options: Options, reference: Date) {
            self.options = options
            self.reference = reference
        }

        mutating func add(_ record: HistoryRecord) {
            guard record.startedAt <= reference else { return }
            rounds += 1
            firstRound = min(firstRound, record.startedAt)
            let age = reference.timeIntervalSince(record.startedAt)
            let allPassed = record.endpoints.values.allSatisfy(\.passed)
            for window in Window.allCases where age < window.seconds {
                overall[window]?.total += 1
                if allPassed { overall[window]?.passed += 1 }
            }
            for (name, summary) in record.endpoints.sorted(by: { $0.key < $1.key }) {
                // Taken out of the dictionary while it grows, so its arrays are not copied every round.
                var column =
                    columns.removeValue(forKey: name)
                    ?? Column(
                        tracker: AlertTransitions.Tracker(
                            downAfter: options.downAfter, successThreshold: options.successThreshold))
                add(summary, at: record.startedAt, of: name, to: &column)
                columns[name] = column
            }
        }

        private mutating func add(
            _ summary: HistoryRecord.EndpointSummary, at time: Date, of name: String, to column: inout Column
        ) {
            column.times.append(time.timeIntervalSince1970)
            column.passed.append(summary.passed)
            column.p50.append(summary.p50 ?? .nan)
            column.p95.append(summary.p95 ?? .nan)
            column.lastSeen = max(column.lastSeen, time)
            column.lastFailed = summary.passed ? [] : [summary.message ?? summary.failures.joined(separator: ", ")]

            // Incidents: the alert rule decides, on rounds without a usable answer (an endpoint that answers but
            // fails a check is degraded, shown as failing, not an incident); the incident runs from the first such
            // round of the run.
            let wasDown = column.tracker.isDown
            let change = column.tracker.record(passed: summary.answered)
            if !summary.answered {
                if column.tracker.failuresInARow == 1, !wasDown {
                    column.openIncident = Incident(
                        endpoint: name, start: time, end: nil, failures: [], message: summary.message, failedRounds: 0)
                }
                if var incident = column.openIncident {
                    incident.failedRounds += 1
                    incident.failures = Array(Set(incident.failures + summary.failures)).sorted()
                    if incident.message == nil { incident.message = summary.message }
                    column.openIncident = incident
                }
            } else if !column.tracker.isDown {
                if change == .recovered, var incident = column.openIncident {
                    // The passes that ended it began successThreshold - 1 rounds ago.
                    let first = column.times.count - column.tracker.successThreshold
                    incident.end = Date(timeIntervalSince1970: column.times[max(0, first)])
                    keep(incident)
                }
                column.openIncident = nil
            }

            // Drift: an event when the recorded drift changes.
            var drift = summary.drift
            var withoutDetails = false
            if drift.isEmpty, summary.failures.contains(FailureCategory.schemaDrift.rawValue) {
                drift = ["schema-drift (this history line names no changes)"]
                withoutDetails = true
            }
            if drift != column.drift {
                driftEvents.append(DriftEvent(endpoint: name, at: time, changes: drift, withoutDetails: withoutDetails))
                if driftEvents.count > 2 * options.maximumEvents {
                    olderDriftEvents += driftEvents.count - options.maximumEvents
                    driftEvents.removeFirst(driftEvents.count - options.maximumEvents)
                }
                column.drift = drift
            }
        }

        private mutating func keep(_ incident: Incident) {
            incidents.append(incident)
            if incidents.count > 2 * options.maximumEvents {
                olderIncidents += incidents.count - options.maximumEvents
                incidents.removeFirst(incidents.count - options.maximumEvents)
            }
        }

        mutating func finish(summary: HistoryFile.ScanSummary, report: LatestReport?) -> StatusPage {
            var endpoints: [Endpoint] = []
            var dayP50: [Double] = []
            var dayP95: [Double] = []
            let start = firstRound == .distantFuture ? reference : firstRound
            for (name, column) in columns.sorted(by: { $0.key < $1.key }) {
                if column.tracker.isDown, let open = column.openIncident { keep(open) }
                var uptime: [Window: Uptime] = [:]
                for window in Window.allCases {
                    let from = reference.timeIntervalSince1970 - window.seconds
                    var counts = Uptime(passed: 0, total: 0)
                    for index in column.times.indices where column.times[index] > from {
                        counts.total += 1
                        if column.passed[index] { counts.passed += 1 }
                    }
                    uptime[window] = counts
                }
                let dayStart = reference.timeIntervalSince1970 - Window.day.seconds
                let day = column.times.indices.filter { column.times[$0] > dayStart }
                dayP50 += day.map { column.p50[$0] }
                dayP95 += day.map { column.p95[$0] }
                let reported = report?.endpoints.first { $0.name == name }
                endpoints.append(
                    Endpoint(
                        name: name,
                        state: column.tracker.isDown ? .down : (column.passed.last == false ? .failing : .up),
                        lastSeen: column.lastSeen, uptime: uptime,
                        latency: StatusPage.latency(
                            p50: day.map { column.p50[$0] }, p95: day.map { column.p95[$0] }),
                        chart: StatusPage.buckets(
                            times: column.times, p50: column.p50, p95: column.p95, from: start, to: reference,
                            count: min(options.chartBuckets, max(1, column.times.count))),
                        url: reported?.url,
                        failedChecks: reported?.failedChecks ?? column.lastFailed.filter { !$0.isEmpty }))
            }
            incidents.sort { ($0.start, $0.endpoint) > ($1.start, $1.endpoint) }
            if incidents.count > options.maximumEvents {
                olderIncidents += incidents.count - options.maximumEvents
                incidents.removeLast(incidents.count - options.maximumEvents)
            }
            driftEvents.sort { ($0.at, $0.endpoint) > ($1.at, $1.endpoint) }
            if driftEvents.count > options.maximumEvents {
                olderDriftEvents += driftEvents.count - options.maximumEvents
                driftEvents.removeLast(driftEvents.count - options.maximumEvents)
            }
            return StatusPage(
                options: options, reference: reference, firstRound: start, rounds: rounds,
                damagedLines: summary.damagedLines, firstDamagedLines: summary.firstDamagedLines,
                endpoints: endpoints, uptime: overall, latency: StatusPage.latency(p50: dayP50, p95: dayP95),
                incidents: incidents, olderIncidents: olderIncidents, driftEvents: driftEvents,
                olderDriftEvents: olderDriftEvents, reportStartedAt: report?.startedAt)
        }
    }

    /// The latency of a set of rounds: the median of their p50s, the 95th percentile of their p95s (NaN: none).
    static func latency(p50: [Double], p95: [Double]) -> Latency {
        let p50s = p50.filter { !$0.isNaN }.sorted()
        let p95s = p95.filter { !$0.isNaN }.sorted()
        return Latency(
            p50: p50s.isEmpty ? nil : LatencyStats.percentile(50, ofSorted: p50s),
            p95: p95s.isEmpty ? nil : LatencyStats.percentile(95, ofSorted: p95s),
            rounds: max(p50s.count, p95s.count))
    }

    /// At most `count` buckets of equal length from `from` to `to` (the last one includes `to`); a bucket with no
    /// round is kept, with no latency, so the chart shows the gap.
    package static func buckets(times: [Double], p50: [Double], p95: [Double], from: Date, to: Date, count: Int)
        -> [Bucket]
    {
        let start = from.timeIntervalSince1970
        let span = to.timeIntervalSince1970 - start
        let number = span > 0 ? count : 1
        let width = span > 0 ? span / Double(number) : 1
        var p50s = [[Double]](repeating: [], count: number)
        var p95s = [[Double]](repeating: [], count: number)
        for index in times.indices {
            let slot = min(number - 1, max(0, Int((times[index] - start) / width)))
            if !p50[index].isNaN { p50s[slot].append(p50[index]) }
            if !p95[index].isNaN { p95s[slot].append(p95[index]) }
        }
        return (0..<number).map { slot in
            Bucket(
                start: Date(timeIntervalSince1970: start + Double(slot) * width),
                end: Date(timeIntervalSince1970: start + Double(slot + 1) * width),
                latency: latency(p50: p50s[slot], p95: p95s[slot]))
        }
    }
}
