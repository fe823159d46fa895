// What every benchmark needs: its numeric arguments, a monotonic clock, the median, and the process's peak
// resident memory. One place for them (five benchmarks had their own copies).
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The integer after `name` on the command line (`--corpus-mb 100`), or `value`.
public func argument(_ name: String, default value: Int) -> Int {
    let args = CommandLine.arguments
    if let index = args.firstIndex(of: name), index + 1 < args.count, let parsed = Int(args[index + 1]) {
        return parsed
    }
    return value
}

/// Seconds on a monotonic clock.
public func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The median of `values` (not empty).
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The most resident memory this process has held, in MiB (since the last ``resetPeakResident()``).
public func peakResidentMiB() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
            return kilobytes / 1024
        }
    }
    #if canImport(Glibc)
    return Double(selfUsage().ru_maxrss) / 1024
    #else
    return Double(selfUsage().ru_maxrss) / 1024 / 1024
    #endif
}

/// This process's CPU time so far, user and system, in seconds.
public func processCPUSeconds() -> Double {
    let usage = selfUsage()
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// `getrusage` for this process.
private func selfUsage() -> rusage {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// Resets the peak resident size (Linux 4.0 and later), so a later phase is measured alone; `false` where it
/// cannot be (the peak then includes what came before).
public func resetPeakResident() -> Bool {
    guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
    defer { try? handle.close() }
    return (try? handle.write(contentsOf: Data("5".utf8))) != nil
}

/// `value` with `digits` decimals.
public func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
