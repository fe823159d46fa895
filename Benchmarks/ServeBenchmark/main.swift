// ServeBenchmark: `apiprobe serve` answering from 1,000 fixtures, against a bare Hummingbird route that returns a
// constant body of the same size (the limit of this stack), measured side by side in one run with `wrk` (Debian's
// package) on loopback with keep-alive.
//
//   swift run -c release ServeBenchmark [--fixtures 1000] [--seconds 10] [--rounds 3] [--soak-seconds 0]
//
// Each round runs wrk against the bare route, then against the fixture server (each request a random one of the
// fixtures' paths, through a Lua script), and prints requests per second and the 99th percentile latency of each,
// and their ratio. Issue 23's target: the fixture server at 0.8× the bare route's throughput or more. With
// --soak-seconds N, the fixture server then answers for N more seconds and the process's resident memory before and
// after is printed (flat memory over 1,000,000 requests: about 60 s on this machine).
import BenchmarkSupport
import FixtureServer
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RecipesServer

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

guard let wrk = ["/usr/bin/wrk", "/usr/local/bin/wrk"].first(where: FileManager.default.isExecutableFile) else {
    say("error: wrk is not installed (apt-get install -y wrk)")
    exit(2)
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
    let fixture =
        #"{"request": {"method": "GET", "url": "https://api.example.test/items/\#(index)"}, "#
        + #""response": {"status": 200, "headers": {"Content-Type": "application/json"}, "body": \#(body(index))}}"#
    try Data(fixture.utf8).write(to: folder.appendingPathComponent("item-\(index).json"))
}
let script = folder.appendingPathComponent("paths.lua")
try Data(
    """
    request = function()
      return wrk.format("GET", "/items/" .. math.random(0, \(fixtureCount - 1)))
    end
    """.utf8
).write(to: script)

/// The bare route: the same headers and a body of the same size, constant.
struct ConstantResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let bytes: ByteBuffer
    func respond(to request: Request, context: Context) async throws -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: bytes))
    }
}

struct Measure {
    var requestsPerSecond: Double
    var p99Milliseconds: Double
}

/// wrk's requests per second and 99th percentile latency for `url`.
func runWrk(_ url: String, script: URL?) -> Measure {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: wrk)
    process.arguments = ["-t2", "-c16", "-d\(seconds)s", "--latency"] + (script.map { ["-s", $0.path] } ?? []) + [url]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch {
        say("error: wrk: \(error)")
        exit(2)
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    var measure = Measure(requestsPerSecond: 0, p99Milliseconds: 0)
    for line in output.split(separator: "\n") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        if fields.first == "Requests/sec:", fields.count > 1 { measure.requestsPerSecond = Double(fields[1]) ?? 0 }
        if fields.first == "99%", fields.count > 1 {
            let text = String(fields[1])
            let value = Double(text.filter { $0.isNumber || $0 == "." }) ?? 0
            measure.p99Milliseconds = text.hasSuffix("us") ? value / 1000 : text.hasSuffix("ms") ? value : value * 1000
        }
        if line.contains("Non-2xx") {
            say("error: \(url) answered errors: \(line)")
            exit(1)
        }
    }
    return measure
}

/// The process's resident memory now, in MiB.
func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
    return 0
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
        say("\(fixtureCount) fixtures; wrk -t2 -c16 -d\(seconds)s, keep-alive, on loopback; \(rounds) rounds")
        var ratios: [Double] = []
        for round in 1...rounds {
            // The same script for both: it costs wrk the same on each side of the ratio.
            let reference = runWrk("http://127.0.0.1:\(bare.port)/items/1", script: script)
            let served = runWrk("http://127.0.0.1:\(server.port)/items/0", script: script)
            let ratio = served.requestsPerSecond / max(reference.requestsPerSecond, 1)
            ratios.append(ratio)
            say(
                "round \(round): bare route \(format(reference.requestsPerSecond, 0)) req/s (p99 "
                    + "\(format(reference.p99Milliseconds, 2)) ms); apiprobe serve \(format(served.requestsPerSecond, 0)) "
                    + "req/s (p99 \(format(served.p99Milliseconds, 2)) ms); ratio \(format(ratio, 2))")
        }
        say("ratio, median of \(rounds): \(format(median(ratios), 2)) (target ≥ 0.80)")
        if soakSeconds > 0 {
            let before = residentMiB()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: wrk)
            process.arguments = [
                "-t2", "-c16", "-d\(soakSeconds)s", "-s", script.path, "http://127.0.0.1:\(server.port)/items/0",
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let requests = output.split(separator: "\n").first { $0.contains("requests in") }.map(String.init) ?? ""
            say(
                "soak: \(requests.trimmingCharacters(in: .whitespaces)); resident memory \(format(before)) MiB before, "
                    + "\(format(residentMiB())) MiB after")
        }
        await server.stop()
        bare.task.cancel()
    } catch {
        say("error: \(error)")
        exit(3)
    }
}
done.wait()
