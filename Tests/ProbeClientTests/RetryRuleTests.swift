import Foundation
import HTTPFixtures
import ProbeClient
import Testing

/// The one retry rule of every sender (``RetryRule``), by itself; `run` and `record` following it are tested in
/// ProbeRunnerTests (RetryRuleTests).
struct RetryRuleTests {
    /// The rule's pauses: 100 ms doubling, at most 2 s, ±50%; a body too large, a deadline's cut and an HTTP status
    /// are never retried; a rate limit's wait is its Retry-After, at most 30 s, `max(1, retries)` times.
    @Test func theRuleSaysWhatIsTriedAgain() {
        let rule = RetryRule(retries: 2)
        for retry in 0..<8 {
            let pause = rule.backoff(retry)
            let base = min(0.1 * pow(2, Double(retry)), 2)
            #expect(pause >= .milliseconds(Int64(base * 500)) && pause <= .milliseconds(Int64(base * 1_500)))
        }
        #expect(rule.retries(after: ProbeClientError(.refused), retried: 1))
        #expect(!rule.retries(after: ProbeClientError(.refused), retried: 2))
        #expect(rule.retries(after: ProbeClientError(.timedOut), retried: 0))
        #expect(!rule.retries(after: ProbeClientError(.bodyTooLarge(limit: 10)), retried: 0))
        #expect(!rule.retries(after: ProbeClientError(.cutByDeadline), retried: 0))
        #expect(!RetryRule.none.retries(after: ProbeClientError(.refused), retried: 0))
        #expect(rule.rateLimitWait(status: 429, headers: ["Retry-After": "3"], waited: 0) == .seconds(3))
        #expect(rule.rateLimitWait(status: 429, headers: ["Retry-After": "3600"], waited: 0) == .seconds(30))
        #expect(rule.rateLimitWait(status: 429, headers: [:], waited: 1) == .seconds(1))
        #expect(rule.rateLimitWait(status: 429, headers: [:], waited: 2) == nil)
        #expect(
            rule.rateLimitWait(status: 503, headers: [:], waited: 0) == nil, "a 503 without Retry-After is an outage")
        #expect(RetryRule.none.rateLimitWait(status: 429, headers: [:], waited: 0) == .seconds(1))
    }
}
