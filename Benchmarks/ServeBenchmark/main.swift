// ServeBenchmark: `apiprobe serve` answering from 1,000 fixtures, against a bare Hummingbird route that returns a
// constant body of the same size (the limit of this stack), measured side by side in one run with `wrk` (Debian's
// package) on loopback with keep-alive.
//
//   swift run -c release ServeBenchmark [--fixtures 1000] [--seconds 10] [--rounds 3] [--soak-seconds 0]
//                                       [--record 10000] [--patterned-every 10]
//   swift run -c release ServeBenchmark --matching [200000]      (no network: see below)
//   swift run -c release ServeBenchmark --handler [100000]       (no network: see below)
//
// One fixture in ten uses the matching UI tests reach for (issue 35): a path pattern (an ECMA-262 regular
// expression, so the fixture is not in the exact-path index and is tried for every request) and a value at a body
// pointer; wrk sends those a POST with the body they ask for, and a GET to the others. Each round runs wrk against
// the bare route, then against the fixture server (each request a random one of the fixtures, through a Lua
// script), and prints requests per second and the 99th percentile latency of each, and their ratio. A round
// measures each side twice for half of --seconds, in the order bare, serve, serve, bare, so that a shared machine's
// drift during the round weighs on both sides alike. Issue 35's
// target: the fixture server at 0.9x the bare route's throughput or more. With --soak-seconds N, the fixture server
// then answers for N more seconds and the process's resident memory before and after is printed.
//
// With --record N (0 to skip), `serve --proxy` records N distinct requests from a live API (a constant route in
// this process) into an empty folder, in a child process of its own (its resident memory read from /proc): the
// child's memory and a fixture hit's latency (wrk, one connection) before, every quarter of the way, and after; then
// a fresh server on the folder it wrote, for comparison. Issue 35's target: memory and hit latency flat, the
// recording server within reach of the fresh one.
import BenchmarkSupport
import FixtureServer
import Foundation
import HTTPFixtures
import HTTPStubs
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import RecipesServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line on standard output, written at once (a pipe would hold `print`'s until the end).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let fixtureCount = argument("--fixtures", default: 1_000)
let seconds = argument("--seconds", default: 10)
let rounds = argument("--rounds", default: 3)
let soakSeconds = argument("--soak-seconds", default: 0)
let recordCount = argument("--record", default: 10_000)
/// One fixture in this many uses a pattern and a body pointer (0: none, the fixtures of issue 23's benchmark).
let patternedEvery = argument("--patterned-every", default: 10)

// The child a --record run starts: `ServeBenchmark --child FOLDER [PROXY]` serves FOLDER (recording from PROXY),
// prints its port, and runs until killed.
if let index = CommandLine.arguments.firstIndex(of: "--child"), CommandLine.arguments.count > index + 1 {
    let childFolder = URL(fileURLWithPath: CommandLine.arguments[index + 1])
    var options = FixtureServer.Options()
    if CommandLine.arguments.count > index + 2 { options.proxy = URL(string: CommandLine.arguments[index + 2]) }
    let started = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            let server = try await FixtureServer.start(
                folder: childFolder, displayName: "record", options: options, log: { _ in })
            say("port \(server.port)")
            started.signal()
            try await server.wait()
            exit(0)
        } catch {
            say("error: \(error)")
            exit(3)
        }
    }
    started.wait()
    while true { sleep(3_600) }
}

