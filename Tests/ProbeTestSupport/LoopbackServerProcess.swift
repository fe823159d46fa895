import APIProbeTestSupport
package import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server from Debian's packages (the Pushgateway, Prometheus), started for one test on a free loopback port,
/// with a temporary folder for its log and files, and stopped after it (by its own handle, nothing else).
package final class LoopbackServerProcess {
    package let process: Process
    package let baseURL: URL
    package let folder: URL

    private init(process: Process, baseURL: URL, folder: URL) {
        self.process = process
        self.baseURL = baseURL
        self.folder = folder
    }

    /// Starts `executable` with the arguments `arguments(port, folder)` gives and waits until `readyPath` answers
    /// 200 (up to 20 s); a port taken before the server binds it is tried again with another.
    package static func start(
        _ executable: URL, named name: String, readyPath: String = "/-/ready",
        arguments: (_ port: Int, _ folder: URL) throws -> [String]
    ) async throws -> LoopbackServerProcess {
        var lastProblem = "not started"
        for _ in 0..<3 {
            let port = try ExternalTools.freeLoopbackPort()
            let folder = try TemporaryFolder.makeUnscoped(name)
            let log = folder.appendingPathComponent("server.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = try arguments(port, folder)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            ChildProcesses.started(process)
            let server = LoopbackServerProcess(
                process: process, baseURL: URL(string: "http://127.0.0.1:\(port)")!, folder: folder)
            if await server.waitUntilReady(readyPath) { return server }
            lastProblem = server.logText()
            await server.stop()
        }
        throw NotReady(description: "\(name) did not become ready: \(lastProblem)")
    }

    package struct NotReady: Error, CustomStringConvertible {
        package var description: String
    }

    private func waitUntilReady(_ path: String) async -> Bool {
        for _ in 0..<400 {
            guard process.isRunning else { return false }
            if let (_, status) = try? await get(path), status == 200 { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// `GET path`: the body and the status.
    package func get(_ path: String) async throws -> (String, Int) {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.timeoutInterval = 5
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    package func logText() -> String {
        (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
    }

    /// Stops the process this test started, waits for it without blocking a thread, and removes its folder.
    package func stop() async {
        if process.isRunning {
            process.terminate()
            _ = await CommandLineRunner.waitForExit(process)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs `body` against `server`, and stops it afterwards, even when `body` throws.
    package static func with<R>(
        _ server: @autoclosure () async throws -> LoopbackServerProcess,
        _ body: (LoopbackServerProcess) async throws -> R
    ) async throws -> R {
        let server = try await server()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }
}

/// The real `prometheus-pushgateway`, with no persistence file (Debian's build otherwise persists to
/// /var/lib/prometheus/pushgateway.data, and series pushed by any earlier gateway reappear).
package enum PushgatewayProcess {
    package static func with<R>(_ executable: URL, _ body: (LoopbackServerProcess) async throws -> R) async throws -> R
    {
        try await LoopbackServerProcess.with(
            await LoopbackServerProcess.start(executable, named: "pushgateway") { port, _ in
                ["--web.listen-address=127.0.0.1:\(port)", "--log.level=warn", "--persistence.file="]
            }, body)
    }
}

/// The real `prometheus` server, scraping one target every second with a config and storage of the test's own,
/// honouring the target's labels (as a Pushgateway scrape must).
package enum PrometheusServerProcess {
    package static var executable: URL? { ExternalTools.find("prometheus") }

    package static func with<R>(
        _ executable: URL, scraping target: String, _ body: (LoopbackServerProcess) async throws -> R
    ) async throws -> R {
        try await LoopbackServerProcess.with(
            await LoopbackServerProcess.start(executable, named: "prometheus") { port, folder in
                let config = """
                    global: {scrape_interval: 1s, evaluation_interval: 1s}
                    scrape_configs:
                      - job_name: pushgateway
                        honor_labels: true
                        static_configs: [{targets: ["\(target)"]}]
                    """
                try Data(config.utf8).write(to: folder.appendingPathComponent("prometheus.yml"))
                return [
                    "--config.file=\(folder.appendingPathComponent("prometheus.yml").path)",
                    "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                    "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
                ]
            }, body)
    }
}

extension LoopbackServerProcess {
    /// The value of an instant PromQL query that gives one sample, or `nil` when it gives none (Prometheus).
    package func query(_ promQL: String) async throws -> Double? {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "query", value: promQL)]
        let encoded = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        let (body, status) = try await get("/api/v1/query?" + encoded)
        guard status == 200,
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
            let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]]
        else { throw NotReady(description: "query \(promQL): \(status) \(body)") }
        guard let first = result.first, let value = first["value"] as? [Any], value.count == 2,
            let text = value[1] as? String
        else { return nil }
        return Double(text)
    }
}
