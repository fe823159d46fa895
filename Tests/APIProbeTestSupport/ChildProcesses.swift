public import Foundation
import Synchronization

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

    private static let entries = Mutex<[Entry]>([])
    private static let killedAtExit: Void = { atexit { ChildProcesses.killRunning() } }()

    /// Adds `process`, just started, to the ones killed at exit.
    public static func started(_ process: Process) {
        _ = killedAtExit
        entries.withLock { entries in
            entries.removeAll { $0.process.map { !$0.isRunning } ?? true }
            entries.append(Entry(process))
        }
    }

    private static func killRunning() {
        for entry in entries.withLock({ $0 }) {
            if let process = entry.process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }
}