// `ServeBenchmark --matching [N]`: the stub set's own cost of a server's request, on one thread and without the
// network, from --fixtures stubs of exact GET routes: matched (the request made from its target, its candidates
// looked up and compared: `StubSet.answer`) against answered by its key (`StubSet.answerRepeated`, the same answer
// of a request whose method and target were answered before by a stub that compared nothing else), interleaved
// over five rounds of N random requests; the medians per request and their ratio.
if let index = CommandLine.arguments.firstIndex(of: "--matching") {
    let requests = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 200_000
    let set = StubSet()
    set.keepsRequestLog = false
    let originURL = URL(string: "https://api.example.test")!
    for item in 0..<fixtureCount {
        set.stub(.get("https://api.example.test/items/\(item)"), response: .json(text: body(item)))
    }
    guard let origin = StubRequest.Origin(originURL) else { exit(2) }
    let originText = StubRequest.Origin.text(of: originURL)
    let targets = (0..<fixtureCount).map { "/items/\($0)" }
    var generator = SystemRandomNumberGenerator()
    let order = (0..<requests).map { _ in Int.random(in: 0..<fixtureCount, using: &generator) }
    func key(_ target: String) -> StubSet.ServedKey? {
        StubSet.ServedKey(origin: originText, method: "GET", target: target)
    }
    // Each key answered once by matching, which remembers it.
    for target in targets {
        let request = StubRequest(method: "GET", origin: origin, keptTarget: target, headers: [:], body: nil)
        _ = set.answer(request, repeatedAs: key(target))
    }
    func matched() -> Double {
        let start = now()
        for item in order {
            let request = StubRequest(method: "GET", origin: origin, keptTarget: targets[item], headers: [:], body: nil)
            guard case .response = set.answer(request) else { exit(1) }
        }
        return (now() - start) / Double(requests) * 1e9
    }
    func byKey() -> Double {
        let start = now()
        for item in order {
            guard let key = key(targets[item]), set.answerRepeated(key) != nil else { exit(1) }
        }
        return (now() - start) / Double(requests) * 1e9
    }
    var matchedCosts: [Double] = []
    var keyCosts: [Double] = []
    for round in 1...5 {
        matchedCosts.append(matched())
        keyCosts.append(byKey())
        say(
            "round \(round): matched \(format(matchedCosts.last!, 0)) ns a request; by its key \(format(keyCosts.last!, 0)) ns"
        )
    }
    say(
        "matching, median of 5: matched \(format(median(matchedCosts), 0)) ns, by its key \(format(median(keyCosts), 0)) ns "
            + "a request (\(format(median(keyCosts) / median(matchedCosts), 2))x), \(fixtureCount) stubs, one thread")
    exit(0)
}

/// A response body of about 1 KB, as an API's item.
func body(_ index: Int) -> String {
    let tags = (0..<20).map { "\"tag-\($0)-\(index)\"" }.joined(separator: ", ")
    return #"{"id": \#(index), "name": "item \#(index)", "price": \#(index % 97).5, "available": true, "#
        + #""description": "\#(String(repeating: "x", count: 600))", "tags": [\#(tags)]}"#
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-bench-\(getpid())")
try? FileManager.default.removeItem(at: folder)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
for index in 0..<fixtureCount {
    // One in ten: a POST matched by a path pattern and a body pointer (`{"sku": "sku-<index>"}`).
    let fixture =
        patternedEvery > 0 && index % patternedEvery == 0
        ? #"{"metadata": {"match": {"pathPattern": "^/items/\#(index)(/details)?$", "#
            + #""bodyPointers": {"/sku": "sku-\#(index)"}}}, "#
            + #""request": {"method": "POST", "url": "https://api.example.test/items/\#(index)"}, "#
            + #""response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": \#(body(index))}}"#
        : #"{"request": {"method": "GET", "url": "https://api.example.test/items/\#(index)"}, "#
            + #""response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": \#(body(index))}}"#
    try Data(fixture.utf8).write(to: folder.appendingPathComponent("item-\(index).json"))
}
let script = folder.appendingPathComponent("paths.lua")
try Data(
    """
    request = function()
      local index = math.random(0, \(fixtureCount - 1))
      if \(patternedEvery) > 0 and index % \(max(patternedEvery, 1)) == 0 then
        return wrk.format("POST", "/items/" .. index, {["Content-Type"] = "application/json"},
          '{"sku": "sku-' .. index .. '", "qty": 1}')
      end
      return wrk.format("GET", "/items/" .. index)
    end
    """.utf8
).write(to: script)

// `ServeBenchmark --handler [N]`: one request's handling without the network: the fixture server's responder
// (what `serve` runs for each request, `FixtureServer.responder`) against the bare route's, called in turn on the
// same N requests (the wrk script's: a random fixture, a POST with its body for the patterned ones), interleaved
// over five rounds; the median cost of a request on each side and what serve adds. With the network's part of a
// request (measured by the wrk run's CPU a request), this is the part of the ratio the handler decides.
if let index = CommandLine.arguments.firstIndex(of: "--handler") {
    let count = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 100_000
    let parallel = max(argument("--parallel", default: 1), 1)
    let served = try FixtureServer.responder(
        folder: folder, displayName: "bench", options: FixtureServer.Options(), log: { _ in })
    let bare = ConstantResponder(bytes: ByteBuffer(string: body(fixtureCount / 2)))
    var generator = SystemRandomNumberGenerator()
    let heads: [(HTTPRequest, ByteBuffer?)] = (0..<count).map { _ in
        let item = Int.random(in: 0..<fixtureCount, using: &generator)
        var head = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1:8080", path: "/items/\(item)")
        guard patternedEvery > 0, item % patternedEvery == 0 else { return (head, nil) }
        let body = ByteBuffer(string: #"{"sku": "sku-\#(item)", "qty": 1}"#)
        head.method = .post
        head.headerFields[.contentType] = "application/json"
        head.headerFields[.contentLength] = String(body.readableBytes)
        return (head, body)
    }
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let source = ApplicationRequestContextSource(channel: EmbeddedChannel(), logger: Logger(label: "bench"))
        // With --parallel P, P tasks answer a share of the requests each at the same time (as a server's threads
        // do): the cost is the CPU time a request, so that what threads sharing the stub set cost each other shows.
        func cost<Responder: HTTPResponder>(_ responder: Responder, _ context: Responder.Context) async -> Double
        where Responder.Context: Sendable {
            let cpu = processCPUSeconds()
            await withTaskGroup(of: Void.self) { group in
                for lane in 0..<parallel {
                    group.addTask {
                        for (head, body) in heads[
                            (heads.count * lane / parallel)..<(heads.count * (lane + 1) / parallel)]
                        {
                            let request = Request(head: head, body: RequestBody(buffer: body ?? ByteBuffer()))
                            guard let response = try? await responder.respond(to: request, context: context),
                                response.status == .ok
                            else {
                                say("error: \(head.method) \(head.path ?? "") was not answered 200")
                                exit(1)
                            }
                        }
                    }
                }
            }
            return (processCPUSeconds() - cpu) / Double(heads.count) * 1e9
        }
        var serveCosts: [Double] = []
        var bareCosts: [Double] = []
        for round in 1...5 {
            bareCosts.append(await cost(bare, BasicRequestContext(source: source)))
            serveCosts.append(await cost(served, ServeContext(source: source)))
            say(
                "round \(round): bare route's handler \(format(bareCosts.last!, 0)) ns a request; serve's "
                    + "\(format(serveCosts.last!, 0)) ns")
        }
        say(
            "handler, median of 5: bare \(format(median(bareCosts), 0)) ns, serve \(format(median(serveCosts), 0)) ns a "
                + "request (serve adds \(format(median(serveCosts) - median(bareCosts), 0)) ns), \(fixtureCount) fixtures, "
                + "one in \(patternedEvery) patterned, \(parallel) at a time, CPU time a request, no network")
        done.signal()
    }
    done.wait()
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}

guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
    say("error: wrk is not installed (apt-get install -y wrk)")
    exit(2)
}

