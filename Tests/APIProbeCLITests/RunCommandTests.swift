import APIProbeShared
import APIProbeTestSupport
import Foundation
import HTTPFixtures
import RecipesServer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `apiprobe run` and `apiprobe init`, as the built binary, against the recipes server on loopback.
@Suite(
    "apiprobe run and init", .tags(.commandLine, .outsideTools), .serialized, .hangGuard, .temporaryFolder)
struct RunCommandTests {
    /// The alerts waiting in an outbox file (which stays, with the endpoints' alert states, once written).
    func waitingAlerts(in outbox: URL) throws -> Int {
        guard case .array(let alerts)? = try JSONValue(parsing: Data(contentsOf: outbox))["alerts"] else { return -1 }
        return alerts.count
    }

    func writeConfig(_ text: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("apiprobe.yml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func config(port: Int, expect: String = "{status: 200, body: [/count > 0]}") -> String {
        """
        api: recipes
        baseURL: http://127.0.0.1:\(port)
        endpoints:
          - name: search
            path: /api/search
            query: {q: chicken}
            samples: 2
            expect: \(expect)
          - name: health
            path: /api/health
        """
    }

    @Test func passingRunExitsZeroAndWritesTheJSONReportFile() async throws {
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            let config = try writeConfig(config(port: server.port), in: directory)
            let reportPath = directory.appendingPathComponent("out/report.json").path
            let summaryPath = directory.appendingPathComponent("summary.md").path
            let result = try await CommandLineRunner.run(
                ["run", "--config", config, "--report", "json=\(reportPath)", "--report", "console"],
                environment: ["GITHUB_STEP_SUMMARY": summaryPath])
            #expect(result.status == 0, "\(result)")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath)))
            let object = try #require(report as? [String: Any])
            #expect(object["passed"] as? Bool == true)
            #expect((object["endpoints"] as? [Any])?.count == 2)
            #expect(result.standardOutput.contains("search"))
            let summary = try String(contentsOfFile: summaryPath, encoding: .utf8)
            #expect(summary.contains("search"))
        }
    }

