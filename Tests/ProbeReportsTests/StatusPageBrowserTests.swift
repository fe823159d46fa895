import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeReports
import ProbeRunner
import ProbeTestSupport
import Testing

/// The generated page in a real browser: Debian's headless Chromium loads it from disk (no JavaScript on the
/// page, no network), and the numbers in the DOM it renders are the ones worked out from the history.
@Suite(.tags(.outsideTools), .hangGuard, .temporaryFolder)
struct StatusPageBrowserTests {
    static var chromium: URL? { ExternalTools.find("chromium") ?? ExternalTools.find("chromium-browser") }

    /// Runs Chromium headless under `timeout` (so a hung browser ends the test instead of holding it), with a
    /// profile of its own.
    static func runChromium(_ chromium: URL, _ arguments: [String], profile: URL) async throws -> CommandResult {
        let timeout = ExternalTools.find("timeout") ?? URL(fileURLWithPath: "/usr/bin/timeout")
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = profile.path
        return try await CommandLineRunner.runProcess(
            timeout,
            [
                "120", chromium.path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--user-data-dir=\(profile.path)",
            ] + arguments,
            environment: environment)
    }

    /// The text of the element that follows `marker` in `dom` (up to the next tag), trimmed.
    static func cell(_ dom: Substring, after marker: String) -> String? {
        guard let start = dom.range(of: marker) else { return nil }
        let rest = dom[start.upperBound...]
        guard let close = rest.firstIndex(of: ">") else { return nil }
        let text = rest[rest.index(after: close)...].prefix { $0 != "<" }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The part of `dom` from `marker` to the end of its table row.
    static func row(_ dom: String, _ marker: String) -> Substring? {
        guard let start = dom.range(of: marker) else { return nil }
        let end = dom[start.upperBound...].range(of: "</tr>")?.lowerBound ?? dom.endIndex
        return dom[start.lowerBound..<end]
    }

    @Test func chromiumShowsTheNumbersOfTheHistory() async throws {
        guard let chromium = Self.chromium else {
            ExternalTools.recordMissing("chromium", package: "chromium", brewFormula: "--cask chromium")
            return
        }
        let folder = try TemporaryFolder.make("status-page-browser")
        let history = try StatusPageHistory.write(into: folder)
        let page = try StatusPage.build(from: history, options: StatusPageHistory.options)
        let site = folder.appendingPathComponent("site")
        let written = try StatusPageWriter(page: page).write(to: site)
        let index = site.appendingPathComponent("index.html")

        let dumped = try await Self.runChromium(
            chromium, ["--dump-dom", index.absoluteString], profile: folder.appendingPathComponent("profile"))
        #expect(dumped.status == 0, "\(dumped)")
        let dom = dumped.standardOutput
        #expect(dom.contains("<table id=\"uptime\">"), "not the rendered page:\n\(dom.prefix(2_000))")

        // The uptime table: each endpoint's cells and the overall row, as worked out by hand.
        for (name, marker) in [
            ("api", "<tr data-endpoint=\"api\">"), ("cart", "<tr data-endpoint=\"cart\">"),
            ("all", "<tr data-overall=\"true\""),
        ] {
            let tableRow = try #require(Self.row(dom, marker), "no row \(marker)")
            for window in StatusPage.Window.allCases {
                #expect(
                    Self.cell(tableRow, after: "data-field=\"uptime-\(window.label)\"")
                        == StatusPageHistory.uptime[name]?[window.label], "\(name) \(window.label)")
            }
        }
        let apiRow = try #require(Self.row(dom, "<tr data-endpoint=\"api\">"))
        #expect(Self.cell(apiRow, after: "data-field=\"p50\"") == "21.5 ms")
        #expect(Self.cell(apiRow, after: "data-field=\"p95\"") == "63.7 ms")
        let cartRow = try #require(Self.row(dom, "<tr data-endpoint=\"cart\">"))
        #expect(cartRow.contains("data-state=\"down\""))
        #expect(Self.cell(dom[...], after: "id=\"overall-state\"") == "Partial outage")

        // Incidents: newest first, with the durations and failure categories of the history.
        let incidentRows = dom.components(separatedBy: "<tr data-incident=").dropFirst()
        #expect(incidentRows.count == 4)
        let durations = incidentRows.map { Self.cell($0[...], after: "data-field=\"duration\"") }
        #expect(durations == ["2 h", "5 h", "3 h", "2 h"])
        #expect(
            incidentRows.map { Self.cell($0[...], after: "data-field=\"failures\"") }
                == ["timeout", "refused, timeout", "http-status", "http-status"])
        #expect(incidentRows.first?.contains("ongoing") == true)
        #expect(
            Self.cell(incidentRows.first?[...] ?? "", after: "data-field=\"start\"><time") == "2026-11-22 16:00 UTC")

        // The chart's data table: the newest bucket of api holds what the model computed.
        let apiChart = try #require(page.endpoints.first { $0.name == "api" }?.chart.last)
        let chartTable = try #require(dom.range(of: "<table class=\"chart-data\" data-endpoint=\"api\">"))
        let lastRow = try #require(
            dom[chartTable.lowerBound...].range(of: "</tbody>").map { dom[chartTable.lowerBound..<$0.lowerBound] }?
                .components(separatedBy: "<tr>").last)
        #expect(
            Self.cell(lastRow[...], after: "data-field=\"p95\"") == StatusPageText.milliseconds(apiChart.latency.p95))
        #expect(Self.cell(lastRow[...], after: "data-field=\"rounds\"") == String(apiChart.latency.rounds))
        #expect(dom.contains("<svg class=\"chart\" id=\"chart-0\""))
        #expect(dom.contains("<title id=\"chart-0-title\">Latency of api</title>"))

        // Nothing secret reached the rendered page.
        #expect(!dom.contains(StatusPageHistory.secret))

        // Every badge is well-formed SVG and says what the table says.
        for path in written.badges {
            let reader = try #require(
                BadgeReader.read(try Data(contentsOf: site.appendingPathComponent(path))), "\(path) is not XML")
            #expect(reader.rootName == "svg")
            #expect(reader.texts.count == 2)
            #expect(reader.title == reader.texts.joined(separator: ": "))
        }
        for (name, prefix) in [("api", "api-"), ("cart", "cart-"), ("all", "")] {
            for window in StatusPage.Window.allCases {
                let reader = try #require(
                    BadgeReader.read(
                        try Data(contentsOf: site.appendingPathComponent("badges/\(prefix)uptime-\(window.label).svg")))
                )
                #expect(reader.texts.last == StatusPageHistory.uptime[name]?[window.label])
            }
        }
        let apiP95 = try #require(
            BadgeReader.read(try Data(contentsOf: site.appendingPathComponent("badges/api-p95.svg"))))
        #expect(apiP95.texts == ["api p95 24h", "63.7 ms"])

        // A screenshot of the page as a reader sees it: a PNG of the window's size.
        let screenshot = folder.appendingPathComponent("status-page.png")
        let shot = try await Self.runChromium(
            chromium, ["--screenshot=\(screenshot.path)", "--window-size=1100,1400", index.absoluteString],
            profile: folder.appendingPathComponent("profile"))
        #expect(shot.status == 0, "\(shot)")
        let png = try Data(contentsOf: screenshot)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        let width = png.dropFirst(16).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let height = png.dropFirst(20).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1100 && height == 1400)
        if let keep = ProcessInfo.processInfo.environment["APIPROBE_SCREENSHOT"] {
            try png.write(to: URL(fileURLWithPath: keep))
        }
    }
}