/// The bare route: the same headers and a body of the same size, constant; a request's body is read, as any
/// handler of a POST reads it.
struct ConstantResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let bytes: ByteBuffer
    func respond(to request: Request, context: Context) async throws -> Response {
        if request.headers[.contentLength] != nil || request.headers[.transferEncoding] != nil {
            _ = try await request.body.collect(upTo: 1 << 20)
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: bytes))
    }
}

struct Measure {
    var requestsPerSecond: Double
    var p99Milliseconds: Double
    /// This process's CPU time (user and system, both servers' threads) per request wrk completed, in
    /// microseconds: what a request costs the server, less sensitive than throughput to how a shared machine
    /// schedules wrk and the server.
    var cpuMicrosecondsPerRequest: Double = 0
}

/// What wrk printed for `arguments`.
func wrkOutput(_ arguments: [String]) -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrk)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        say("error: wrk: \(error)")
        exit(2)
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return output
}

/// A percentile of wrk's `--latency` distribution (`99%   2.31ms`), in milliseconds; 0 when it is not there.
func latencyMilliseconds(_ label: String, in output: String) -> Double {
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.first == Substring(label), fields.count > 1 else { continue }
        let text = String(fields[1])
        let value = Double(text.filter { $0.isNumber || $0 == "." }) ?? 0
        return text.hasSuffix("us") ? value / 1000 : text.hasSuffix("ms") ? value : value * 1000
    }
    return 0
}

/// wrk's requests per second and 99th percentile latency for `url`.
func runWrk(_ url: String, script: URL?) -> Measure {
    let cpuBefore = processCPUSeconds()
    let output = wrkOutput(
        ["-t2", "-c16", "-d\(max(seconds / 2, 1))s", "--latency"] + (script.map { ["-s", $0.path] } ?? []) + [url])
    let cpu = processCPUSeconds() - cpuBefore
    var measure = Measure(requestsPerSecond: 0, p99Milliseconds: latencyMilliseconds("99%", in: output))
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if fields.first == "Requests/sec:", fields.count > 1 { measure.requestsPerSecond = Double(fields[1]) ?? 0 }
        if let index = fields.firstIndex(of: "requests"), index > 0, fields.count > index + 1,
            fields[index + 1] == "in",
            let requests = Double(fields[index - 1]), requests > 0
        {
            measure.cpuMicrosecondsPerRequest = cpu / requests * 1_000_000
        }
        if line.contains("Non-2xx") {
            say("error: \(url) answered errors: \(line)")
            exit(1)
        }
    }
    return measure
}

