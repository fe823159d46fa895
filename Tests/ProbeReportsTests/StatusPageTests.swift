import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeReports
import ProbeRunner
import Testing

/// The status page's numbers on a history with known answers (``StatusPageHistory``), its files, and its errors.
@Suite(.temporaryFolder) struct StatusPageTests {
    let folder: URL

    /// The test's own folder (`.temporaryFolder`), removed when it ends.
    init() throws { folder = try TemporaryFolder.url }

    static func hours(_ count: Int) -> TimeInterval { Double(count) * 3_600 }

    @Test func uptimeWindowsIncidentsAndDriftMatchTheHandWorkedAnswers() throws {
        let history = try StatusPageHistory.write(into: folder)
        let page = try StatusPage.build(from: history, options: StatusPageHistory.options)

        #expect(page.reference == StatusPageHistory.reference)
        #expect(page.rounds == StatusPageHistory.rounds)
        #expect(page.endpoints.map(\.name) == ["api", "cart"])
        let api = try #require(page.endpoints.first { $0.name == "api" })
        let cart = try #require(page.endpoints.first { $0.name == "cart" })
        #expect(api.uptime[.day] == .init(passed: 24, total: 24))
        #expect(api.uptime[.week] == .init(passed: 165, total: 168))
        #expect(api.uptime[.month] == .init(passed: 715, total: 720))
        #expect(cart.uptime[.day] == .init(passed: 21, total: 24))
        #expect(cart.uptime[.week] == .init(passed: 161, total: 168))
        #expect(cart.uptime[.month] == .init(passed: 713, total: 720))
        #expect(page.uptime[.week] == .init(passed: 158, total: 168))
        #expect(page.uptime[.month] == .init(passed: 708, total: 720))
        for (name, uptime) in [("api", api.uptime), ("cart", cart.uptime), ("all", page.uptime)] {
            for window in StatusPage.Window.allCases {
                #expect(StatusPageText.percent(uptime[window]) == StatusPageHistory.uptime[name]?[window.label])
            }
        }

        // p50: the median of 10...33; p95: the 95th percentile of 20, 22, ..., 66 (R-7: 62 + 0.85 × 2).
        #expect(api.latency.p50 == 21.5)
        #expect(abs((api.latency.p95 ?? 0) - 63.7) < 1e-9)
        #expect(cart.latency == .init(p50: 20, p95: 40, rounds: 21))

        #expect(api.state == .up)
        #expect(cart.state == .down)
        #expect(page.overallState == .partialOutage)

        let time = StatusPageHistory.time
        #expect(
            page.incidents == [
                .init(
                    endpoint: "cart", start: time(2), end: nil, failures: ["timeout"],
                    message: "reachable: the server said <b>\(StatusPageHistory.secret)</b> & gave up", failedRounds: 3),
                .init(
                    endpoint: "cart", start: time(50), end: time(45), failures: ["refused", "timeout"],
                    message: "reachable: the server said <b>\(StatusPageHistory.secret)</b> & gave up", failedRounds: 4),
                .init(
                    endpoint: "api", start: time(102), end: time(99), failures: ["http-status"],
                    message:
                        "status 200: got 503 from https://api.example.com/v1/items?access_token=\(StatusPageHistory.secret)",
                    failedRounds: 3),
                .init(
                    endpoint: "api", start: time(501), end: time(499), failures: ["http-status"],
                    message:
                        "status 200: got 503 from https://api.example.com/v1/items?access_token=\(StatusPageHistory.secret)",
                    failedRounds: 2),
            ])
        #expect(page.incidents.map { $0.duration(until: page.reference) } == [2, 5, 3, 2].map(Self.hours))
        #expect(StatusPageText.duration(Self.hours(5)) == "5 h")
        #expect(StatusPageText.duration(Self.hours(26) + 60 * 5) == "1 d 2 h")
        // An incident of two rounds a second apart is not "0 s".
        #expect(StatusPageText.duration(1.25) == "1.3 s")
        #expect(StatusPageText.duration(0.4) == "0.4 s")
        #expect(StatusPageText.duration(2) == "2 s")
        #expect(StatusPageText.duration(45) == "45 s")

