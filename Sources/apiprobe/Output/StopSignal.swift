import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Set by SIGINT or SIGTERM, whose default handlers are ignored from when it is made: `run --every` and
/// `demo --serve` finish what they are doing and exit 0.
final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var signalNumber: Int32?
    private var sources: [any DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.set(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that arrived first, or `nil` while none has.
    var received: Int32? { lock.withLock { signalNumber } }

    var isSet: Bool { received != nil }

    private func set(_ number: Int32) { lock.withLock { signalNumber = signalNumber ?? number } }

    private var reloadAsked = false

    /// Also listens for SIGHUP (which would otherwise end the process with status 129): each one asks for a
    /// reload, which ``takeReloadRequest()`` reports once.
    func listenForReload() {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [weak self] in self?.lock.withLock { self?.reloadAsked = true } }
        source.resume()
        lock.withLock { sources.append(source) }
    }

    /// Whether a SIGHUP came since the last call.
    func takeReloadRequest() -> Bool {
        lock.withLock {
            defer { reloadAsked = false }
            return reloadAsked
        }
    }

    /// Sleeps `duration` (forever when `nil`), or less when a signal comes.
    func wait(for duration: Duration? = nil) async {
        let end = duration.map { ContinuousClock.now + $0 }
        while !isSet {
            var step = Duration.milliseconds(50)
            if let end {
                let left = end - ContinuousClock.now
                if left <= .zero { return }
                step = min(step, left)
            }
            try? await Task.sleep(for: step)
        }
    }
}
