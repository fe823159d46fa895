// ProbeBenchmark: the probe runner's accuracy, throughput, memory and steadiness over many rounds,
// against the embedded recipes server on 127.0.0.1.
//
//     swift run -c release ProbeBenchmark [--quick]
//
// (a) accuracy: server latency fixed at 200 ms; the runner's p50 beside the truth and beside curl's
//     time_total on the same endpoint in the same run.
// (b) throughput: 1,000 endpoints x 5 samples at concurrency 32, beside a bare URLSession loop at the same
//     concurrency, in interleaved rounds judged by the median of each round's ratio; peak RSS (VmHWM).
// (c) rounds: many rounds of one endpoint; RSS at the start and the end.
// (d) a fresh process: `samples: 1` in a new process each time (cron), beside curl's time_total in
//     interleaved runs on the same endpoint; and how far each sample's phases are from its latency.
// (e) with `--soak-minutes N --binary PATH` only: a release `apiprobe run --every 1s` over 20 endpoints with
//     --history for N minutes (one endpoint down, its alert receiver refusing; `--push-gateway URL` pushes every
//     round), its resident memory's slope printed (MiB per hour, KiB per round).
//
// (b) and (c) probe a recipes server in a child process (this binary with `--serve`), as a real API
// is: in one process, the server's request handlers would share Swift's cooperative thread pool (two
// threads on a two-core machine) with the prober, and penalise whichever contender schedules more work
// there rather than measure it.
import APIProbeShared
import BenchmarkSupport
import Foundation
import ProbeClient
import ProbeRunner
import RecipesServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let quick = CommandLine.arguments.contains("--quick")

