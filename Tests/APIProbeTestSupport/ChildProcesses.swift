public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The child processes the tests start, killed when the test process exits: a test that hangs past its limit, whose
/// servers or `run --every` are never stopped, leaves nothing behind to load the machine for the next run (a run's
/// leftovers doubled the next one's wall time and made its timing tests fail).
///
/// A process is held weakly: one its owner released was stopped by it (``RunningCommand``'s `deinit` kills), and
/// one that is still running at exit is killed by its handle, never by a process ID that may have been reused.
public enum ChildProcesses {
    private final class Entry: @unchecked Sendable {
        weak var process: Process?
        init(_ process: Process) { self.process = process }
    }

    // NSLock rather than Synchronization's Mutex, which needs macOS 15 (the package supports 14).
    private static let lock = NSLock()
    nonisolated(unsafe) private static var entries: [Entry] = []
    private static let killedAtExit: Void = { atexit { ChildProcesses.killRunning() } }()

    /// Adds `process`, just started, to the ones killed at exit.
    public static func started(_ process: Process) {
        _ = killedAtExit
        lock.withLock {
            entries.removeAll { $0.process.map { !$0.isRunning } ?? true }
            entries.append(Entry(process))
        }
    }

    private static func killRunning() {
        for entry in lock.withLock({ entries }) {
            if let process = entry.process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
