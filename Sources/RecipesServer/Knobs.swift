import APIProbeShared
import Foundation

/// Added latency for every response: none, fixed, or drawn from a seeded distribution.
///
/// ```swift
/// server.knobs.latency = .fixed(.milliseconds(50))
/// server.knobs.latency = .uniform(.milliseconds(10) ... .milliseconds(40))
/// server.knobs.latency = .normal(mean: .milliseconds(30), standardDeviation: .milliseconds(5))
/// ```
package struct Latency: Sendable, Hashable, CustomStringConvertible {
    /// No added latency.
    package static let none = Latency(storage: .none)

    /// The same delay before every response.
    package static func fixed(_ delay: Duration) -> Latency { Latency(storage: .fixed(delay)) }

    /// A delay drawn uniformly from `range`.
    package static func uniform(_ range: ClosedRange<Duration>) -> Latency { Latency(storage: .uniform(range)) }

    /// A delay drawn from a normal distribution, never below zero.
    package static func normal(mean: Duration, standardDeviation: Duration) -> Latency {
        Latency(storage: .normal(mean: mean, standardDeviation: standardDeviation))
    }

    private enum Storage: Sendable, Hashable {
        case none
        case fixed(Duration)
        case uniform(ClosedRange<Duration>)
        case normal(mean: Duration, standardDeviation: Duration)
    }

    private let storage: Storage

    package var description: String {
        switch storage {
        case .none: return "none"
        case .fixed(let delay): return "fixed \(delay)"
        case .uniform(let range): return "uniform \(range.lowerBound)...\(range.upperBound)"
        case .normal(let mean, let deviation): return "normal mean \(mean), sd \(deviation)"
        }
    }

    /// One delay, drawn with `random`.
    func sample(using random: inout SeededGenerator) -> Duration {
        switch storage {
        case .none:
            return .zero
        case .fixed(let delay):
            return max(delay, .zero)
        case .uniform(let range):
            let low = range.lowerBound.timeInterval
            let high = range.upperBound.timeInterval
            return .seconds(max(0, low + (high - low) * random.nextUnit()))
        case .normal(let mean, let deviation):
            // Box–Muller with the seeded generator, so a seed gives the same delays on every platform.
            let u1 = max(random.nextUnit(), .leastNonzeroMagnitude)
            let u2 = random.nextUnit()
            let z = (-2 * Foundation.log(u1)).squareRoot() * Foundation.cos(2 * Double.pi * u2)
            return .seconds(max(0, mean.timeInterval + z * deviation.timeInterval))
        }
    }
}

/// The server's run-time settings; read and changed from any thread while the server runs.
///
/// ```swift
/// server.knobs.failureRate = 0.2          // one response in five is a 503 with Retry-After
/// server.knobs.isDrifted = true           // serve the drifted variant of the API
/// ```
package final class RecipesServerKnobs: Sendable {
    /// The settings and the random numbers they draw from, behind one lock.
    private let guarded: Locked<(state: State, random: SeededGenerator)>

    struct State {
        var latency: Latency
        var failureRate: Double
        var retryAfterSeconds: Int
        var isDrifted: Bool
        var apiKey: String?
        var received = 0
        var delays: [Duration] = []
    }

    init(_ configuration: RecipesServer.Configuration) {
        let state = State(
            latency: configuration.latency,
            failureRate: configuration.failureRate,
            retryAfterSeconds: configuration.retryAfterSeconds,
            isDrifted: configuration.isDrifted,
            apiKey: configuration.apiKey
        )
        guarded = Locked((state, SeededGenerator(seed: configuration.seed)))
    }

    private func withLock<R>(_ body: (inout State) -> R) -> R {
        guarded.withLock { body(&$0.state) }
    }

    /// Latency added before every response (errors included).
    package var latency: Latency {
        get { withLock { $0.latency } }
        set { withLock { $0.latency = newValue } }
    }

    /// The share of requests, from 0 to 1, answered with `503 Service Unavailable` and `Retry-After`.
    package var failureRate: Double {
        get { withLock { $0.failureRate } }
        set { withLock { $0.failureRate = min(max(newValue, 0), 1) } }
    }

    /// The `Retry-After` value of simulated failures, in seconds.
    var retryAfterSeconds: Int {
        get { withLock { $0.retryAfterSeconds } }
        set { withLock { $0.retryAfterSeconds = max(0, newValue) } }
    }

    /// Whether the drifted variant is served: `social_rank` renamed `rank`, `recipe_id` an integer, and a new
    /// `cook_time_minutes` field.
    var isDrifted: Bool {
        get { withLock { $0.isDrifted } }
        set { withLock { $0.isDrifted = newValue } }
    }

    /// The API key every request must carry as `key`, or `nil` for none.
    package var apiKey: String? {
        get { withLock { $0.apiKey } }
        set { withLock { $0.apiKey = newValue } }
    }

    /// How many search and recipe requests have arrived so far, counted on arrival (before any latency), so
    /// a test can tell that a request is in flight without timing it.
    package var requestsReceived: Int {
        withLock { $0.received }
    }

    /// The latency drawn for each search and recipe request so far, in order of arrival (the last 1,000): what a
    /// test checks instead of timing responses on a loaded machine.
    package var delaysDrawn: [Duration] {
        withLock { $0.delays }
    }

    /// What one request gets: the settings and, drawn under the same lock, its delay and whether it fails.
    func draw() -> (state: State, delay: Duration, fails: Bool) {
        guarded.withLock { guarded in
            guarded.state.received += 1
            let delay = guarded.state.latency.sample(using: &guarded.random)
            if guarded.state.delays.count == 1_000 { guarded.state.delays.removeFirst() }
            guarded.state.delays.append(delay)
            let fails = guarded.state.failureRate > 0 && guarded.random.nextUnit() < guarded.state.failureRate
            return (guarded.state, delay, fails)
        }
    }
}