if CommandLine.arguments.contains("--serve") {
    // The child: serve on a free port, say which, and stop when the parent closes standard input.
    let served = try await RecipesServer.start()
    FileHandle.standardOutput.write(Data("\(served.port)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    await served.stop()
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--probe-once"), index + 1 < CommandLine.arguments.count,
    let url = URL(string: CommandLine.arguments[index + 1])
{
    // The child of (d): one sample in a fresh process, as a cron-started `apiprobe run` takes it; prints its
    // latency and the sum of its phases, in milliseconds.
    var origin = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
    let path = origin.percentEncodedPath + (origin.percentEncodedQuery.map { "?" + $0 } ?? "")
    origin.percentEncodedPath = ""
    origin.percentEncodedQuery = nil
    let config = ProbeConfig(
        api: "fresh", baseURL: origin.url ?? url, endpoints: [EndpointConfig(name: "once", path: path, samples: 1)],
        concurrency: 1, deadline: .seconds(10))
    let result = await ProbeRunner(config: config, directory: URL(fileURLWithPath: "/")).run()
    guard let sample = result.endpoints.first?.samples.first, let phases = sample.phases,
        result.endpoints.first?.passed == true
    else {
        FileHandle.standardError.write(Data("no answer: \(result.endpoints.first?.checks ?? [])\n".utf8))
        exit(1)
    }
    let sum = phases.named.reduce(Duration.zero) { $0 + $1.duration }
    // The latency and the phases' sum, then each phase (for a person reading the child's output).
    print(
        ([sample.latency, sum] + phases.named.map(\.duration)).map { String($0.timeInterval * 1_000) }
            .joined(separator: " "))
    exit(0)
}

/// (e) the soak (issue 38, item 9): `--soak-minutes N --binary PATH` runs only this. The release `apiprobe` (PATH)
/// runs `run --every 1s --history` over 20 endpoints of a recipes server in a child process, as a Deployment runs
/// it, for N minutes; its resident memory (VmRSS) is read every 15 s, the first two minutes (warm-up) set aside, and
/// the least-squares slope of the rest printed, per round and per hour, with the hours until the manifests' 128 MiB
/// limit at that slope. One of the 20 endpoints is down throughout and its alert's receiver refuses connections, so
/// every round also retries the outbox; with `--push-gateway URL` (a real Pushgateway) every round pushes, as the
/// Deployment does.
func soak(minutes: Int, binary: URL, pushGateway: String?) async throws {
    let server = try ChildServer.start()
    defer { server.stop() }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apiprobe-soak-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let endpoints = (0..<20).map { index in
        index == 19
            ? "  - {name: gone\(index), path: /api/missing, expect: {status: 200}}"
            : index % 2 == 0
                ? "  - {name: search\(index), path: /api/search, query: {q: chicken, page: \"\(index / 2 + 1)\"}, expect: {status: 200, body: [/count > 0]}}"
                : "  - {name: health\(index), path: /api/health, expect: {status: 200, latency: [p95 < 1s]}}"
    }
    let config = folder.appendingPathComponent("apiprobe.yml")
    try Data(
        ("api: recipes\nbaseURL: \(server.baseURL.absoluteString)\nhistory: {keep: 1h}\n"
            + "alerts:\n  - webhook: http://127.0.0.1:9/alerts\nendpoints:\n"
            + endpoints.joined(separator: "\n") + "\n").utf8
    ).write(to: config)
    let process = Process()
    process.executableURL = binary
    process.arguments =
        [
            "run", "--config", config.path, "--every", "1s", "--history",
            folder.appendingPathComponent("history.jsonl").path,
            "--report", "json=" + folder.appendingPathComponent("report.json").path,
        ] + (pushGateway.map { ["--push-gateway", $0] } ?? [])
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    func resident() -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }.map { $0 / 1_024 }
        }
        return nil
    }
    print(
        "(e) soak: apiprobe run --every 1s over 20 endpoints (one down, its alert receiver refusing) with --history"
            + (pushGateway.map { ", pushing to \($0)" } ?? "") + ", \(minutes) minutes")
    let start = now()
    var points: [(minutes: Double, mib: Double)] = []
    while now() - start < Double(minutes) * 60 {
        try await Task.sleep(for: .seconds(15))
        guard process.isRunning, let value = resident() else {
            print("  the run stopped (status \(process.isRunning ? 0 : process.terminationStatus))")
            return
        }
        let elapsed = (now() - start) / 60
        points.append((elapsed, value))
        print("  \(format(elapsed, 2)) min: \(format(value)) MiB")
    }
    let kept = points.filter { $0.minutes >= 2 }
    guard kept.count >= 6 else {
        print("  too short for a slope: give --soak-minutes 5 or more")
        return
    }
    /// The least-squares slope of `points`, in MiB per minute.
    func slope(_ points: ArraySlice<(minutes: Double, mib: Double)>) -> Double {
        let meanX = points.map(\.minutes).reduce(0, +) / Double(points.count)
        let meanY = points.map(\.mib).reduce(0, +) / Double(points.count)
        let covariance = points.reduce(0) { $0 + ($1.minutes - meanX) * ($1.mib - meanY) }
        let variance = points.reduce(0) { $0 + ($1.minutes - meanX) * ($1.minutes - meanX) }
        return variance > 0 ? covariance / variance : 0
    }
    let last = kept.last?.mib ?? 0
    // The whole measurement, and its second half: a step (the allocator keeping a peak a slow round made) weighs
    // on the first, a leak on both.
    for (label, perMinute) in [
        ("after the first 2 minutes", slope(kept[...])), ("over the second half", slope(kept.suffix(kept.count / 2))),
    ] {
        let hours = perMinute > 0 ? (128 - last) / (perMinute * 60) : .infinity
        print(
            "  slope \(label): \(format(perMinute * 60, 2)) MiB per hour "
                + "(\(format(perMinute * 1_024 / 60, 3)) KiB per round); "
                + (hours.isFinite ? "128 MiB in \(format(hours)) hours at that slope" : "flat or falling"))
    }
    print(
        "  range after the first 2 minutes: \(format(kept.map(\.mib).min() ?? 0)) to \(format(kept.map(\.mib).max() ?? 0)) MiB"
    )
}

