import APIProbeShared
import Foundation
import HTTPFixtures

/// A clock whose time moves only when a test says so: the virtual clock for debounce, timeouts, caches and
/// stubbed latency.
///
/// Give the same clock to the code under test and to a ``StubSet`` (``StubSet/init(clock:)``): a response
/// `.delayed(by: .seconds(3))` then arrives when the test advances the clock by three seconds, not three
/// seconds later, and a test of a race between a slow answer and a newer query runs in microseconds and
/// gives the same result on an idle laptop and on a loaded CI machine.
///
/// ```swift
/// let clock = ManualClock()
/// let stubs = StubSet(clock: clock)
/// stubs.stub(
///     .get("https://recipes.example.com/api/search"),
///     response: .json(text: #"{"count": 0, "recipes": []}"#).delayed(by: .milliseconds(300)))
/// // RecipeSearch is the sample app's debounced search (Sources/RecipesAPI); it sleeps on `clock`.
/// let client = RecipesClient(configuration: stubs.sessionConfiguration())
/// let search = RecipeSearch(client: client, debounce: .milliseconds(200), clock: clock)
///
/// await search.queryChanged("chicken")
/// await clock.waitForSleepers(1)            // the debounce is waiting
/// clock.advance(by: .milliseconds(200))     // the search is sent now; its answer waits 300 ms more
/// ```
///
/// A sleeper wakes when ``advance(by:)`` or ``advance(to:)`` reaches its deadline, in the order of the
/// deadlines; a cancelled sleeper throws `CancellationError` at once. ``waitForSleepers(_:)`` lets a test wait
/// until the code under test has started waiting, so the test never advances time too early.
public final class ManualClock: Clock, Sendable {
    /// A moment of a manual clock: the time since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// The time since the clock's start.
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    private let state = Locked(State())

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The watchers whose count the sleepers now reach, removed.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let count = sleepers.count
            let ready = watchers.filter { $0.count <= count }.map(\.continuation)
            watchers.removeAll { $0.count <= count }
            return ready
        }
    }

    /// One call to `sleep`, from before it waits until it is woken or cancelled.
    private final class Sleeper: @unchecked Sendable {
        enum Phase {
            case starting
            case waiting(CheckedContinuation<Void, any Error>)
            case cancelled
            case woken
        }
        let deadline: Instant
        let order: Int
        var phase = Phase.starting  // guarded by the clock's lock

        init(deadline: Instant, order: Int) {
            self.deadline = deadline
            self.order = order
        }
    }

    private let counter = Locked(0)

    /// A clock at time zero.
    public init() {}

    public var now: Instant { state.withLock { $0.now } }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// How many callers are sleeping on this clock now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Suspends until the clock has been advanced to `deadline`; returns at once when it is there already.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let order = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let sleeper = Sleeper(deadline: deadline, order: order)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock {
                    state -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if case .cancelled = sleeper.phase { return (.failure(CancellationError()), []) }
                    if deadline <= state.now {
                        sleeper.phase = .woken
                        return (.success(()), [])
                    }
                    sleeper.phase = .waiting(continuation)
                    state.sleepers.append(sleeper)
                    return (nil, state.satisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch sleeper.phase {
                case .starting:
                    sleeper.phase = .cancelled
                    return nil
                case .waiting(let continuation):
                    sleeper.phase = .cancelled
                    state.sleepers.removeAll { $0 === sleeper }
                    return continuation
                case .cancelled, .woken:
                    return nil
                }
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration` and wakes every sleeper whose deadline it reaches, earliest first.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }

    /// Moves the clock to `instant` (never backwards) and wakes every sleeper whose deadline it reaches,
    /// earliest first.
    public func advance(to instant: Instant) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            if state.now < instant { state.now = instant }
            let now = state.now
            let woken = state.sleepers.filter { $0.deadline <= now }
                .sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
            state.sleepers.removeAll { $0.deadline <= now }
            return woken.compactMap { sleeper in
                guard case .waiting(let continuation) = sleeper.phase else { return nil }
                sleeper.phase = .woken
                return continuation
            }
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` callers are sleeping on this clock: the code under test has reached the
    /// point where it waits for time to pass.
    ///
    /// Bound the test with a time limit (`@Test(.timeLimit(.minutes(1)))`): when the code never sleeps,
    /// this never returns.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
