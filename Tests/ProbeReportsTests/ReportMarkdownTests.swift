import APIProbeTestSupport
import Foundation
import ProbeReports
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite(.temporaryFolder) struct ReportMarkdownTests {
    @Test func failedRunHasHeadingTableAndFailureSections() {
        let text = Report.render(SampleRuns.mixed, as: .markdown)
        #expect(
            text == """
                ## ❌ apiprobe: 2 of 3 endpoints failed, 1 latency regression found

                Started 2026-11-22T18:00:00Z, took 1.23 s, config apiprobe.yml.

                | | endpoint | samples | status | p50 | p95 | p99 | checks |
                |:-:|---|--:|---|--:|--:|--:|---|
                | ❌ | search | 5 | 200×5 | 12.5 ms | 15.8 ms | 16.0 ms | 2/2 |
                | ❌ | detail | 5 | 200×3 503×2 | 20.0 ms | 24.5 ms | 24.9 ms | 0/2 |
                | ❌ | offline **(down)** | 3 | - | - | - | - | 0/1 |

                ### Failures

                - **detail**: status 200-299 (http-status): 2 of 5 samples answered 503
                - **detail**: schema Snapshots/recipes/get.schema.json (schema-drift): 1 breaking change
                - **offline**: reachable (refused): connection refused by 127.0.0.1:9

                ### Schema drift

                - **detail**: 🔴 breaking /recipe/social\\_rank type-changed: number → string
                - **detail**: ⚪ info /recipe/rating added: integer

                ### Regressions

                - **search**: p95 15.8 ms is 2.11× the median 7.5 ms of the last 10 runs (limit 1.5×)

                """
        )
    }

    @Test func passedRunSaysSoWithoutFailureSections() {
        let text = Report.render(SampleRuns.green, as: .markdown)
        #expect(text.hasPrefix("## ✅ apiprobe: 1 endpoint passed\n"))
        #expect(!text.contains("### Failures"))
    }

    @Test func pipesAndMarkupInCellsAreEscaped() throws {
        let result = SampleRuns.hostile(name: "a|b <script>", check: "x | y", message: "one\ntwo | *three*")
        let text = Report.render(result, as: .markdown)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| ❌") })
        // Eight cells: nine unescaped pipes.
        #expect(Self.unescapedPipes(in: row) == 9)
        #expect(row.contains("a\\|b \\<script\\>"))
        #expect(text.contains("- **a\\|b \\<script\\>**: x \\| y (body-condition): one two \\| \\*three\\*"))
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            #expect(Self.unescapedPipes(in: line) == 9, "\(line)")
        }
    }

    static func unescapedPipes(in line: Substring) -> Int {
        var count = 0
        var escaped = false
        for character in line {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                count += 1
            }
        }
        return count
    }
}

@Suite(.temporaryFolder) struct ReportStepSummaryTests {
    @Test func appendsToTheFileGitHubNamesAndKeepsEarlierSteps() throws {
        let folder = try TemporaryFolder.url
        let file = folder.appendingPathComponent("step_summary.md")
        try Data("earlier step".utf8).write(to: file)
        let environment = ["GITHUB_STEP_SUMMARY": file.path]
        #expect(try appendToStepSummary("## first", environment: environment))
        #expect(try appendToStepSummary("## second\n", environment: environment))
        #expect(try String(contentsOf: file, encoding: .utf8) == "earlier step\n## first\n## second\n")
    }

    @Test func doesNothingOutsideGitHubActions() throws {
        #expect(try appendToStepSummary("## report", environment: [:]) == false)
        #expect(try appendToStepSummary("## report", environment: ["GITHUB_STEP_SUMMARY": ""]) == false)
    }

    @Test func aMissingFolderIsAnErrorNamingTheFile() throws {
        let path = try TemporaryFolder.url.appendingPathComponent("missing/s.md")
        let error = #expect(throws: HistoryFileError.self) {
            try appendToStepSummary("x", environment: ["GITHUB_STEP_SUMMARY": path.path])
        }
        #expect(error?.file == path.path)
        #expect(error?.description.contains("does not exist") == true)
    }
}
