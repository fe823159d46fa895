public import Testing

@available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, visionOS 1.0, *)
extension Trait where Self == TimeLimitTrait {
    /// The time limit of every apiprobe suite that could hang (servers, child processes, sockets, timers): ten
    /// minutes, a guard against a hang, never a measure of speed.
    ///
    /// The suite runs some 750 tests at once on two cores; a test's wall time there is mostly waiting for the
    /// cooperative pool, which CPU-heavy tests beside it hold. A one-minute limit failed AlertTests in CI after 71 s of
    /// which a few were its own. Speed is measured by the benchmarks under `Benchmarks/`, side by side in one run; a
    /// test that hangs still fails here, and the 90-minute CI run still ends.
    public static var hangGuard: Self { .timeLimit(.minutes(10)) }
}
