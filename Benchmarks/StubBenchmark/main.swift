// Stubbed requests per second through URLSession with 1,000 registered stubs, against a bare URLProtocol
// that returns a constant response (the ceiling), serial and with 16 concurrent tasks; the two are
// interleaved round by round after a warm-up, and the verdict is the median of each round's ratio.
//
//     swift run -c release StubBenchmark [requests-per-round] [rounds]
//
// A third contender, "bare+hop", is the bare protocol answering from DispatchQueue.global(), as HTTPStubs
// did before it answered inline: it shows what that hop costs (serial, about a third of the rate).
//
// Concurrent rounds give each task its own session (for every contender): on Linux, a URLProtocol that
// answers from another thread while other tasks of the same session start can crash
// swift-corelibs-foundation (URLSession.behaviour(for:) reads the session's task registry off its queue).
import BenchmarkSupport
import Foundation
import HTTPFixtures
import HTTPStubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let stubCount = 1_000
let concurrency = 16
let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let requestsPerRound = arguments.first ?? 2_000
let rounds = arguments.dropFirst().first ?? 15
let body = Data(#"{"id":1,"title":"Easy Banana Bread","social_rank":55.05}"#.utf8)
// swift-format-ignore: NeverForceUnwrap
let urls = (0..<stubCount).map { URL(string: "https://bench.example.com/api/item/\($0)")! }

struct Transfer<Value>: @unchecked Sendable { let value: Value }

/// The ceiling: the same response for every request, given synchronously in `startLoading`.
class ConstantProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() { answer() }
    override func stopLoading() {}

    func answer() {
        guard let url = request.url,
            let response = HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Type": "application/json", "Content-Length": String(body.count)])
        else { return }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
}

/// The same, answering from `DispatchQueue.global()` (HTTPStubs does so only after a simulated latency).
final class ConstantHopProtocol: ConstantProtocol {
    override func startLoading() {
        let transfer = Transfer(value: self)
        DispatchQueue.global().async { transfer.value.answer() }
    }
}

struct Contender {
    var name: String
    var makeSession: () -> URLSession
}

func session(with protocolClass: AnyClass) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [protocolClass]
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
}

let stubs = StubSet()
for (index, url) in urls.enumerated() {
    stubs.stub(
        .get(url.absoluteString),
        response: .json(text: #"{"id":\#(index),"title":"Easy Banana Bread","social_rank":55.05}"#))
}
let contenders = [
    Contender(name: "stubs", makeSession: { stubs.makeSession() }),
    Contender(name: "bare", makeSession: { session(with: ConstantProtocol.self) }),
    Contender(name: "bare+hop", makeSession: { session(with: ConstantHopProtocol.self) }),
]

/// The CPU time the process has used, all threads, in seconds.
func processCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

struct Measurement {
    /// Requests per second of wall time.
    var rate: Double
    /// Requests per second of process CPU time (all threads): steadier than wall time on a busy machine.
    var cpuRate: Double
}

/// Sends `count` requests over `tasks` concurrent tasks, each with its own session.
func measure(_ contender: Contender, count: Int, tasks: Int) async throws -> Measurement {
    let sessions = (0..<tasks).map { _ in Transfer(value: contender.makeSession()) }
    defer { sessions.forEach { $0.value.finishTasksAndInvalidate() } }
    let clock = ContinuousClock()
    let start = clock.now
    let cpuStart = processCPUTime()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<tasks {
            let session = sessions[task]
            group.addTask {
                var index = task
                while index < count {
                    let (data, response) = try await session.value.data(from: urls[index % urls.count])
                    guard (response as? HTTPURLResponse)?.statusCode == 200, !data.isEmpty else {
                        fatalError("unexpected response \(response)")
                    }
                    index += tasks
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = seconds(start.duration(to: clock.now))
    return Measurement(rate: Double(count) / elapsed, cpuRate: Double(count) / max(processCPUTime() - cpuStart, 1e-6))
}

func rate(_ value: Double) -> String { String(format: "%7.0f", value) }
func ratio(_ value: Double) -> String { String(format: "%.3f", value) }

print("StubBenchmark: \(stubCount) stubs, \(requestsPerRound) requests a round, \(rounds) rounds, interleaved")
if let only = ProcessInfo.processInfo.environment["STUB_BENCHMARK_ONLY"],
    let contender = contenders.first(where: { $0.name == only })
{
    // For profiling one contender (perf record, valgrind --tool=callgrind): one round, serial unless
    // STUB_BENCHMARK_TASKS says otherwise, no comparison.
    let tasks = ProcessInfo.processInfo.environment["STUB_BENCHMARK_TASKS"].flatMap { Int($0) } ?? 1
    print(only, rate(try await measure(contender, count: requestsPerRound, tasks: tasks).rate), "req/s")
    exit(0)
}
for (label, tasks) in [("serial", 1), ("\(concurrency) tasks", concurrency)] {
    for contender in contenders {
        _ = try await measure(contender, count: requestsPerRound / 4, tasks: tasks)  // warm-up
    }
    var results: [String: [Measurement]] = [:]
    for round in 1...rounds {
        // Rotate the order each round, so drift in the machine's load hits every contender alike.
        let order = (0..<contenders.count).map { contenders[($0 + round) % contenders.count] }
        for contender in order {
            results[contender.name, default: []].append(
                try await measure(contender, count: requestsPerRound, tasks: tasks))
        }
        let (s, b, h) = (results["stubs"]![round - 1], results["bare"]![round - 1], results["bare+hop"]![round - 1])
        print(
            "\(label) round \(round): stubs \(rate(s.rate))  bare \(rate(b.rate))  bare+hop \(rate(h.rate)) req/s   stubs/bare \(ratio(s.rate / b.rate))  stubs/bare+hop \(ratio(s.rate / h.rate))"
        )
    }
    func medians(_ name: String) -> Measurement {
        let all = results[name] ?? []
        return Measurement(rate: median(all.map(\.rate)), cpuRate: median(all.map(\.cpuRate)))
    }
    /// The median over rounds of the ratio within each round: the two contenders of a round ran
    /// within a fraction of a second of each other, so a slow spell of the machine cancels out.
    func pairedRatio(_ numerator: String, _ denominator: String) -> Double {
        median(zip(results[numerator] ?? [], results[denominator] ?? []).map { $0.rate / $1.rate })
    }
    let (s, b, h) = (medians("stubs"), medians("bare"), medians("bare+hop"))
    let paired = pairedRatio("stubs", "bare")
    print(
        "\(label) median wall: stubs \(rate(s.rate))  bare \(rate(b.rate))  bare+hop \(rate(h.rate)) req/s   stubs/bare \(ratio(s.rate / b.rate))  stubs/bare+hop \(ratio(s.rate / h.rate))"
    )
    print(
        "\(label) median of the rounds' ratios: stubs/bare \(ratio(paired)) (target >= 0.9: \(paired >= 0.9 ? "met" : "missed"))  stubs/bare+hop \(ratio(pairedRatio("stubs", "bare+hop")))"
    )
    print(
        "\(label) median CPU:  stubs \(rate(s.cpuRate))  bare \(rate(b.cpuRate))  bare+hop \(rate(h.cpuRate)) req/CPU-s  stubs/bare \(ratio(s.cpuRate / b.cpuRate))  stubs/bare+hop \(ratio(s.cpuRate / h.cpuRate))"
    )
}
print("requests in the stub set's log: \(stubs.requests.count)")