if let index = CommandLine.arguments.firstIndex(of: "--soak-minutes"), index + 1 < CommandLine.arguments.count,
    let minutes = Int(CommandLine.arguments[index + 1])
{
    guard let binaryIndex = CommandLine.arguments.firstIndex(of: "--binary"),
        binaryIndex + 1 < CommandLine.arguments.count
    else {
        print(
            "error: --soak-minutes needs --binary PATH (a release apiprobe: swift build -c release --product apiprobe)")
        exit(2)
    }
    let pushIndex = CommandLine.arguments.firstIndex(of: "--push-gateway")
    try await soak(
        minutes: minutes, binary: URL(fileURLWithPath: CommandLine.arguments[binaryIndex + 1]),
        pushGateway: pushIndex.flatMap { $0 + 1 < CommandLine.arguments.count ? CommandLine.arguments[$0 + 1] : nil })
    exit(0)
}

/// A recipes server in a child process; `stop()` closes its standard input, and it exits.
struct ChildServer {
    let process: Process
    let input: Pipe
    let baseURL: URL

    static func start() throws -> ChildServer {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--serve"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            let url = URL(string: "http://127.0.0.1:\(port)")
        else {
            process.terminate()
            throw CocoaError(
                .fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the server child said no port"])
        }
        return ChildServer(process: process, input: input, baseURL: url)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

func statusValue(_ key: String) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
        let digits = line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        return digits.map { $0 / 1_024 }  // kB -> MiB
    }
    return nil
}

func mib(_ value: Double?) -> String { value.map { String(format: "%.1f MiB", $0) } ?? "n/a (no /proc)" }

/// The numbers a child process printed on standard output, or `nil` when it could not start or failed.
func numbersPrinted(by executable: URL, _ arguments: [String]) -> [Double]? {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
}

func curlTimes(_ url: URL, count: Int) -> [Double]? {
    var times: [Double] = []
    for _ in 0..<count {
        guard
            let seconds = numbersPrinted(
                by: URL(fileURLWithPath: "/usr/bin/env"),
                ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", url.absoluteString])?.first
        else { return nil }
        times.append(seconds * 1_000)
    }
    return times
}

// MARK: (a) accuracy

print("ProbeBenchmark\(quick ? " (quick)" : "")")
let slow = try await RecipesServer.start(.init(latency: .fixed(.milliseconds(200))))
let samples = quick ? 10 : 30
let accuracyConfig = ProbeConfig(
    api: "recipes", baseURL: slow.baseURL,
    endpoints: [
        EndpointConfig(
            name: "get", path: "/api/get", query: [QueryItem(name: "rId", value: "35382")], samples: samples,
            timeout: .seconds(5))
    ], concurrency: 1, deadline: .seconds(120))
let accuracy = await ProbeRunner(config: accuracyConfig, directory: URL(fileURLWithPath: "/")).run()
let probeStats = accuracy.endpoints[0].latency
print("(a) accuracy: server latency fixed 200 ms, \(samples) samples of /api/get")
if let probeStats {
    print(
        String(
            format: "    runner p50 %.2f ms (truth 200 ms: %+.2f ms), min %.2f, max %.2f; TTFB p50 %.2f ms",
            probeStats.p50, probeStats.p50 - 200, probeStats.min, probeStats.max,
            accuracy.endpoints[0].timeToFirstByte?.p50 ?? .nan))
    print("    within 2 ms of truth: \(abs(probeStats.p50 - 200) <= 2 ? "yes" : "NO")")
    if let phases = accuracy.endpoints[0].phases {
        let parts = PhaseTimings.names.map { name in
            String(format: "%@ %.2f", name, phases.phases[name]?.p50 ?? .nan)
        }
        print(
            "    phases p50 (ms): \(parts.joined(separator: ", ")); \(phases.reusedConnections) of \(phases.count) samples reused the connection"
        )
    }
    let url = slow.baseURL.appendingPathComponent("api/get").absoluteString + "?rId=35382"
    if let curl = curlTimes(URL(string: url)!, count: samples) {
        let curlP50 = median(curl)
        let ratio = probeStats.p50 / curlP50
        print(String(format: "    curl time_total p50 %.2f ms; runner/curl %.3fx (target <= 1.05x)", curlP50, ratio))
    } else {
        print("    curl not found or failed: the curl comparison is skipped")
    }
} else {
    print("    no responses: \(accuracy.endpoints[0].checks)")
}
await slow.stop()

// MARK: (b) throughput and peak RSS

let server = try ChildServer.start()
let endpointCount = quick ? 200 : 1_000
let perEndpoint = 5
let concurrency = 32
let endpoints = (0..<endpointCount).map { index in
    EndpointConfig(
        name: "e\(index)", path: "/api/get", query: [QueryItem(name: "rId", value: "35382")], samples: perEndpoint)
}
let throughputConfig = ProbeConfig(
    api: "recipes", baseURL: server.baseURL, endpoints: endpoints, concurrency: concurrency, deadline: .seconds(600))
// Warm up both paths a little (connections, code paths).
_ = await ProbeRunner(
    config: ProbeConfig(
        api: "recipes", baseURL: server.baseURL, endpoints: Array(endpoints.prefix(64)), concurrency: concurrency),
    directory: URL(fileURLWithPath: "/")
).run()

let requestCount = endpointCount * perEndpoint
let clock = ContinuousClock()
let throughputRounds = quick ? 3 : 5

/// The same requests on a bare URLSession, `concurrency` at a time.
func bareLoop(url: URL, count: Int, concurrency: Int) async -> Duration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = concurrency
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let start = ContinuousClock.now
    await withTaskGroup(of: Void.self) { group in
        let perWorker = count / concurrency
        for worker in 0..<concurrency {
            let share = perWorker + (worker < count % concurrency ? 1 : 0)
            group.addTask {
                for _ in 0..<share { _ = try? await session.data(from: url) }
            }
        }
    }
    return ContinuousClock.now - start
}
let bareURL = URL(string: server.baseURL.absoluteString + "/api/get?rId=35382")!
_ = await bareLoop(url: bareURL, count: 64, concurrency: concurrency)

/// Rounds alternate which of the two goes first, and the verdict is the median of each round's ratio:
/// the two runs of a round are seconds apart, so a slow spell of this shared machine hits both.
var runnerRates: [Double] = []
var bareRates: [Double] = []
var runnerCPU: [Double] = []
var bareCPU: [Double] = []

/// The CPU time this process has used, all threads, in seconds (the server runs in another process).
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
var failures = 0
for round in 0..<throughputRounds {
    func runRunner() async {
        let start = clock.now
        let cpu = processCPUTime()
        let report = await ProbeRunner(config: throughputConfig, directory: URL(fileURLWithPath: "/")).run()
        runnerRates.append(Double(requestCount) / (clock.now - start).timeInterval)
        runnerCPU.append((processCPUTime() - cpu) / Double(requestCount) * 1e6)
        failures += report.endpoints.filter { !$0.passed }.count
    }
    func runBare() async {
        let cpu = processCPUTime()
        let elapsed = await bareLoop(url: bareURL, count: requestCount, concurrency: concurrency)
        bareRates.append(Double(requestCount) / elapsed.timeInterval)
        bareCPU.append((processCPUTime() - cpu) / Double(requestCount) * 1e6)
    }
    if round % 2 == 0 {
        await runRunner()
        await runBare()
    } else {
        await runBare()
        await runRunner()
    }
}
let ratios = zip(runnerRates, bareRates).map { $0 / $1 }
let pairedRatio = median(ratios)
print(
    "(b) throughput: \(endpointCount) endpoints x \(perEndpoint) samples, concurrency \(concurrency), \(throughputRounds) rounds"
)
print(
    String(
        format:
            "    runner median %.0f req/s, %.0f µs CPU a request (%d endpoint runs failed); bare URLSession median %.0f req/s, %.0f µs CPU a request",
        median(runnerRates), median(runnerCPU), failures, median(bareRates), median(bareCPU)))
print(
    "    rounds' ratios \(ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")); median \(String(format: "%.2f", pairedRatio)) (target >= 0.8: \(pairedRatio >= 0.8 ? "met" : "missed"))"
)
print("    peak RSS (VmHWM) \(mib(statusValue("VmHWM"))) (target < 100 MiB)")

