public import Foundation

/// What a run of a child process printed and how it exited.
public struct CommandResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public var description: String {
        "exit \(status)\n--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)"
    }
}

/// Runs the `apiprobe` executable that `swift build` put beside the test bundle, and other child processes.
///
/// Every wait here is asynchronous: a test never blocks a thread of Swift's cooperative pool while a child
/// runs. The pool has as many threads as cores (two on CI, one under `taskset -c 0`), and servers that a
/// child calls back (the in-process recipes server) run on the same pool: a blocked thread starved them.
public enum CommandLineRunner {
    /// The folder of the built products (`.build/<triple>/debug`).
    public static var productsDirectory: URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        #endif
        return Bundle.main.bundleURL
    }

    /// The `apiprobe` binary.
    public static var executable: URL { productsDirectory.appendingPathComponent("apiprobe") }

    /// Runs `apiprobe` with `arguments`, standard input empty, and returns once it has exited.
    ///
    /// - Parameters:
    ///   - environment: added to (and overriding) this process's environment; `NO_COLOR` is set unless given.
    ///   - directory: the working folder.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL? = nil
    ) async throws -> CommandResult {
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "GITHUB_STEP_SUMMARY")
        for (key, value) in environment { env[key] = value }
        return try await runProcess(executable, arguments, environment: env, in: directory)
    }

    /// Runs `executable`, feeding `input` to its standard input, and returns once it has exited and both
    /// output pipes are drained. Pipes are read and written on their own threads, the exit is awaited
    /// through the termination handler: nothing here blocks the caller's thread.
    public static func runProcess(
        _ executable: URL,
        _ arguments: [String],
        environment: [String: String]? = nil,
        in directory: URL? = nil,
        input: Data? = nil
    ) async throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        let stdin = input.map { _ in Pipe() }
        process.standardOutput = output
        process.standardError = error
        process.standardInput = stdin ?? FileHandle.nullDevice
        let gathered = Gathered()
        return try await withCheckedThrowingContinuation { continuation in
            gathered.onComplete = { continuation.resume(returning: $0) }
            process.terminationHandler = { gathered.exited($0.terminationStatus) }
            do {
                try process.run()
            } catch {
                gathered.onComplete = nil
                continuation.resume(throwing: error)
                return
            }
            ChildProcesses.started(process)
            Thread { gathered.output(output.fileHandleForReading.readDataToEndOfFile()) }.start()
            Thread { gathered.error(error.fileHandleForReading.readDataToEndOfFile()) }.start()
            if let stdin, let input {
                Thread {
                    stdin.fileHandleForWriting.write(input)
                    try? stdin.fileHandleForWriting.close()
                }
                .start()
            }
        }
    }

    /// Waits, without blocking a thread, until `process` (already started) has exited; returns its status.
    ///
    /// Set no `terminationHandler` of your own on a process handed here.
    public static func waitForExit(_ process: Process) async -> Int32 {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce()
            process.terminationHandler = { finished in
                if once.claim() { continuation.resume(returning: finished.terminationStatus) }
            }
            // It may have exited before the handler was set.
            if !process.isRunning, once.claim() { continuation.resume(returning: process.terminationStatus) }
        }
    }
}

/// True for the first caller only.
private final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false

    func claim() -> Bool {
        lock.withLock {
            defer { claimed = true }
            return !claimed
        }
    }
}

/// The three things a finished child gives (its status and both outputs), in whatever order they come.
private final class Gathered: @unchecked Sendable {
    private let lock = NSLock()
    private var status: Int32?
    private var standardOutput: Data?
    private var standardError: Data?
    var onComplete: (@Sendable (CommandResult) -> Void)?

    func exited(_ value: Int32) { update { $0.status = value } }
    func output(_ value: Data) { update { $0.standardOutput = value } }
    func error(_ value: Data) { update { $0.standardError = value } }

    private func update(_ change: (Gathered) -> Void) {
        let finished: (CommandResult, @Sendable (CommandResult) -> Void)? = lock.withLock {
            change(self)
            guard let status, let standardOutput, let standardError, let onComplete else { return nil }
            self.onComplete = nil
            let result = CommandResult(
                status: status,
                standardOutput: String(decoding: standardOutput, as: UTF8.self),
                standardError: String(decoding: standardError, as: UTF8.self))
            return (result, onComplete)
        }
        if let (result, complete) = finished { complete(result) }
    }
}
