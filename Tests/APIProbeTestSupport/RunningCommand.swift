public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The built `apiprobe` running in the background (`demo --serve`, `serve`): its output read as it comes, on threads
/// of its own (no thread of the concurrency pool waits on a pipe), and stopped by a signal. The one way a test
/// starts a long-running command.
public final class RunningCommand: Sendable {
    private let process: Process
    private let output: Printed
    private let errors: Printed

    /// Starts `apiprobe` with `arguments` (NO_COLOR set).
    public init(_ arguments: [String], in directory: URL? = nil) throws {
        let process = Process()
        process.executableURL = CommandLineRunner.executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let outputPipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        self.process = process
        output = Printed(outputPipe.fileHandleForReading)
        errors = Printed(errorPipe.fileHandleForReading)
        try process.run()
        ChildProcesses.started(process)
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// What it printed so far.
    public var standardOutput: String { output.text }
    public var standardError: String { errors.text }

    /// Waits until standard output holds `text` (or the process ended, or `timeout` passed); the output so far.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(20)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while !output.text.contains(text), !output.isFinished, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return output.text
    }

    /// Sends `signal` (SIGTERM, 15, by default) and waits (up to `timeout`) for the exit and the end of both outputs; the exit status, or
    /// `nil` when it did not exit by a normal exit in time.
    public func stop(_ signal: Int32 = 15, timeout: Duration = .seconds(20)) async throws -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = ContinuousClock.now + timeout
        while process.isRunning || !output.isFinished || !errors.isFinished, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning, process.terminationReason == .exit else { return nil }
        return process.terminationStatus
    }

    /// How it ended so far, for a failed expectation's message: still running, the exit status, or the signal that
    /// killed it; and the end of its standard error.
    public var outcome: String {
        let state =
            process.isRunning
            ? "still running"
            : process.terminationReason == .exit
                ? "exited with status \(process.terminationStatus)" : "killed by signal \(process.terminationStatus)"
        return "\(state); standard error ends: \(String(standardError.suffix(2_000)))"
    }
}

/// Text a child process printed, appended by a reader thread until the pipe ends.
private final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false

    init(_ handle: FileHandle) {
        Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            lock.withLock { finished = true }
        }.start()
    }

    var isFinished: Bool { lock.withLock { finished } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
