import APIProbeTestSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `prometheus-pushgateway`, started on a free loopback port for one test and stopped after it.
final class PushgatewayProcess {
    let process: Process
    let baseURL: URL
    let log: URL

    private init(process: Process, baseURL: URL, log: URL) {
        self.process = process
        self.baseURL = baseURL
        self.log = log
    }

    /// Starts the binary at `executable` with no persistence file and waits until `/-/ready` answers 200.
    static func start(_ executable: URL) async throws -> PushgatewayProcess {
        var lastProblem = "not started"
        // The port is free when picked but may be taken before the gateway binds it: try a few.
        for _ in 0..<3 {
            let port = try ExternalTools.freeLoopbackPort()
            let log = FileManager.default.temporaryDirectory
                .appendingPathComponent("pushgateway-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            // `--persistence.file=` explicitly: Debian's build otherwise persists to
            // /var/lib/prometheus/pushgateway.data, and series pushed by any earlier gateway reappear.
            process.arguments = [
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn", "--persistence.file=",
            ]
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let gateway = PushgatewayProcess(
                process: process, baseURL: URL(string: "http://127.0.0.1:\(port)")!, log: log)
            if await gateway.waitUntilReady() { return gateway }
            lastProblem = gateway.logText()
            await gateway.stop()
        }
        throw GatewayNotReady(message: "prometheus-pushgateway did not become ready: \(lastProblem)")
    }

    struct GatewayNotReady: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Polls `/-/ready` for up to 15 seconds.
    private func waitUntilReady() async -> Bool {
        for _ in 0..<300 {
            guard process.isRunning else { return false }
            if let (_, status) = try? await get("/-/ready"), status == 200 { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// `GET path`: the body and the status.
    func get(_ path: String) async throws -> (String, Int) {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.timeoutInterval = 5
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    func logText() -> String {
        (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    }

    /// Stops the process this test started (by its own handle, nothing else), waits for it without blocking a
    /// thread, and removes its log.
    func stop() async {
        if process.isRunning {
            process.terminate()
            _ = await CommandLineRunner.waitForExit(process)
        }
        try? FileManager.default.removeItem(at: log)
    }

    /// Runs `body` against a gateway started for it, and stops the gateway afterwards, even when `body` throws.
    static func with<R>(_ executable: URL, _ body: (PushgatewayProcess) async throws -> R) async throws -> R {
        let gateway = try await start(executable)
        do {
            let result = try await body(gateway)
            await gateway.stop()
            return result
        } catch {
            await gateway.stop()
            throw error
        }
    }
}
