import Foundation

/// Spaces requests to one host at least `1 / requestsPerSecond` apart (a slot scheduler: each caller
/// takes the next free slot of its host and sleeps until it).
actor RateLimiter {
    private let interval: Duration
    private var nextSlot: [String: ContinuousClock.Instant] = [:]

    init(requestsPerSecond: Double) {
        interval = .nanoseconds(Int64((1e9 / requestsPerSecond).rounded()))
    }

    /// Waits for this host's next slot; `false` (without waiting) when that slot is after `deadline`.
    func acquire(host: String, deadline: ContinuousClock.Instant) async -> Bool {
        let now = ContinuousClock.now
        let slot = max(now, nextSlot[host] ?? now)
        guard slot <= deadline else { return false }
        nextSlot[host] = slot + interval
        if slot > now { try? await Task.sleep(until: slot, clock: .continuous) }
        return true
    }
}