    /// An endpoint inside its maintenance window is not probed: its 404 neither fails the run nor counts towards
    /// down; the run says which endpoints it left alone and until when. `--only` probes it all the same.
    @Test func anEndpointInMaintenanceIsLeftAloneAndSaidSo() async throws {
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let opened = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(-600))
            let start = String(format: "%02d:%02d", opened.hour ?? 0, opened.minute ?? 0)
            let config = try writeConfig(
                """
                api: recipes
                baseURL: http://127.0.0.1:\(server.port)
                endpoints:
                  - {name: health, path: /api/health}
                  - name: migrating
                    path: /api/not-there-during-the-migration
                    maintenance: [{start: "\(start)", duration: 1h}]
                """, in: directory)
            let history = directory.appendingPathComponent("history.jsonl").path
            let result = try await CommandLineRunner.run(["run", "--config", config, "--history", history])
            #expect(result.status == 0, "\(result)")
            #expect(result.standardError.contains("in maintenance, not probed: migrating (until "), "\(result)")
            #expect(
                result.standardOutput.contains("1 endpoint: 1 passed, 0 failed, 1 in maintenance (not probed) in "),
                "\(result)")
            let line = try String(contentsOfFile: history, encoding: .utf8)
            #expect(!line.contains("migrating"))

            let asked = try await CommandLineRunner.run(["run", "--config", config, "--only", "migrating"])
            #expect(asked.status == 1, "\(asked)")
            #expect(!asked.standardError.contains("in maintenance"))
            #expect(!asked.standardOutput.contains("in maintenance"))
        }
    }

    /// A container runs the probe as a user that is not root (the image's 65532). The client asked for
    /// TCP_NODELAY at the socket level, SO_DEBUG, which only root may set: every request failed with "Permission
    /// denied". Runs where the tests run as root (CI); elsewhere it cannot change user, and says so.
    @Test func aUserOtherThanRootProbes() async throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            TestEnvironment.recordMissing(
                "not root, or no setpriv (util-linux): the probe as another user is checked under CI")
            return
        }
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            let config = try writeConfig(config(port: server.port), in: directory)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config)
            let result = try await CommandLineRunner.runProcess(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                [
                    "--reuid", "65532", "--regid", "65532", "--clear-groups", CommandLineRunner.executable.path,
                    "run", "--config", config,
                ],
                environment: ["NO_COLOR": "1", "PATH": "/usr/bin:/bin"], in: directory)
            #expect(result.status == 0, "\(result)")
            #expect(!result.standardOutput.contains("Permission denied"), "\(result)")
            #expect(result.standardOutput.contains("2 endpoints: 2 passed, 0 failed"), "\(result)")
        }
    }

    /// A cron job runs `apiprobe run --history` every few minutes; an endpoint with `interval: 1h` is probed in
    /// the first run only, and a run with nothing due says so and passes.
    @Test func anEndpointWithAnIntervalIsProbedOnlyWhenDue() async throws {
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            let config = try writeConfig(
                """
                api: recipes
                baseURL: http://127.0.0.1:\(server.port)
                endpoints:
                  - {name: health, path: /api/health, interval: 1h}
                """, in: directory)
            let history = directory.appendingPathComponent("history.jsonl").path
            let first = try await CommandLineRunner.run(
                ["run", "--config", config, "--history", history, "--report", "json"])
            #expect(first.status == 0, "\(first)")
            #expect(first.standardOutput.contains(#""name": "health""#), "\(first)")
            let second = try await CommandLineRunner.run(
                ["run", "--config", config, "--history", history, "--report", "json"])
            #expect(second.status == 0, "\(second)")
            #expect(second.standardOutput.isEmpty, "\(second)")
            #expect(
                second.standardError
                    == "apiprobe run: no endpoint is due: each has an interval that has not passed since its last probe in \(history)\n"
            )
            let lines = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 1)
        }
    }

    /// Cron starts `apiprobe run` anew each time; an alert receiver that is down (503) when the endpoint goes down
    /// hears of the outage when it is back, then of the recovery, in that order: the alerts wait in the outbox
    /// beside the history between processes.
    @Test func anUndeliveredAlertWaitsBesideTheHistoryAcrossCronRuns() async throws {
        let healthy = Locked(false)
        let receiverUp = Locked(false)
        let api = try RawHTTPServer { _ in
            .respond(status: healthy.withLock { $0 } ? 200 : 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in
            .respond(status: receiverUp.withLock { $0 } ? 200 : 503, headers: [:], body: "")
        }
        defer { receiver.stop() }
        let directory = try TemporaryFolder.make()
        let config = try writeConfig(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 2
            alerts:
              - webhook: \(receiver.baseURL.absoluteString)/hook
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """, in: directory)
        let history = directory.appendingPathComponent("history.jsonl").path
        func cronRun() async throws -> CommandResult {
            try await CommandLineRunner.run(["run", "--config", config, "--history", history])
        }
        func posted() -> [String] { receiver.posted("state") }
        _ = try await cronRun()
        let down = try await cronRun()
        #expect(down.status == 1)
        #expect(
            down.standardError.contains("the receiver answered 503; 1 alert kept in ")
                && down.standardError.contains("history.outbox.json and sent again next round"), "\(down)")
        healthy.withLock { $0 = true }
        let recovered = try await cronRun()
        #expect(recovered.status == 0, "\(recovered)")
        #expect(recovered.standardError.contains("2 alerts kept in "), "\(recovered)")
        #expect(Set(posted()) == ["down"], "the recovery never goes before the down alert")
        receiverUp.withLock { $0 = true }
        let delivered = try await cronRun()
        #expect(delivered.status == 0 && !delivered.standardError.contains("alert"), "\(delivered)")
        #expect(posted().suffix(2) == ["down", "recovered"])
        #expect(try waitingAlerts(in: directory.appendingPathComponent("history.outbox.json")) == 0)
    }

    /// Eight `apiprobe run` processes at once on one history (cron runs that overlap, a CronJob beside a
    /// Deployment): the transitions are decided one run at a time under the outbox file's lock, so the receiver
    /// hears one "down" for the outage (it is down itself at first: the alert waits) and one "recovered".
    @Test func eightOverlappingRunsSendOneDownAndOneRecovered() async throws {
        let healthy = Locked(false)
        let receiverUp = Locked(false)
        let api = try RawHTTPServer { _ in
            .respond(status: healthy.withLock { $0 } ? 200 : 500, headers: [:], body: "{}")
        }
        defer { api.stop() }
        let receiver = try RawHTTPServer { _ in
            .respond(status: receiverUp.withLock { $0 } ? 200 : 503, headers: [:], body: "")
        }
        defer { receiver.stop() }
        let directory = try TemporaryFolder.make()
        let config = try writeConfig(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            downAfter: 1
            successThreshold: 1
            # What is tested is the alerts of eight overlapping runs, not their latency: a round slowed by a busy
            # machine (a 36 ms connect against a median of 3 ms) is not a regression here.
            regression: {minimumSlowdown: 10s}
            alerts:
              - webhook: \(receiver.baseURL.absoluteString)/hook
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """, in: directory)
        let history = directory.appendingPathComponent("history.jsonl").path
        func eightAtOnce() async throws -> [CommandResult] {
            try await withThrowingTaskGroup(of: CommandResult.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await CommandLineRunner.run(["run", "--config", config, "--history", history])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Down, with the receiver down: every try answered 503, one alert kept.
        let down = try await eightAtOnce()
        #expect(down.allSatisfy { $0.status == 1 }, "\(down)")
        let outbox = try String(
            contentsOf: directory.appendingPathComponent("history.outbox.json"), encoding: .utf8)
        #expect(outbox.components(separatedBy: #""state":"down""#).count - 1 == 1, "\(outbox)")
        // The receiver is back, the endpoint still down: the one waiting "down" is delivered, no other.
        receiverUp.withLock { $0 = true }
        let before = receiver.posted("state").count
        _ = try await eightAtOnce()
        // Recovered: one "recovered".
        healthy.withLock { $0 = true }
        let recovered = try await eightAtOnce()
        #expect(recovered.allSatisfy { $0.status == 0 }, "\(recovered)")
        _ = try await eightAtOnce()
        #expect(Array(receiver.posted("state").dropFirst(before)) == ["down", "recovered"])
        #expect(try waitingAlerts(in: directory.appendingPathComponent("history.outbox.json")) == 0)
        let rounds = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n").count
        #expect(rounds == 32)
    }

    /// `history: {maxSize}` with eight runs at once: the file is pruned (replaced) while others wait to append,
    /// and no round is lost or torn (an appender that waited appends to the new file); the counters beside the
    /// history count every round, pruned or not.
    @Test func pruningWhileEightRunsAppendLosesNoRound() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let directory = try TemporaryFolder.make()
        let config = try writeConfig(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            history: {maxSize: 64KiB}
            endpoints:
              - {name: cart, path: /cart, expect: {status: 200}}
            """, in: directory)
        let historyURL = directory.appendingPathComponent("history.jsonl")
        // About 300 KB of rounds from 2020: far above the limit. Without a measured p95, so that a round slowed by
        // a busy machine is not judged a latency regression against them.
        let old = (0..<3_000).map { index in
            #"{"endpoints":{"cart":{"p95":null,"passed":true}},"passed":true,"startedAt":""#
                + DisplayText.timestamp(Date(timeIntervalSince1970: 1_600_000_000 + Double(index))) + #"","version":1}"#
        }
        try Data((old.joined(separator: "\n") + "\n").utf8).write(to: historyURL)
        let results = try await withThrowingTaskGroup(of: CommandResult.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await CommandLineRunner.run(["run", "--config", config, "--history", historyURL.path])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
        // Every line a whole round; the eight new ones all there.
        let lines = try String(contentsOf: historyURL, encoding: .utf8).split(separator: "\n")
        let rounds = lines.map { try? JSONValue(parsing: Data($0.utf8)) }
        #expect(rounds.allSatisfy { $0?["passed"] == .bool(true) })
        #expect(rounds.filter { !($0?["startedAt"].map { "\($0)" } ?? "").contains("2020-") }.count == 8)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: historyURL.path)[.size] as? Int)
        #expect(size <= 64 << 10)
        let totals = try JSONValue(
            parsing: Data(contentsOf: directory.appendingPathComponent("history.totals.json")))
        #expect(totals["endpoints"]?["cart"]?["codes"]?["200"] == .number("8"))
    }

    /// `run --dry-run` checks the config and prints the plan with its variables resolved and masked, and sends
    /// nothing: no request reaches the API, and no alert the receiver.
    @Test func dryRunPrintsThePlanMaskedAndSendsNothing() async throws {
        let api = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { api.stop() }
        let directory = try TemporaryFolder.make()
        let config = try writeConfig(
            """
            api: shop
            baseURL: \(api.baseURL.absoluteString)
            concurrency: 2
            alerts:
              - slack: https://hooks.example.com/services/${HOOK}
            endpoints:
              - name: cart
                path: /cart
                query: {key: "${TOKEN}"}
                headers: {Authorization: "Bearer ${TOKEN}"}
                samples: 3
                expect: {status: 200, body: [/items exists], latency: [p95 < 300ms]}
              - {name: health, path: /health, interval: 5m}
            """, in: directory)
        let secrets = ["TOKEN": "tok-planted-5150", "HOOK": "T000/B000/hook-planted-7"]
        let result = try await CommandLineRunner.run(
            ["run", "--config", config, "--dry-run", "--every", "30s"], environment: secrets)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.standardOutput == """
                \(config): 2 endpoints, concurrency 2, deadline 5m, down after 1 failed round
                  cart    GET \(api.baseURL.absoluteString)/cart?key=REDACTED
                          3 samples, timeout 10s, every round; status 200, 1 body condition, latency p95 < 300ms; sends Authorization
                  health  GET \(api.baseURL.absoluteString)/health
                          1 sample, timeout 10s, every 5m; status 200-299
                alerts: slack hooks.example.com
                reports: console; a round every 30s
                nothing sent (--dry-run)

                """, "\(result)")
        #expect(!(result.standardOutput + result.standardError).contains("planted"))
        #expect(api.requestCount == 0)

        let bad = try await CommandLineRunner.run(["run", "--config", config, "--dry-run"])
        #expect(bad.status == 2, "an unset variable is still an error: \(bad)")
    }

    @Test func aFailedCheckExitsOne() async throws {
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            let config = try writeConfig(config(port: server.port, expect: "{body: [/count > 1000]}"), in: directory)
            let result = try await CommandLineRunner.run(["run", "--config", config])
            #expect(result.status == 1, "\(result)")
            let only = try await CommandLineRunner.run(["run", "--config", config, "--only", "health"])
            #expect(only.status == 0, "\(only)")
        }
    }

    @Test func aBadConfigExitsTwoNamingFileLineAndKey() async throws {
        let directory = try TemporaryFolder.make()
        let config = try writeConfig(
            "api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - name: a\n    path: /a\n    timeout: soon\n",
            in: directory)
        let result = try await CommandLineRunner.run(["run", "--config", config])
        #expect(result.status == 2)
        #expect(
            result.standardError.contains("apiprobe.yml:6:14: endpoints.a.timeout: expected a duration"), "\(result)")
        let missing = try await CommandLineRunner.run([
            "run", "--config", directory.appendingPathComponent("none.yml").path,
        ])
        #expect(missing.status == 2)
        let badReport = try await CommandLineRunner.run(["run", "--config", config, "--report", "pdf"])
        #expect(badReport.status == 2)
        #expect(
            badReport.standardError.hasPrefix(
                "Error: The value 'pdf' is invalid for '--report <report>': expected KIND or KIND=PATH with KIND one of console, json, junit, markdown, prometheus"
            ), "\(badReport)")
        let badLabel = try await CommandLineRunner.run(
            ["run", "--config", config, "--push-gateway", "http://127.0.0.1:1", "--push-label", "job=x"])
        #expect(badLabel.status == 2)
        #expect(
            badLabel.standardError.hasPrefix(
                "Error: The value 'job=x' is invalid for '--push-label <key=value>': expected key=value with a name matching [a-zA-Z_][a-zA-Z0-9_]*, not job and not starting with __"
            ), "\(badLabel)")
        let badEvery = try await CommandLineRunner.run(["run", "--config", config, "--every", "0s"])
        #expect(badEvery.status == 2)
        #expect(
            badEvery.standardError.hasPrefix(
                "Error: The value '0s' is invalid for '--every <every>': expected a positive duration such as 30s, 5m or 1h"
            ),
            "\(badEvery)")
        let badOnly = try await CommandLineRunner.run(["run", "--config", config, "--only", "nope"])
        #expect(badOnly.status == 2)
    }

    @Test func theShippedConfigParses() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try await RecipesServer.with { server in
            let result = try await CommandLineRunner.run(
                ["run", "--config", root.appendingPathComponent("apiprobe.yml").path, "--report", "console"],
                environment: ["RECIPES_PORT": String(server.port)])
            // The snapshots it names are committed (Snapshots/recipes): every check holds against the server.
            #expect(result.status == 0, "\(result)")
            #expect(!result.standardError.contains("apiprobe.yml:"), "\(result)")
        }
    }

    @Test func initWritesAStarterConfigAndRefusesToOverwrite() async throws {
        let directory = try TemporaryFolder.make()
        let first = try await CommandLineRunner.run(["init"], in: directory)
        #expect(first.status == 0, "\(first)")
        let path = directory.appendingPathComponent("apiprobe.yml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("endpoints:"))
        let second = try await CommandLineRunner.run(["init"], in: directory)
        #expect(second.status == 2)
        #expect(second.standardError.contains("--force"))
        let forced = try await CommandLineRunner.run(["init", "--force", "--path", "other.yml"], in: directory)
        #expect(forced.status == 0)

        // The template is a valid config: against a live server it runs (its schema snapshot is missing,
        // so a check fails: 1, not 2).
        try await RecipesServer.with { server in
            let run = try await CommandLineRunner.run(
                ["run", "--config", path], environment: ["RECIPES_PORT": String(server.port)], in: directory)
            #expect(run.status == 1, "\(run)")
            #expect(run.standardError.isEmpty || !run.standardError.contains("expected"), "\(run)")
        }
    }

    /// SIGHUP reads the config again between rounds (it ended the process with status 129); a config that no
    /// longer reads keeps the one before, says why, and the process goes on.
    @Test func sighupReloadsTheConfigBetweenRounds() async throws {
        try await RecipesServer.with { server in
            let directory = try TemporaryFolder.make()
            let one = """
                api: recipes
                baseURL: http://127.0.0.1:\(server.port)
                endpoints:
                  - {name: health, path: /api/health}
                """
            let config = try writeConfig(one, in: directory)
            let reportPath = directory.appendingPathComponent("report.json").path
            let errorLog = directory.appendingPathComponent("stderr.txt")
            _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
            let process = Process()
            process.executableURL = CommandLineRunner.executable
            process.arguments = ["run", "--config", config, "--every", "100ms", "--report", "json=\(reportPath)"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: errorLog)
            process.standardInput = FileHandle.nullDevice
            try process.run()
            ChildProcesses.started(process)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            func endpoints() -> Int? {
                guard let data = FileManager.default.contents(atPath: reportPath),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
                else { return nil }
                return (object["endpoints"] as? [Any])?.count
            }
            func waitFor(_ condition: () -> Bool) async throws -> Bool {
                for _ in 0..<400 where process.isRunning {
                    if condition() { return true }
                    try await Task.sleep(for: .milliseconds(25))
                }
                return condition()
            }
            #expect(try await waitFor { endpoints() == 1 })
            _ = try writeConfig(one + "\n  - {name: search, path: /api/search, query: {q: soup}}\n", in: directory)
            kill(process.processIdentifier, SIGHUP)
            #expect(try await waitFor { endpoints() == 2 }, "the next round probes the new config")
            func log() -> String { (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "" }
            #expect(log().contains("apiprobe run: SIGHUP: reloaded \(config) (2 endpoints)"), "\(log())")

            _ = try writeConfig("api: recipes\nendpoints: [{name: x}]\n", in: directory)
            kill(process.processIdentifier, SIGHUP)
            #expect(try await waitFor { log().contains("kept the config loaded before") }, "\(log())")
            #expect(log().contains("apiprobe run: warning: SIGHUP: \(config):2:"), "\(log())")
            try await Task.sleep(for: .milliseconds(300))
            #expect(process.isRunning && endpoints() == 2)
            kill(process.processIdentifier, SIGTERM)
            #expect(await CommandLineRunner.waitForExit(process) == 0)
        }
    }

    @Test func sigtermDuringEveryFinishesTheRoundAndExitsZero() async throws {
        try await RecipesServer.with(.init(latency: .fixed(.milliseconds(400)))) { server in
            let directory = try TemporaryFolder.make()
            let config = try writeConfig(config(port: server.port, expect: "{body: [/count > 1000]}"), in: directory)
            let reportPath = directory.appendingPathComponent("report.json").path
            let historyPath = directory.appendingPathComponent("history.jsonl").path
            let process = Process()
            process.executableURL = CommandLineRunner.executable
            process.arguments = [
                "run", "--config", config, "--every", "200ms", "--report", "json=\(reportPath)",
                "--history", historyPath,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            try process.run()
            ChildProcesses.started(process)
            // A round is two searches (counted by the server on arrival, answered 400 ms later) and a health
            // check. Signal once the second round's first search has arrived: a round is in flight then,
            // whatever the machine's load, and no wall-clock guess decides it.
            while server.knobs.requestsReceived < 3 && process.isRunning {
                try await Task.sleep(for: .milliseconds(5))
            }
            kill(process.processIdentifier, SIGTERM)
            let status = await CommandLineRunner.waitForExit(process)
            // Exit 0 even though checks failed, and every round that had started was finished: one history
            // line for each, the last report written.
            #expect(status == 0)
            #expect(process.terminationReason == .exit)
            let roundsStarted = (server.knobs.requestsReceived + 1) / 2
            let lines = try String(contentsOfFile: historyPath, encoding: .utf8).split(separator: "\n")
            #expect(roundsStarted >= 2)
            #expect(lines.count == roundsStarted)
            #expect(FileManager.default.fileExists(atPath: reportPath))
        }
    }
}