// MARK: (c) many rounds

let roundConfig = ProbeConfig(
    api: "recipes", baseURL: server.baseURL,
    endpoints: [EndpointConfig(name: "get", path: "/api/get", query: [QueryItem(name: "rId", value: "35382")])],
    concurrency: 1, deadline: .seconds(10))
let roundRunner = ProbeRunner(config: roundConfig, directory: URL(fileURLWithPath: "/"))
var carried: [String: Int] = [:]
for _ in 0..<200 { _ = await roundRunner.run(previousFailures: carried) }
let rssStart = statusValue("VmRSS")
let targetRounds = quick ? 1_000 : 10_000
let budget: Duration = quick ? .seconds(20) : .seconds(90)
let roundsStart = clock.now
var rounds = 0
var failedRounds = 0
while rounds < targetRounds && clock.now - roundsStart < budget {
    let result = await roundRunner.run(previousFailures: carried)
    carried = Dictionary(uniqueKeysWithValues: result.endpoints.map { ($0.name, $0.consecutiveFailures) })
    if !result.passed { failedRounds += 1 }
    rounds += 1
}
let rssEnd = statusValue("VmRSS")
let roundsElapsed = clock.now - roundsStart
print(
    "(c) rounds: \(rounds) rounds of 1 endpoint in \(String(format: "%.1f", roundsElapsed.timeInterval)) s"
        + (rounds < targetRounds ? " (stopped at the \(budget) budget, short of \(targetRounds))" : "")
        + ", \(failedRounds) failed")
