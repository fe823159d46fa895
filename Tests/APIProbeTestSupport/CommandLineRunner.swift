public import Foundation

/// What a run of the built `apiprobe` binary printed and how it exited.
public struct CommandResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public var description: String {
        "exit \(status)\n--- stdout\n\(standardOutput)\n--- stderr\n\(standardError)"
    }
}

/// Runs the `apiprobe` executable that `swift build` put beside the test bundle.
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

    /// Runs `apiprobe` with `arguments`, standard input empty, and waits for it to exit.
    ///
    /// - Parameters:
    ///   - environment: added to (and overriding) this process's environment; `NO_COLOR` is set unless given.
    ///   - directory: the working folder.
    public static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        in directory: URL? = nil
    ) throws -> CommandResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "GITHUB_STEP_SUMMARY")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes concurrently so a full pipe never blocks the child.
        let errorData = LockedData()
        let reader = Thread { errorData.set(error.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1_000) }
        return CommandResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self)
        )
    }

    /// A new empty temporary folder, removed by the caller.
    public static func makeTemporaryDirectory(_ prefix: String = "apiprobe-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

private final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var done = false

    func set(_ value: Data) {
        lock.lock()
        data = value
        done = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }

    var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
