import Foundation
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite struct HistoryRegressionTests {
    static func history(_ p95s: [Double?], endpoint: String = "search") -> [HistoryRecord] {
        p95s.enumerated().map { index, p95 in
            HistoryRecord(
                startedAt: SampleRuns.startedAt.addingTimeInterval(Double(index)), passed: true,
                endpoints: [endpoint: .init(passed: true, p95: p95)])
        }
    }

    /// `search`'s p95 is 15.8 ms.
    static let run = SampleRuns.green

    @Test func aP95AboveFactorTimesTheMedianIsARegression() {
        let policy = RegressionPolicy(window: 5, factor: 1.5, minimumRuns: 3, minimumSlowdown: .zero)
        let regressions = RegressionDetector.regressions(
            in: Self.run, history: Self.history([10, 9, 11, 10, 8]), policy: policy)
        #expect(regressions == [Regression(endpoint: "search", p95: 15.8, baselineMedian: 10, factor: 1.5, runs: 5)])
    }

    @Test func aP95WithinTheFactorIsNot() {
        let policy = RegressionPolicy(window: 5, factor: 1.5, minimumRuns: 3, minimumSlowdown: .zero)
        #expect(
            RegressionDetector.regressions(in: Self.run, history: Self.history([11, 10.6, 12]), policy: policy).isEmpty)
    }

    @Test func tooFewEarlierRunsGiveNoVerdict() {
        let policy = RegressionPolicy(window: 10, factor: 1.5, minimumRuns: 3, minimumSlowdown: .zero)
        #expect(RegressionDetector.regressions(in: Self.run, history: Self.history([1, 1]), policy: policy).isEmpty)
        #expect(RegressionDetector.regressions(in: Self.run, history: [], policy: policy).isEmpty)
        #expect(
            RegressionDetector.regressions(in: Self.run, history: Self.history([1, 1, 1]), policy: policy).count == 1)
    }

    @Test func runsWithoutAP95AreIgnored() {
        let policy = RegressionPolicy(window: 3, factor: 1.5, minimumRuns: 3, minimumSlowdown: .zero)
        // The last three measured runs are 9.5, 10, 10.5 (median 10); the nil runs and the old 100 are not counted.
        let history = Self.history([100, 9.5, nil, 10, nil, 10.5, nil])
        let regressions = RegressionDetector.regressions(in: Self.run, history: history, policy: policy)
        #expect(regressions.map(\.baselineMedian) == [10])
        #expect(regressions.map(\.runs) == [3])
        #expect(
            RegressionDetector.regressions(in: Self.run, history: Self.history([5, nil, nil, 5]), policy: policy)
                .isEmpty)
    }

    @Test func onlyTheWindowCounts() {
        let policy = RegressionPolicy(window: 4, factor: 1.5, minimumRuns: 3, minimumSlowdown: .zero)
        // Slow long ago, fast lately: the window's median (6 and 8 → 7) makes 15.8 a regression.
        let regressions = RegressionDetector.regressions(
            in: Self.run, history: Self.history([100, 100, 100, 6, 8, 6, 8]), policy: policy)
        #expect(regressions.map(\.baselineMedian) == [7])
    }

    /// Seen beside an idle httpbin: `p95 3.4 ms is 2.12× the median 1.6 ms` flagged in 13 of 16 runs. With the
    /// defaults (25 ms at least, above the window's spread) such noise is no regression.
    @Test func noiseOnAFastEndpointIsNoRegressionWithTheDefaults() {
        var run = SampleRuns.green
        run.endpoints[0].latency?.p95 = 3.4
        let history = Self.history([1.6, 1.5, 1.7, 1.6, 1.9, 1.4, 1.6, 2.0, 1.5, 1.6])
        #expect(RegressionDetector.regressions(in: run, history: history, policy: RegressionPolicy()).isEmpty)
    }

    @Test func anInjectedDelayOf200msIsStillCaught() {
        var run = SampleRuns.green
        run.endpoints[0].latency?.p95 = 1.6 + 200
        let history = Self.history([1.6, 1.5, 1.7, 1.6, 1.9, 1.4, 1.6, 2.0, 1.5, 1.6])
        let regressions = RegressionDetector.regressions(in: run, history: history, policy: RegressionPolicy())
        #expect(regressions.map(\.endpoint) == ["search"])
        #expect(regressions.first?.baselineMedian == 1.6)
    }

    @Test func anEndpointThatAlwaysWandersIsJudgedAgainstItsSpread() {
        var run = SampleRuns.green
        // Median 60, median absolute deviation 20 (about 30 as a standard deviation): 120 is within 3 of them.
        run.endpoints[0].latency?.p95 = 120
        let history = Self.history([50, 90, 40, 100, 60])
        #expect(RegressionDetector.regressions(in: run, history: history, policy: RegressionPolicy()).isEmpty)
        run.endpoints[0].latency?.p95 = 160
        #expect(RegressionDetector.regressions(in: run, history: history, policy: RegressionPolicy()).count == 1)
    }

    @Test func theMinimumSlowdownIsConfigurable() throws {
        let config = try ProbeConfig.parse(
            Data(
                "api: x\nbaseURL: http://127.0.0.1:1\nregression: {minimumSlowdown: 5ms, minimumRuns: 2}\nendpoints:\n  - {name: a, path: /a}\n"
                    .utf8), environment: [:], file: "apiprobe.yml")
        #expect(config.regression.minimumSlowdown == .milliseconds(5))
        #expect(config.regression.minimumRuns == 2)
        #expect(RegressionPolicy().minimumSlowdown == .milliseconds(25))
    }

    @Test func anEndpointWithoutResponsesThisRunHasNoVerdict() {
        var run = SampleRuns.mixed
        run.regressions = []
        let history = Self.history([1, 1, 1], endpoint: "offline")
        #expect(
            RegressionDetector.regressions(in: run, history: history, policy: RegressionPolicy(minimumRuns: 3)).isEmpty)
    }

    @Test func consecutiveFailuresCountTheTrailingFailedRuns() {
        func run(_ endpoints: [String: Bool]) -> HistoryRecord {
            HistoryRecord(
                startedAt: SampleRuns.startedAt, passed: !endpoints.values.contains(false),
                endpoints: endpoints.mapValues { .init(passed: $0, p95: 1) })
        }
        let history = [
            run(["a": false, "b": true, "c": false]),
            run(["a": true, "b": false, "c": false]),
            run(["a": false, "b": false]),
            run(["a": false]),  // --only a: b's streak goes on
            run(["a": false, "b": false]),
        ]
        #expect(RegressionDetector.consecutiveFailures(in: history) == ["a": 3, "b": 3, "c": 2])
        #expect(RegressionDetector.consecutiveFailures(in: history + [run(["a": true])]) == ["a": 0, "b": 3, "c": 2])
        #expect(RegressionDetector.consecutiveFailures(in: []).isEmpty)
    }
}

@Suite struct EveryIntervalTests {
    /// `--every 2s` starts a round every 2 s: a round of 1.5 s waits 0.5 s (it waited 2 s after each round, so
    /// 64 s gave 16 rounds of a 2 s round).
    @Test func roundsStartAnIntervalApart() {
        #expect(
            ProbeSession.delayBeforeNextRound(interval: .seconds(2), elapsed: .milliseconds(1_500))
                == .milliseconds(500))
        #expect(ProbeSession.delayBeforeNextRound(interval: .seconds(2), elapsed: .seconds(3)) == .zero)
        #expect(ProbeSession.delayBeforeNextRound(interval: .seconds(2), elapsed: .zero) == .seconds(2))
    }
}