        #expect(
            page.driftEvents == [
                .init(endpoint: "api", at: time(298), changes: [], withoutDetails: false),
                .init(
                    endpoint: "api", at: time(300), changes: ["breaking /items/*/id type-changed: string → integer"],
                    withoutDetails: false),
            ])
    }

    /// The config's windows have a section of their own, and the one the page's time is in says until when.
    @Test func maintenanceWindowsAreShownWithTheOneInForceNow() throws {
        let history = try StatusPageHistory.write(into: folder)
        var options = StatusPageHistory.options
        // The reference is 2026-11-22 (a Sunday) 18:00 UTC.
        options.maintenance = [
            .init(window: MaintenanceWindow(startMinute: 17 * 60 + 30, duration: .seconds(3_600), weekdays: [1])),
            .init(window: MaintenanceWindow(startMinute: 2 * 60, duration: .seconds(7_200)), endpoints: ["cart"]),
        ]
        let site = folder.appendingPathComponent("site")
        try StatusPageWriter(page: StatusPage.build(from: history, options: options)).write(to: site)
        let html = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        let section = try #require(
            html.range(of: "<section aria-labelledby=\"maintenance-heading\"").map {
                String(html[$0.lowerBound...]).components(separatedBy: "</section>")[0]
            })
        let rows = section.components(separatedBy: "<tr><td>").dropFirst().map {
            $0.components(separatedBy: "</tr>")[0]
        }
        #expect(rows.count == 2)
        #expect(rows[0].hasPrefix("17:30 for 1h on sun (UTC)</td><td>every endpoint</td>"), "\(rows[0])")
        #expect(rows[0].contains("in maintenance until <time datetime=\"2026-11-22T18:30:00Z\">"), "\(rows[0])")
        #expect(rows[1] == "02:00 for 2h every day (UTC)</td><td>cart</td><td>not now</td>", "\(rows[1])")
        #expect(html.range(of: "maintenance-heading")!.lowerBound < html.range(of: "uptime-heading")!.lowerBound)

        // Without windows, no section.
        try StatusPageWriter(page: StatusPage.build(from: history, options: StatusPageHistory.options)).write(to: site)
        let plain = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!plain.contains("maintenance-heading"))
    }

    @Test func anIncidentNeedsDownAfterFailuresAndEndsAfterSuccessThresholdPasses() throws {
        let history = try StatusPageHistory.write(into: folder)
        // With downAfter 3 only api's 3-round outage and cart's ongoing one (3 failures) are incidents; with
        // successThreshold 1, cart's outage ends at the pass in round 48 and 47–46 are two failures: no incident.
        var options = StatusPageHistory.options
        options.downAfter = 3
        options.successThreshold = 1
        let page = try StatusPage.build(from: history, options: options)
        let time = StatusPageHistory.time
        #expect(page.incidents.map(\.endpoint) == ["cart", "api"])
        #expect(page.incidents.map(\.start) == [time(2), time(102)])
        #expect(page.incidents.map(\.end) == [nil, time(99)])
    }

    @Test func aPassInsideAnOutageIsNoRecoveryAndNoSecondDownAlert() {
        // Down after 2, back after 2: the single pass does not end the outage, so the failures after it are the
        // same outage (the rule that compared only the trailing failures with downAfter alerted "down" again).
        #expect(
            AlertTransitions.change(outcomes: [false, false, true, false, false], downAfter: 2, successThreshold: 2)
                == nil)
        var tracker = AlertTransitions.Tracker(downAfter: 2, successThreshold: 2)
        let changes = [false, false, true, false, false, true, true].map { tracker.record(passed: $0) }
        #expect(changes == [nil, .down, nil, nil, nil, nil, .recovered])
    }

    @Test func bucketsHoldThePercentilesOfTheirRounds() {
        // Ten rounds a second apart, two buckets of 5 s: p95 of 1...5 is 4.8, of 6...10 is 9.8 (R-7).
        let times = (0..<10).map(Double.init)
        let p95 = (1...10).map(Double.init)
        let p50 = p95.map { $0 / 2 }
        let buckets = StatusPage.buckets(
            times: times, p50: p50, p95: p95, from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 10),
            count: 2)
        #expect(buckets.count == 2)
        #expect(buckets.map(\.latency.rounds) == [5, 5])
        #expect(buckets.map(\.latency.p50) == [1.5, 4])
        #expect(buckets.map { ($0.latency.p95 ?? 0) * 10 }.map { $0.rounded() } == [48, 98])

        // A bucket without rounds is kept, empty, so the chart shows the gap; rounds without latency (NaN) count
        // for nothing.
        let gap = StatusPage.buckets(
            times: [0, 1, 9], p50: [1, .nan, 3], p95: [2, .nan, 6], from: Date(timeIntervalSince1970: 0),
            to: Date(timeIntervalSince1970: 9), count: 3)
        #expect(gap.map(\.latency.p95) == [2, nil, 6])
        #expect(gap.map(\.latency.rounds) == [1, 0, 1])
    }

    @Test func aYearOfFiveMinuteRoundsIsDownsampledToTheBucketCount() throws {
        // Only the shape here (the benchmark measures the speed): 96 buckets whatever the history's length.
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for index in 0..<2_000 {
            try history.append(
                HistoryRecord(
                    startedAt: StatusPageHistory.reference.addingTimeInterval(Double(index) * 300), passed: true,
                    endpoints: ["a": .init(passed: true, p95: 10, p50: 5)]))
        }
        let page = try StatusPage.build(from: history)
        #expect(page.endpoints.first?.chart.count == 96)
        #expect(page.endpoints.first?.chart.reduce(0) { $0 + $1.latency.rounds } == 2_000)

        // Fewer rounds than buckets: a bucket a round, not 96 mostly empty ones.
        let short = HistoryFile(url: folder.appendingPathComponent("short.jsonl"))
        for index in 0..<3 {
            try short.append(
                HistoryRecord(
                    startedAt: StatusPageHistory.reference.addingTimeInterval(Double(index) * 300), passed: true,
                    endpoints: ["a": .init(passed: true, p95: 10, p50: 5)]))
        }
        #expect(try StatusPage.build(from: short).endpoints.first?.chart.map(\.latency.rounds) == [1, 1, 1])
    }

    @Test func thePageAndBadgesShowTheNumbersEscapedAndNeverASecret() throws {
        let history = try StatusPageHistory.write(into: folder)
        let report = folder.appendingPathComponent("report.json")
        try Data(
            #"""
            {"startedAt": "2026-11-22T18:00:00Z", "passed": false, "endpoints": [
              {"name": "api", "passed": true, "url": "https://api.example.com/v1/items?api_key=key-PLANTED-7777", "checks": []},
              {"name": "cart", "passed": false, "url": "https://shop.example.com/cart", "checks": [
                {"name": "reachable", "passed": false, "message": "timed out after 5 s; key-PLANTED-7777 was sent"}]}]}
            """#.utf8
        ).write(to: report)
        let page = try StatusPage.build(
            from: history, report: LatestReport(contentsOf: report), options: StatusPageHistory.options)
        let site = folder.appendingPathComponent("site")
        let written = try StatusPageWriter(page: page).write(to: site)
        #expect(written.badges.count == 12)
        #expect(written.badges.contains("badges/cart-uptime-7d.svg"))

        let html = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains(#"<td data-field="uptime-7d">98.21%</td>"#))
        #expect(html.contains("https://api.example.com/v1/items?api_key=REDACTED"))
        #expect(html.contains("the server said &lt;b&gt;REDACTED&lt;/b&gt; &amp; gave up"))
        #expect(!html.contains("<b>"))
        #expect(!html.contains("<script"))
        for file in try FileManager.default.subpathsOfDirectory(atPath: site.path) {
            let url = site.appendingPathComponent(file)
            guard !url.hasDirectoryPath, let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            #expect(!text.contains("PLANTED"), "\(file) holds a planted secret")
        }

        let badge = try Data(contentsOf: site.appendingPathComponent("badges/cart-uptime-7d.svg"))
        let reader = try #require(BadgeReader.read(badge))
        #expect(reader.rootName == "svg")
        #expect(reader.title == "cart uptime 7d: 95.83%")
        #expect(reader.texts == ["cart uptime 7d", "95.83%"])
    }

    @Test func anEndpointNotSeenForADayNoLongerCountsForTheOverallState() throws {
        // "old" went down two days ago and was then removed from the config; "api" is up.
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for hour in [49, 48] {
            try history.append(
                HistoryRecord(
                    startedAt: StatusPageHistory.time(hour), passed: false,
                    endpoints: ["old": .init(passed: false, p95: nil), "api": .init(passed: true, p95: 5)]))
        }
        try history.append(
            HistoryRecord(
                startedAt: StatusPageHistory.time(0), passed: true, endpoints: ["api": .init(passed: true, p95: 5)]))
        let page = try StatusPage.build(from: history)
        #expect(page.endpoints.map(\.state) == [.up, .down])
        #expect(page.endpoints.map(page.isCurrent) == [true, false])
        #expect(page.overallState == .operational)
        let site = folder.appendingPathComponent("site")
        try StatusPageWriter(page: page).write(to: site)
        let html = try String(contentsOf: site.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(html.contains("Down <span class=\"why\">(no round since 2026-11-20 18:00 UTC)</span>"))
    }

    @Test func endpointNamesBecomeSafeDistinctBadgeFileNames() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        try history.append(
            HistoryRecord(
                startedAt: StatusPageHistory.reference, passed: true,
                endpoints: [
                    "../../escape": .init(passed: true, p95: 1), "a/b": .init(passed: true, p95: 1),
                    "a_b": .init(passed: true, p95: 1),
                ]))
        let site = folder.appendingPathComponent("site")
        let written = try StatusPageWriter(page: StatusPage.build(from: history)).write(to: site)
        let p95Badges = written.badges.filter { $0.hasSuffix("-p95.svg") }.sorted()
        #expect(p95Badges == ["badges/_.._escape-p95.svg", "badges/a_b-2-p95.svg", "badges/a_b-p95.svg"])
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("escape-p95.svg").path))
        for badge in written.badges {
            #expect(FileManager.default.fileExists(atPath: site.appendingPathComponent(badge).path))
        }
    }

    @Test func aJSONLineThatIsNoRecordIsAnErrorNamingTheFileAndLine() throws {
        let url = folder.appendingPathComponent("history.jsonl")
        try Data(
            (#"{"endpoints":{"a":{"p95":1,"passed":true}},"passed":true,"startedAt":"2026-11-22T18:00:00Z","version":1}"#
                + "\n\n"
                + #"{"endpoints":{"a":{"p95":1,"passed":"yes"}},"passed":true,"startedAt":"2026-11-22T18:05:00Z"}"#
                + "\n").utf8
        ).write(to: url)
        #expect {
            try StatusPage.build(from: HistoryFile(url: url))
        } throws: { error in
            (error as? InputError)?.description
                == "\(url.relativePath):3:1: expected a history record with /endpoints/a/passed true or false, "
                + "found string \"yes\""
        }
    }

    @Test func aFileOfNoRecordsIsAnErrorAndATornLineIsSkipped() throws {
        let url = folder.appendingPathComponent("history.jsonl")
        let history = HistoryFile(url: url)
        #expect {
            try StatusPage.build(from: history)
        } throws: { error in
            (error as? InputError)?.description
                == "\(url.relativePath): expected a history file (apiprobe run --history FILE writes one), found no such file"
        }
        try Data().write(to: url)
        #expect {
            try StatusPage.build(from: history)
        } throws: { error in
            (error as? InputError)?.description
                == "\(url.relativePath): expected at least one history line (apiprobe run --history FILE), found an empty file"
        }
        try Data("<html>\n<body>\n".utf8).write(to: url)
        #expect {
            try StatusPage.build(from: history)
        } throws: { error in
            (error as? InputError)?.position == .lineColumn(line: 1, column: 1)
        }

        // A run killed mid-write leaves half a line; the next run starts a line of its own after it.
        try Data().write(to: url)
        try history.append(StatusPageHistory.record(2))
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"endpoints":{"api":{"p95":1"#.utf8))
        try handle.close()
        try history.append(StatusPageHistory.record(1))
        try history.append(StatusPageHistory.record(0))
        let page = try StatusPage.build(from: history, options: StatusPageHistory.options)
        #expect(page.rounds == 3)
        #expect(page.damagedLines == 1)
        #expect(page.firstDamagedLines == [2])
    }
}
