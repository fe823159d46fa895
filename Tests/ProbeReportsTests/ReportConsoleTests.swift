import Foundation
import ProbeReports
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite struct ReportConsoleTests {
    @Test func tableListsEveryEndpointThenWhatFailedAndASummary() {
        let text = Report.render(SampleRuns.mixed, as: .console)
        #expect(
            text == """
                   endpoint  samples  status       p50 ms  p95 ms  p99 ms  max ms  errors  retries  limited
                ✗  search          5  200×5          12.5    15.8    16.0    16.0       0        0        0
                ✗  detail          5  200×3 503×2    20.0    24.5    24.9    25.0       0        0        2
                     GET http://127.0.0.1:8080/api/get?rId=35382
                     ✗ status 200-299: 2 of 5 samples answered 503 [http-status]
                     ✗ schema Snapshots/recipes/get.schema.json: 1 breaking change [schema-drift]
                       breaking /recipe/social_rank type-changed: number → string
                       info /recipe/rating added: integer
                ✗  offline         3  -                 -       -       -       -       3        6        0
                     POST http://127.0.0.1:9/api/ping
                     ✗ reachable: connection refused by 127.0.0.1:9 [refused]
                     down: 3 failed rounds in a row

                Regressions:
                  ✗ search: p95 15.8 ms is 2.11× the median 7.5 ms of the last 10 runs (limit 1.5×)

                3 endpoints: 0 passed, 3 failed, 1 regression in 1.23 s

                """
        )
    }

    /// A regressed endpoint's row is not ✓ in a run that fails because of it (its checks held; its latency did
    /// not), and it counts as failed.
    @Test func aRegressedEndpointIsNotMarkedPassed() {
        var run = SampleRuns.green
        run.regressions = SampleRuns.mixed.regressions
        let text = Report.render(run, as: .console)
        #expect(text.contains("✗  search"), "\(text)")
        #expect(!text.contains("✓"), "\(text)")
        #expect(text.contains("1 endpoint: 0 passed, 1 failed, 1 regression"), "\(text)")
        #expect(Report.render(run, as: .markdown).contains("| ❌ | search |"))
    }

    @Test func colouredOutputKeepsTheSameColumnsAsPlainOutput() {
        var run = SampleRuns.mixed
        run.regressions = []  // a row of each mark
        let plain = Report.render(run, as: .console)
        let coloured = Report.render(run, as: .console, options: ReportOptions(usesColor: true))
        #expect(coloured.contains("\u{1B}[32m✓\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[31m✗\u{1B}[0m"))
        #expect(coloured != plain)
        #expect(Self.strippingANSI(coloured) == plain)
    }

    @Test func passingRunEndsInAGreenSummary() {
        let text = Report.render(SampleRuns.green, as: .console, options: ReportOptions(usesColor: true))
        let last = text.split(separator: "\n").last.map(String.init)
        #expect(last == "\u{1B}[32m1 endpoint: 1 passed, 0 failed in 0.25 s\u{1B}[0m")
    }

    @Test func serverTextCannotDriveTheTerminal() {
        let result = SampleRuns.hostile(
            name: "evil\u{1B}[2J", check: "body /a == 1", message: "got \u{1B}]0;pwned\u{07}\nsecond line")
        let text = Report.render(result, as: .console)
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
        #expect(text.contains("evil\\u{1B}[2J"))
        #expect(text.contains("got \\u{1B}]0;pwned\\u{7}\\u{A}second line [body-condition]"))
    }

    @Test func deadlineIsReported() {
        var result = SampleRuns.green
        result.hitDeadline = true
        let text = Report.render(result, as: .console)
        #expect(text.contains("The deadline ended the run before every endpoint finished."))
    }

    @Test func emptyRunPrintsOnlyTheSummary() {
        let result = ProbeRunResult(
            startedAt: SampleRuns.startedAt, duration: .zero, configFile: "apiprobe.yml", endpoints: [])
        #expect(Report.render(result, as: .console) == "\n0 endpoints: 0 passed, 0 failed in 0.00 s\n")
    }

    static func strippingANSI(_ text: String) -> String {
        text.replacing(/\x{1B}\[[0-9;]*m/, with: "")
    }
}
