import APIProbeShared
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
final class StopSignal: Sendable {
    private struct State {
        var signalNumber: Int32?
        var reloadAsked = false
        var sources: [any DispatchSourceSignal] = []
    }
    private let state = Locked(State())

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.set(number) }
            source.resume()
            state.withLock { $0.sources.append(source) }
        }
    }

    /// The signal that arrived first, or `nil` while none has.
    var received: Int32? { state.withLock { $0.signalNumber } }

    var isSet: Bool { received != nil }

    private func set(_ number: Int32) { state.withLock { $0.signalNumber = $0.signalNumber ?? number } }

    /// Also listens for SIGHUP (which would otherwise end the process with status 129): each one asks for a
    /// reload, which ``takeReloadRequest()`` reports once.
    func listenForReload() {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [weak self] in self?.state.withLock { $0.reloadAsked = true } }
        source.resume()
        state.withLock { $0.sources.append(source) }
    }

    /// Whether a SIGHUP came since the last call.
    func takeReloadRequest() -> Bool {
        state.withLock { state in
            defer { state.reloadAsked = false }
            return state.reloadAsked
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
