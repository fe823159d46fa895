import Foundation

/// Spaces requests to one host at least `1 / requestsPerSecond` apart.
///
/// Callers for one host go one at a time, and each is let go no sooner than `interval` after the previous
/// one was actually let go (not after the slot it was given): a caller that wakes late on a loaded machine
/// pushes the ones after it back instead of letting them through in a burst.
package actor RateLimiter {
    private let interval: Duration
    private var lastRelease: [String: ContinuousClock.Instant] = [:]
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    package init(requestsPerSecond: Double) {
        // The config accepts 0.001...100000 a second; a rate built in code outside that is clamped, never a trap.
        let nanoseconds = (1e9 / requestsPerSecond).rounded()
        let bounded = nanoseconds.isNaN || nanoseconds < 0 ? 1e15 : min(nanoseconds, 1e15)
        interval = .nanoseconds(Int64(bounded))
    }

    /// Waits for this host's next slot; `false` (without waiting for it) when that slot is after `deadline`.
    func acquire(host: String, deadline: ContinuousClock.Instant) async -> Bool {
        while busy.contains(host) {
            await withCheckedContinuation { waiting[host, default: []].append($0) }
        }
        busy.insert(host)
        defer { release(host) }
        let now = ContinuousClock.now
        let slot = lastRelease[host].map { max(now, $0 + interval) } ?? now
        guard slot <= deadline else { return false }
        if slot > now { try? await Task.sleep(until: slot, clock: .continuous) }
        lastRelease[host] = ContinuousClock.now
        return true
    }

    private func release(_ host: String) {
        busy.remove(host)
        guard var queue = waiting[host], !queue.isEmpty else { return }
        let next = queue.removeFirst()
        waiting[host] = queue.isEmpty ? nil : queue
        next.resume()
    }
}
