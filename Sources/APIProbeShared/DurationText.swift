import Foundation

/// A duration as apiprobe's files and options write it: `300ms`, `1.5s`, `2m`, `1h`; `nil` when it is not one
/// (no unit, a negative or huge value). The one reader of the config, the fixtures' `metadata.latency` and the
/// command line.
package func parseDuration(_ text: String) -> Duration? {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3_600)]
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