/// The process's resident memory now, in MiB.
func residentMiB() -> Double { residentMiB(of: getpid()) }

/// The resident memory of process `pid`, in MiB.
func residentMiB(of pid: Int32) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
    return 0
}

/// A child serving `folder` (recording from `proxy`): the process and its port.
func child(_ folder: URL, proxy: String?) throws -> (Process, Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--child", folder.path] + (proxy.map { [$0] } ?? [])
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("port "), let port = Int(text.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines))
    else {
        say("error: the child said \(text)")
        exit(3)
    }
    return (process, port)
}

/// A fixture hit's latency: wrk on one connection for two seconds, the median and the 99th percentile.
func hitLatency(_ port: Int) -> (p50: Double, p99: Double) {
    let output = wrkOutput(["-t1", "-c1", "-d2s", "--latency", "http://127.0.0.1:\(port)/hit"])
    return (latencyMilliseconds("50%", in: output), latencyMilliseconds("99%", in: output))
}

/// `serve --proxy` recording `recordCount` distinct requests, in a child process; then a fresh server on the folder.
func recordingSoak(upstream: Int) async throws {
    let recordings = FileManager.default.temporaryDirectory.appendingPathComponent("serve-record-\(getpid())")
    try? FileManager.default.removeItem(at: recordings)
    try FileManager.default.createDirectory(at: recordings, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: recordings) }
    try Data(
        (#"{"request": {"method": "GET", "url": "http://127.0.0.1:\#(upstream)/hit"}, "#
            + #""response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": \#(body(1))}}"#)
            .utf8
    ).write(to: recordings.appendingPathComponent("hit.json"))
    let (recorder, port) = try child(recordings, proxy: "http://127.0.0.1:\(upstream)")
    defer { kill(recorder.processIdentifier, SIGKILL) }
    say("record: serve --proxy recording \(recordCount) distinct requests (4 at a time) into an empty folder")
    func checkpoint(_ label: String) -> (Double, Double, Double) {
        let latency = hitLatency(port)
        let memory = residentMiB(of: recorder.processIdentifier)
        say(
            "  \(label): resident memory \(format(memory)) MiB; fixture hit p50 \(format(latency.p50, 3)) ms, "
                + "p99 \(format(latency.p99, 3)) ms")
        return (memory, latency.p50, latency.p99)
    }
    let before = checkpoint("before, 1 fixture")
    let session = URLSession(configuration: .ephemeral)
    let start = now()
    var sent = 0
    for quarter in 1...4 {
        let end = recordCount * quarter / 4
        let first = sent
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    var index = first + lane
                    while index < end {
                        let url = URL(string: "http://127.0.0.1:\(port)/records/\(index)?page=\(index % 7)")!
                        let (_, response) = try await session.data(from: url)
                        if (response as? HTTPURLResponse)?.statusCode != 200 {
                            say("error: recording \(index) answered \((response as? HTTPURLResponse)?.statusCode ?? 0)")
                            exit(1)
                        }
                        index += 4
                    }
                }
            }
            try await group.waitForAll()
        }
        sent = end
        _ = checkpoint("after \(end) recordings")
    }
    let elapsed = now() - start
    let after = checkpoint("after, again")
    // SIGKILL: the server's service group takes SIGTERM as a graceful shutdown and the child would live on.
    kill(recorder.processIdentifier, SIGKILL)
    recorder.waitUntilExit()
    let written = (try? FileManager.default.contentsOfDirectory(atPath: recordings.path).count) ?? 0
    say(
        "  \(written - 1) fixtures written in \(format(elapsed)) s (\(format(Double(recordCount) / elapsed, 0)) per second)"
    )
    let (fresh, freshPort) = try child(recordings, proxy: nil)
    defer { kill(fresh.processIdentifier, SIGKILL) }
    let freshLatency = hitLatency(freshPort)
    let freshMemory = residentMiB(of: fresh.processIdentifier)
    say(
        "  a fresh server on the same folder: resident memory \(format(freshMemory)) MiB; fixture hit p50 "
            + "\(format(freshLatency.p50, 3)) ms, p99 \(format(freshLatency.p99, 3)) ms")
    say(
        "record: memory after / fresh \(format(after.0 / max(freshMemory, 1), 2)); hit p50 after / before "
            + "\(format(after.1 / max(before.1, 0.001), 2)), after / fresh \(format(after.1 / max(freshLatency.p50, 0.001), 2))"
    )
    kill(fresh.processIdentifier, SIGKILL)
    fresh.waitUntilExit()
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    defer { done.signal() }
    do {
        let bare = try await LoopbackLaunch.start(
            ConstantResponder(bytes: ByteBuffer(string: body(fixtureCount / 2))), host: "127.0.0.1", port: 0,
            name: "bare")
        say("bare route on port \(bare.port)")
        let server = try await FixtureServer.start(
            folder: folder, displayName: "bench", options: FixtureServer.Options(), log: { _ in })
        say(
            "\(fixtureCount) fixtures; wrk -t2 -c16, keep-alive, on loopback; \(rounds) rounds of bare, serve, serve, "
                + "bare, \(max(seconds / 2, 1)) s each")
        var ratios: [Double] = []
        var costs: [Double] = []
        for round in 1...rounds {
            // The same script for both: it costs wrk the same on each side of the ratio. Each side is measured
            // twice, half the time each, in the order bare, serve, serve, bare: a machine that slows down or speeds
            // up during the round (a shared one does) weighs on both sides alike.
            let bareURL = "http://127.0.0.1:\(bare.port)/items/1"
            let servedURL = "http://127.0.0.1:\(server.port)/items/0"
            let halves = [
                runWrk(bareURL, script: script), runWrk(servedURL, script: script),
                runWrk(servedURL, script: script), runWrk(bareURL, script: script),
            ]
            let reference = Measure(
                requestsPerSecond: (halves[0].requestsPerSecond + halves[3].requestsPerSecond) / 2,
                p99Milliseconds: max(halves[0].p99Milliseconds, halves[3].p99Milliseconds),
                cpuMicrosecondsPerRequest: (halves[0].cpuMicrosecondsPerRequest + halves[3].cpuMicrosecondsPerRequest)
                    / 2)
            let served = Measure(
                requestsPerSecond: (halves[1].requestsPerSecond + halves[2].requestsPerSecond) / 2,
                p99Milliseconds: max(halves[1].p99Milliseconds, halves[2].p99Milliseconds),
                cpuMicrosecondsPerRequest: (halves[1].cpuMicrosecondsPerRequest + halves[2].cpuMicrosecondsPerRequest)
                    / 2)
            let ratio = served.requestsPerSecond / max(reference.requestsPerSecond, 1)
            ratios.append(ratio)
            let cost = served.cpuMicrosecondsPerRequest / max(reference.cpuMicrosecondsPerRequest, 0.001)
            costs.append(cost)
            say(
                "round \(round): bare route \(format(reference.requestsPerSecond, 0)) req/s (p99 "
                    + "\(format(reference.p99Milliseconds, 2)) ms, \(format(reference.cpuMicrosecondsPerRequest, 1)) µs "
                    + "CPU a request); apiprobe serve \(format(served.requestsPerSecond, 0)) req/s (p99 "
                    + "\(format(served.p99Milliseconds, 2)) ms, \(format(served.cpuMicrosecondsPerRequest, 1)) µs); "
                    + "ratio \(format(ratio, 2)), CPU a request \(format(cost, 2))x")
        }
        say(
            "ratio, median of \(rounds): \(format(median(ratios), 2)) (target ≥ 0.90); the server's CPU a request, "
                + "serve / bare, median \(format(median(costs), 2))x")
        if soakSeconds > 0 {
            let before = residentMiB()
            let output = wrkOutput([
                "-t2", "-c16", "-d\(soakSeconds)s", "-s", script.path, "http://127.0.0.1:\(server.port)/items/0",
            ])
            let requests = output.split(separator: "\n").first { $0.contains("requests in") }.map(String.init) ?? ""
            say(
                "soak: \(requests.trimmingCharacters(in: .whitespaces)); resident memory \(format(before)) MiB before, "
                    + "\(format(residentMiB())) MiB after")
        }
        await server.stop()
        if recordCount > 0 { try await recordingSoak(upstream: bare.port) }
        bare.task.cancel()
    } catch {
        say("error: \(error)")
        exit(3)
    }
}
done.wait()
