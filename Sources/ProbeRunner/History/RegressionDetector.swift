import APIProbeShared
import Foundation

/// Compares a run's p95 per endpoint with the median p95 of the last runs.
///
/// ```swift
/// let earlier = try history.records(last: 100)
/// let regressions = RegressionDetector.regressions(in: result, history: earlier, policy: config.regression)
/// let failures = RegressionDetector.consecutiveFailures(in: earlier)  // ["search": 2]
/// ```
package enum RegressionDetector {
    /// The endpoints whose p95 this run is a regression against their last `policy.window` runs, in the order of
    /// `result.endpoints`. A regression must clear three bars, so noise on a fast endpoint is not one:
    /// - more than `policy.factor` × the baseline, the median p95 of the window;
    /// - at least `policy.minimumSlowdown` above the baseline (a 2× of 1.6 ms is 1.6 ms: noise);
    /// - above the window's own spread: the baseline plus 3 × its median absolute deviation (scaled to a
    ///   standard deviation), so an endpoint whose p95 always wanders is judged against how far it wanders.
    ///
    /// Runs in which the endpoint had no p95 (no response, or not probed: `--only`) are passed over, so the
    /// window holds the endpoint's last `window` measured runs. With fewer than `policy.minimumRuns` of them,
    /// or no p95 this run, there is no verdict.
    ///
    /// - Parameters:
    ///   - result: this run.
    ///   - history: earlier runs, oldest first, not including this one.
    ///   - policy: window, factor and minimum number of runs.
    /// - Returns: one ``Regression`` per slow endpoint; its `factor` is the policy's, its `runs` the number of
    ///   earlier p95 values the median was taken over.
    /// - Complexity: O(endpoints × history).
    package static func regressions(in result: ProbeRunResult, history: [HistoryRecord], policy: RegressionPolicy)
        -> [Regression]
    {
        guard policy.window > 0 else { return [] }
        return result.endpoints.compactMap { endpoint -> Regression? in
            guard let p95 = endpoint.latency?.p95, p95.isFinite else { return nil }
            var window: [Double] = []
            for record in history.reversed() where window.count < policy.window {
                if let value = record.endpoints[endpoint.name]?.p95, value.isFinite { window.append(value) }
            }
            guard window.count >= max(policy.minimumRuns, 1) else { return nil }
            let baseline = median(window)
            let spread = 1.4826 * median(window.map { abs($0 - baseline) })
            let slowdown = policy.minimumSlowdown.milliseconds
            guard baseline > 0, p95 > policy.factor * baseline, p95 - baseline >= slowdown,
                p95 > baseline + 3 * spread
            else { return nil }
            return Regression(
                endpoint: endpoint.name, p95: p95, baselineMedian: baseline, factor: policy.factor, runs: window.count
            )
        }
    }

    /// Consecutive failed rounds per endpoint at the end of `history` (for the down-after damper across cron runs).
    ///
    /// Runs that did not probe an endpoint (`--only`) neither break nor extend its streak. Every endpoint the
    /// history names is in the answer, with 0 when its last run passed.
    ///
    /// - Complexity: O(history × endpoints).
    package static func consecutiveFailures(in history: [HistoryRecord]) -> [String: Int] {
        streaks(in: history) { $0.passed }
    }

    /// Each endpoint's rounds without a usable answer in a row at the end of `history` (``consecutiveFailures(in:)``
    /// for ``HistoryRecord/EndpointSummary/answered``): what `downAfter` counts.
    static func consecutiveOutages(in history: [HistoryRecord]) -> [String: Int] {
        streaks(in: history) { $0.answered }
    }

    private static func streaks(
        in history: [HistoryRecord], endedBy ends: (HistoryRecord.EndpointSummary) -> Bool
    ) -> [String: Int] {
        var streaks: [String: Int] = [:]
        var settled: Set<String> = []
        for record in history.reversed() {
            for (name, summary) in record.endpoints where !settled.contains(name) {
                if ends(summary) {
                    settled.insert(name)
                    streaks[name, default: 0] += 0
                } else {
                    streaks[name, default: 0] += 1
                }
            }
        }
        return streaks
    }

    /// The median; the mean of the middle two for an even count.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
