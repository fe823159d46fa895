import Foundation

/// SplitMix64: a seeded random number generator. The same seed gives the same sequence on every platform and
/// every run, so the demo server's latency and failures, a benchmark's corpus and a property test's cases can
/// be replayed.
///
/// ```swift
/// var random = SeededGenerator(seed: SeededGenerator.seed())  // APIPROBE_SEED, or a fixed default
/// let byte = UInt8.random(in: .min ... .max, using: &random)
/// ```
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<1` built from the top 53 bits, identical on every platform.
    package mutating func nextUnit() -> Double { Double(next() >> 11) / 9_007_199_254_740_992 }

    /// An index in `0..<count` (`count > 0`), identical on every platform.
    package mutating func nextIndex(_ count: Int) -> Int { Int(next() % UInt64(count)) }

    /// `APIPROBE_SEED` from the environment, else `fallback`: the same cases on every run unless asked.
    package static func seed(fallback: UInt64 = 20_261_122) -> UInt64 {
        ProcessInfo.processInfo.environment["APIPROBE_SEED"].flatMap { UInt64($0) } ?? fallback
    }
}