print("    RSS after 200 warm-up rounds \(mib(rssStart)), at the end \(mib(rssEnd))")

// MARK: (d) a fresh process

/// One sample taken by this binary in a new process: its latency and the sum of its phases, in milliseconds.
func freshProcessSample(_ url: URL) -> (latency: Double, phases: Double)? {
    let binary = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    guard let numbers = numbersPrinted(by: binary, ["--probe-once", url.absoluteString]), numbers.count >= 2
    else { return nil }
    return (numbers[0], numbers[1])
}

let freshRuns = quick ? 7 : 21
var freshLatencies: [Double] = []
var freshGaps: [Double] = []
var freshCurl: [Double] = []
for run in 0..<freshRuns {
    // Alternate which goes first, so that a slow spell of the machine falls on both.
    let order = run % 2 == 0 ? [true, false] : [false, true]
    for fresh in order {
        if fresh {
            if let sample = freshProcessSample(bareURL) {
                freshLatencies.append(sample.latency)
                freshGaps.append(abs(sample.latency - sample.phases))
            }
        } else if let time = curlTimes(bareURL, count: 1)?.first {
            freshCurl.append(time)
        }
    }
}
print("(d) a fresh process, samples: 1, \(freshRuns) runs of each, interleaved with curl on \(bareURL.path)")
if freshLatencies.count == freshRuns, freshCurl.count == freshRuns {
    let freshMedian = median(freshLatencies)
    let curlMedian = median(freshCurl)
    let limit = 1.1 * curlMedian + 1
    print(
        String(
            format:
                "    fresh-process latency median %.2f ms, curl time_total median %.2f ms: ratio %.2fx (target <= 1.1x curl + 1 ms = %.2f ms: %@)",
            freshMedian, curlMedian, freshMedian / curlMedian, limit, freshMedian <= limit ? "met" : "missed"))
    print(
        String(
            format: "    latency minus the sum of the phases: at most %.3f ms over the runs (target <= 0.5 ms: %@)",
            freshGaps.max() ?? .nan, (freshGaps.max() ?? .infinity) <= 0.5 ? "met" : "missed"))
} else {
    print(
        "    skipped: \(freshLatencies.count) fresh runs and \(freshCurl.count) curl runs answered (is curl installed?)"
    )
}
server.stop()
