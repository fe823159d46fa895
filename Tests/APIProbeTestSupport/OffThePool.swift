import APIProbeShared
import Dispatch
public import Testing

#if compiler(>=6.1)
/// Runs each test on dispatch's utility threads (a ``DedicatedExecutor`` of quality `.utility`), not on Swift's
/// cooperative pool: `@Suite(.offThePool)`, `@Test(.offThePool)`, for tests that compute or block for seconds.
///
/// Swift Testing runs every test, a synchronous one too, as a job of the cooperative pool, which has as many threads as
/// the machine has cores (two on CI). A test that parses, fuzzes or validates for seconds holds one of them all that
/// time; two such tests at once starve every other test's awaits, and a suite whose rounds wait on timers and loopback
/// servers exceeded its time limit while doing nothing (AlertTests, 71 s of a 60 s limit, in CI). Off the pool, the
/// heavyweights share the utility threads among themselves; the cooperative pool stays with the tests that wait, and
/// the in-process servers keep theirs (``DedicatedExecutor/servers``, user-initiated).
///
/// Moving many suites here was measured and dropped: the timing tests got slower and failed (two cores, however the
/// threads are shared), so only tests that hold a thread for long and assert no timing use it.
///
/// The preference covers the test's body and its child tasks (`async let`, task groups); unstructured tasks and
/// actors the code under test starts still run on the pool.
public struct OffThePoolTrait: TestTrait, SuiteTrait, TestScoping {
    /// On a suite, every test in it (and in suites within it).
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) else {
            // No task executors before these: the test runs on the pool, as without the trait.
            return try await function()
        }
        let executor = DedicatedExecutor(label: "apiprobe.test.\(test.name.prefix { $0 != "(" })", qos: .utility)
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OffThePoolTrait {
    /// Each test on dispatch's utility threads, not on Swift's cooperative pool: ``OffThePoolTrait``.
    public static var offThePool: Self { Self() }
}
#endif
