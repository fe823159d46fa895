import APIProbeShared
import ArgumentParser

/// The one reading of a duration option (`--latency 50ms`, `--every 5m`): the notation of the config and the
/// fixtures (`APIProbeShared.parseDuration`), with the message every command gives for a bad one.
///
/// A duration option is declared with `parsing: .unconditional`, so that `--latency -5ms` reaches this reading
/// (and says the duration is negative) instead of ArgumentParser's "Missing value" for what looks like an option.
enum DurationArgument {
    /// A duration, zero included.
    static func parse(_ argument: String) throws -> Duration {
        if argument.hasPrefix("-") {
            throw ValidationError("\(argument) is negative: expected a duration of 0 or more, such as 50ms, 1.5s or 5m")
        }
        guard let duration = parseDuration(argument) else {
            throw ValidationError("expected a duration such as 50ms, 1.5s or 5m")
        }
        return duration
    }

    /// A duration greater than zero.
    static func positive(_ argument: String) throws -> Duration {
        if argument.hasPrefix("-") {
            throw ValidationError("\(argument) is negative: expected a positive duration such as 30s, 5m or 1h")
        }
        guard let duration = parseDuration(argument), duration > .zero else {
            throw ValidationError("expected a positive duration such as 30s, 5m or 1h")
        }
        return duration
    }
}
