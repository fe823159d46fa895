import APIProbeTestSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `prometheus` server (Debian's package), started on a free loopback port for one test with a scrape
/// config of the test's own and a temporary storage folder, and stopped after it.
final class PrometheusServerProcess {
    let process: Process
    let baseURL: URL
    let folder: URL

    private init(process: Process, baseURL: URL, folder: URL) {
        self.process = process
        self.baseURL = baseURL
        self.folder = folder
    }

    static var executable: URL? { ExternalTools.find("prometheus") }

    /// Starts Prometheus scraping `target` (`127.0.0.1:9091`) every second, honouring the target's labels (as
    /// a Pushgateway scrape must), and waits until `/-/ready` answers 200.
    static func start(_ executable: URL, scraping target: String) async throws -> PrometheusServerProcess {
        var lastProblem = "not started"
        for _ in 0..<3 {
            let port = try ExternalTools.freeLoopbackPort()
            let folder = try CommandLineRunner.makeTemporaryDirectory("prometheus")
            let config = """
                global: {scrape_interval: 1s, evaluation_interval: 1s}
                scrape_configs:
                  - job_name: pushgateway
                    honor_labels: true
                    static_configs: [{targets: ["\(target)"]}]
                """
            try Data(config.utf8).write(to: folder.appendingPathComponent("prometheus.yml"))
            let log = folder.appendingPathComponent("prometheus.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = [
                "--config.file=\(folder.appendingPathComponent("prometheus.yml").path)",
                "--storage.tsdb.path=\(folder.appendingPathComponent("data").path)",
                "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
            ]
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let server = PrometheusServerProcess(
                process: process, baseURL: URL(string: "http://127.0.0.1:\(port)")!, folder: folder)
            if await server.waitUntilReady() { return server }
            lastProblem = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            await server.stop()
        }
        throw NotReady(description: "prometheus did not become ready: \(lastProblem)")
    }

    struct NotReady: Error, CustomStringConvertible {
        var description: String
    }

    private func waitUntilReady() async -> Bool {
        for _ in 0..<400 {
            guard process.isRunning else { return false }
            if let (_, status) = try? await get("/-/ready"), status == 200 { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    func get(_ path: String) async throws -> (String, Int) {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.timeoutInterval = 5
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// The value of an instant PromQL query that gives one sample, or `nil` when it gives none.
    func query(_ promQL: String) async throws -> Double? {
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

    func stop() async {
        if process.isRunning {
            process.terminate()
            _ = await CommandLineRunner.waitForExit(process)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    static func with<R>(
        _ executable: URL, scraping target: String, _ body: (PrometheusServerProcess) async throws -> R
    ) async throws -> R {
        let server = try await start(executable, scraping: target)
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
