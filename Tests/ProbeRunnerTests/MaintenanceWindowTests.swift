import APIProbeTestSupport
import Foundation
import HTTPFixtures
import ProbeRunner
import Testing

/// `maintenance:` windows: a round that starts inside one does not probe the endpoint, so a planned outage neither
/// fails the run, nor counts towards `downAfter`, nor alerts (Gatus' maintenance, for cron and `--every`).
@Suite(.hangGuard)
struct MaintenanceWindowTests {
    static func config(_ text: String) throws -> ProbeConfig {
        try ProbeConfig.parse(Data(text.utf8), environment: [:], file: "apiprobe.yml")
    }

    /// `2026-11-29T02:30:00Z`-style instants.
    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text)!  // literals of this file
    }

    @Test func aWindowOpensOnItsDaysInItsTimeZoneAndMayRunPastMidnight() throws {
        let probe = try Self.config(
            """
            api: shop
            baseURL: https://api.example.com
            maintenance:
              - {start: "23:30", duration: 1h}
            endpoints:
              - {name: health, path: /health}
              - name: orders
                path: /orders
                maintenance: [{start: "02:00", duration: 2h, every: [sun, Monday], timezone: Europe/Berlin}]
            """)
        let health = try #require(probe.endpoints.first)
        let orders = try #require(probe.endpoints.last)
        #expect(probe.maintenance.map(\.description) == ["23:30 for 1h every day (UTC)"])
        #expect(orders.maintenance.map(\.description) == ["02:00 for 2h on sun, mon (Europe/Berlin)"])

        // Every day from 23:30 UTC for an hour, across midnight.
        #expect(probe.maintenanceEnd(of: health, at: Self.date("2026-11-25T23:29:59Z")) == nil)
        #expect(
            probe.maintenanceEnd(of: health, at: Self.date("2026-11-25T23:30:00Z"))
                == Self.date("2026-11-26T00:30:00Z"))
        #expect(
            probe.maintenanceEnd(of: health, at: Self.date("2026-11-26T00:29:00Z"))
                == Self.date("2026-11-26T00:30:00Z"))
        #expect(probe.maintenanceEnd(of: health, at: Self.date("2026-11-26T00:30:00Z")) == nil)

        // Sundays and Mondays, 02:00 to 04:00 in Berlin (UTC+1 in November): 01:00 to 03:00 UTC.
        #expect(
            probe.maintenanceEnd(of: orders, at: Self.date("2026-11-29T01:30:00Z"))  // a Sunday
                == Self.date("2026-11-29T03:00:00Z"))
        #expect(
            probe.maintenanceEnd(of: orders, at: Self.date("2026-11-30T02:59:00Z"))  // a Monday
                == Self.date("2026-11-30T03:00:00Z"))
        #expect(probe.maintenanceEnd(of: orders, at: Self.date("2026-12-01T01:30:00Z")) == nil)  // a Tuesday
        #expect(probe.maintenanceEnd(of: orders, at: Self.date("2026-11-29T03:00:00Z")) == nil)
        // In summer time (UTC+2) the same window is 00:00 to 02:00 UTC.
        #expect(
            probe.maintenanceEnd(of: orders, at: Self.date("2026-06-07T00:30:00Z"))
                == Self.date("2026-06-07T02:00:00Z"))
        // The config's own window applies to every endpoint, the endpoint's beside it.
        #expect(
            probe.maintenanceEnd(of: orders, at: Self.date("2026-12-01T23:45:00Z"))
                == Self.date("2026-12-02T00:30:00Z"))
    }

    @Test func aRoundInsideAWindowLeavesTheEndpointAloneUnlessOnlyNamesIt() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 503, headers: [:], body: "down for maintenance") }
        defer { api.stop() }
        let probe = try Self.config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            endpoints:
              - {name: health, path: /health}
              - name: orders
                path: /orders
                maintenance: [{start: "01:00", duration: 2h}]
            """)
        var session = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory))
        let inside = Self.date("2026-11-26T01:30:00Z")
        #expect(try session.dueEndpoints(at: inside) == ["health"])
        #expect(session.inMaintenance(at: inside).map(\.name) == ["orders"])
        #expect(session.inMaintenance(at: inside).map(\.until) == [Self.date("2026-11-26T03:00:00Z")])
        let round = try await session.round(endpoints: session.dueEndpoints(at: inside))
        #expect(round.result.endpoints.map(\.name) == ["health"])
        #expect(!api.requests.contains { $0.path == "/orders" })
        #expect(session.consecutiveFailures["orders"] == nil)

        let outside = Self.date("2026-11-26T03:00:00Z")
        #expect(try session.dueEndpoints(at: outside) == ["health", "orders"])
        #expect(session.inMaintenance(at: outside).isEmpty)

        // --only probes what it names, maintenance or not.
        var asked = ProbeSession(
            runner: ProbeRunner(config: probe, directory: FileManager.default.temporaryDirectory), only: ["orders"])
        #expect(try asked.dueEndpoints(at: inside) == ["orders"])
        #expect(asked.inMaintenance(at: inside).isEmpty)
    }

    /// A manual `--only` run inside a window probes what it names and shows it, but keeps nothing of it: no
    /// history line (so no uptime lost on the status page), no counters, no "down" queued (issue 38, item 4).
    /// Before, it was recorded like any round: a "down" in the outbox and the status page at 0.00%.
    @Test(.temporaryFolder) func anOnlyRunInsideAWindowIsShownButNotRecorded() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 503, headers: [:], body: "down for maintenance") }
        defer { api.stop() }
        let folder = try TemporaryFolder.make("maintenance-only")
        let probe = try Self.config(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 1
            alerts: [{webhook: "http://127.0.0.1:1/hook"}]
            endpoints:
              - {name: health, path: /health}
              - name: orders
                path: /orders
                maintenance: [{start: "01:00", duration: 2h}]
            """)
        var runner = ProbeRunner(config: probe, directory: folder)
        runner.now = { Self.date("2026-11-26T01:30:00Z") }
        let history = folder.appendingPathComponent("history.jsonl")
        var session = ProbeSession(runner: runner, only: ["orders", "health"], history: HistoryFile(url: history))
        let round = try await session.round()
        #expect(round.result.endpoints.map(\.name).sorted() == ["health", "orders"], "shown")
        #expect(api.requests.contains { $0.path == "/orders" }, "probed")
        #expect(
            round.warnings.contains { $0.hasPrefix("orders is in a maintenance window until 2026-11-26T03:00:00Z") })
        let written = try HistoryFile(url: history).read(last: 10).records
        #expect(written.count == 1)
        #expect(written.first?.endpoints.keys.sorted() == ["health"], "orders not recorded")
        // The outbox beside the history (`history.outbox.json`): the alerts the receiver has not taken.
        let outbox = try String(contentsOf: folder.appendingPathComponent("history.outbox.json"), encoding: .utf8)
        #expect(outbox.contains("health"), "health's down is queued (the receiver is down)")
        #expect(!outbox.contains("orders"), "\(outbox)")
    }

    @Test(arguments: [
        (
            #"[{start: "2:00", duration: 1h}]"#,
            "maintenance[0].start: expected a time of day, HH:MM from 00:00 to 23:59"
        ),
        (
            #"[{start: "24:00", duration: 1h}]"#,
            "maintenance[0].start: expected a time of day, HH:MM from 00:00 to 23:59"
        ),
        (#"[{start: "02:00", duration: 30s}]"#, "maintenance[0].duration: expected a duration from 1m to 7d (168h)"),
        (#"[{start: "02:00"}]"#, "maintenance[0].duration: expected a duration (2h), found none"),
        (
            #"[{start: "02:00", duration: 1h, every: [someday]}]"#,
            "maintenance[0].every[0]: expected a day: mon, tue, wed, thu, fri, sat or sun"
        ),
        (
            #"[{start: "02:00", duration: 1h, timezone: Mars/Olympus}]"#,
            "maintenance[0].timezone: expected a time zone name of the IANA database (UTC, Europe/Berlin)"
        ),
        (#"[{start: "02:00", duration: 1h, weekly: true}]"#, "maintenance[0].weekly"),
    ])
    func aBadWindowIsAnErrorNamingThePlace(windows: String, message: String) {
        let error = #expect(throws: InputError.self) {
            try Self.config(
                """
                api: shop
                baseURL: https://api.example.com
                maintenance: \(windows)
                endpoints:
                  - {name: health, path: /health}
                """)
        }
        #expect(error?.description.contains("apiprobe.yml:3:") == true, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }
}
