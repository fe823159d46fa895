// StatusPageBenchmark: a year of 5-minute rounds into a status page, as `apiprobe status-page` writes it.
//
//   swift run -c release StatusPageBenchmark [--days 365] [--endpoints 4] [--keep FILE]
//
// Writes a history of one round every 5 minutes for `--days` days (105,120 rounds for a year) over `--endpoints`
// endpoints, with outages and schema drift here and there, as `apiprobe run --history` writes its lines. Then, side
// by side in one run: reading every line of it (HistoryFile.scan, the floor: parsing each line) and building and
// writing the whole site; their ratio, the peak memory, and the size of what was written.
// Targets: the site in under 5 s and under 100 MiB for a year of 4 endpoints.
import APIProbeShared
import BenchmarkSupport
import Foundation
import ProbeReports
import ProbeRunner

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let days = argument("--days", default: 365)
let endpointCount = argument("--endpoints", default: 4)
let rounds = days * 24 * 12
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("status-page-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let historyURL = folder.appendingPathComponent("history.jsonl")

// The history, written a megabyte at a time.
let formatter = ISO8601DateFormatter()
let start = Date(timeIntervalSince1970: 1_764_000_000)
var random = SeededGenerator(seed: 2_026)
_ = FileManager.default.createFile(atPath: historyURL.path, contents: nil)
let handle = try FileHandle(forWritingTo: historyURL)
var buffer = ""
for round in 0..<rounds {
    var members: [String] = []
    var allPassed = true
    for endpoint in 0..<endpointCount {
        let base = Double(20 + 15 * endpoint)
        let p50 = base + Double(random.next() % 1_000) / 100
        let p95 = p50 * (1.3 + Double(random.next() % 100) / 100)
        // An outage of an hour every ~3 days per endpoint, drift for a day once a month.
        let outage = (round + endpoint * 97) % 900 < 12
        let drift = (round + endpoint * 1_000) % 8_640 < 288
        allPassed = allPassed && !outage && !drift
        var member = "\"e\(endpoint)\":{"
        if drift { member += #""drift":["breaking /items/*/id type-changed: string → integer"],"# }
        if outage {
            member += #""failures":["http-status"],"message":"status 200: got 503 × 5 of 5 samples","#
        } else if drift {
            member += #""failures":["schema-drift"],"message":"schema Snapshots/api/e.schema.json: 1 breaking change","#
        }
        member += "\"p50\":\(String(format: "%.3f", p50)),\"p95\":\(String(format: "%.3f", p95))"
        member += ",\"passed\":\(!outage && !drift)}"
        members.append(member)
    }
    let time = formatter.string(from: start.addingTimeInterval(Double(round) * 300))
    buffer += "{\"endpoints\":{\(members.joined(separator: ","))},\"passed\":\(allPassed),"
    buffer += "\"startedAt\":\"\(time)\",\"version\":1}\n"
    if buffer.utf8.count > 1 << 20 {
        try handle.write(contentsOf: Data(buffer.utf8))
        buffer = ""
    }
}
try handle.write(contentsOf: Data(buffer.utf8))
try handle.close()
let size = (try FileManager.default.attributesOfItem(atPath: historyURL.path)[.size] as? Int) ?? 0
let history = HistoryFile(url: historyURL)
let beforeMiB = peakResidentMiB()
print("history: \(rounds) rounds × \(endpointCount) endpoints, \(String(format: "%.1f", Double(size) / 1e6)) MB")

let clock = ContinuousClock()
var scanTimes: [Double] = []
var siteTimes: [Double] = []
var written: StatusPageWriter.Output?
for _ in 0..<3 {
    let scanStart = clock.now
    var count = 0
    _ = try history.scan { _ in count += 1 }
    scanTimes.append(seconds(clock.now - scanStart))
    precondition(count == rounds)

    let siteStart = clock.now
    let page = try StatusPage.build(from: history, options: .init(title: "benchmark", downAfter: 2))
    written = try StatusPageWriter(page: page).write(to: folder.appendingPathComponent("site"))
    siteTimes.append(seconds(clock.now - siteStart))
}
let scan = scanTimes.sorted()[1]
let site = siteTimes.sorted()[1]
let index = folder.appendingPathComponent("site/index.html")
let indexSize = (try FileManager.default.attributesOfItem(atPath: index.path)[.size] as? Int) ?? 0
print(String(format: "reading every line (the floor): %.2f s (median of 3)", scan))
print(String(format: "building and writing the site:  %.2f s (median of 3); %.2f× the read", site, site / scan))
print(
    String(
        format: "peak memory: %.1f MiB (%.1f MiB before reading the history); index.html %.0f KB, %d badges",
        peakResidentMiB(), beforeMiB, Double(indexSize) / 1e3, written?.badges.count ?? 0))
print(site < 5 && peakResidentMiB() < 100 ? "targets met (< 5 s, < 100 MiB)" : "TARGETS NOT MET (< 5 s, < 100 MiB)")
if let keep = CommandLine.arguments.firstIndex(of: "--keep"), keep + 1 < CommandLine.arguments.count {
    try? FileManager.default.removeItem(atPath: CommandLine.arguments[keep + 1])
    try FileManager.default.copyItem(at: historyURL, to: URL(fileURLWithPath: CommandLine.arguments[keep + 1]))
}
