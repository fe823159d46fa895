import Foundation

/// SplitMix64: a seeded random number generator, so a property test that fails can be replayed.
///
/// ```swift
/// let seed = SeededGenerator.seed()  // APIPROBE_SEED, or a fixed default
/// var random = SeededGenerator(seed: seed)
/// let byte = UInt8.random(in: .min ... .max, using: &random)
/// ```
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `APIPROBE_SEED` from the environment, else `fallback`: the same cases on every run unless asked.
    public static func seed(fallback: UInt64 = 20_261_122) -> UInt64 {
        ProcessInfo.processInfo.environment["APIPROBE_SEED"].flatMap { UInt64($0) } ?? fallback
    }
}
