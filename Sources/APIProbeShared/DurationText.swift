package import Foundation

/// A duration as apiprobe's files and options write it: `300ms`, `1.5s`, `2m`, `1h`, `30d`; `nil` when it is not one
/// (no unit, a negative or huge value). The one reader of the config, the fixtures' `metadata.latency` and the
/// command line.
package func parseDuration(_ text: String) -> Duration? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600), ("d", 86_400)]
    for (unit, scale) in units where trimmed.hasSuffix(unit) {
        let digits = trimmed.dropLast(unit.count).trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isNumber || $0 == "." }),
            let value = Double(digits), value.isFinite, value >= 0
        else { return nil }
        let nanoseconds = (value * scale * 1e9).rounded()
        guard nanoseconds < 1e18 else { return nil }
        return .nanoseconds(Int64(nanoseconds))
    }
    return nil
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Milliseconds as a `Double`.
    package var milliseconds: Double { timeInterval * 1_000 }
}

/// `300ms`, `1.5s`, `2m`: the form the config accepts.
package func formatDuration(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    if ms < 1_000 { return ms == ms.rounded() ? "\(Int(ms))ms" : String(format: "%.1fms", ms) }
    let s = ms / 1_000
    if s < 60 || s.truncatingRemainder(dividingBy: 60) != 0 {
        return s == s.rounded() ? "\(Int(s))s" : String(format: "%.1fs", s)
    }
    return "\(Int(s / 60))m"
}

/// `8MiB`, `512KiB`, `1000B`: a byte count in the largest binary unit that divides it, as the config accepts it.
package func formatSize(_ bytes: Int) -> String {
    for (unit, factor) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= factor {
        if bytes % factor == 0 { return "\(bytes / factor)\(unit)" }
    }
    return "\(bytes)B"
}
