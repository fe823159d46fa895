import APIProbeShared
import BenchmarkSupport
// ContractBenchmark: what ContractTesting's assertions cost over a large suite, measured side by side.
//
//   swift run -c release ContractBenchmark [--fixtures 300] [--rounds 7] [--keep]
//
// The suite: `--fixtures` recorded GitHub-like issue lists (30 issues of about 25 snake_case fields each)
// in a temporary Stubs/ folder. Each round times, interleaved on the same files:
//   plain      a hand-written test: read the fixture file, `JSONDecoder` decodes its response body
//   expect     `expectDecoding([Issue].self, from: .fixture(name, in: store))`, the assertion
//   coverage   `verifyKeyCoverage` (the recording decoder: pointers and usage)
// and prints each round's ratio to plain; the verdict is the median of the rounds' ratios
// (target: expectDecoding ≤ 1.5× plain).
import ContractTesting
import Foundation

struct User: Decodable {
    var login: String
    var id: Int
    var nodeId: String
    var avatarUrl: String
    var siteAdmin: Bool
}

struct Label: Decodable {
    var id: Int
    var name: String
    var color: String
    var isDefault: Bool
}

struct Issue: Decodable {
    var id: Int
    var nodeId: String
    var url: String
    var htmlUrl: String
    var number: Int
    var title: String
    var state: String
    var locked: Bool
    var user: User
    var labels: [Label]
    var assignee: User?
    var comments: Int
    var createdAt: String
    var updatedAt: String
    var closedAt: String?
    var body: String?
    var authorAssociation: String
}

/// The plain test's view of a fixture file: just the response body.
struct FixtureFile<Body: Decodable>: Decodable {
    struct Response: Decodable { var body: Body }
    var response: Response
}

func issueJSON(_ rng: inout SeededGenerator, number: Int) -> String {
    func user(_ id: UInt64) -> String {
        #"{"login":"user\#(id)","id":\#(id),"node_id":"MDQ6VXNlcj\#(id)","avatar_url":"https://avatars.example.com/u/\#(id)","site_admin":false}"#
    }
    let labels = (0..<Int(rng.next() % 3)).map { index in
        #"{"id":\#(index + 1),"name":"label \#(index)","color":"ededed","default":false,"is_default":false}"#
    }
    let closed = rng.next() % 2 == 0
    return
        #"{"id":\#(1_000_000 + number),"node_id":"I_kwDO\#(number)","url":"https://api.example.com/repos/o/r/issues/\#(number)","html_url":"https://example.com/o/r/issues/\#(number)","number":\#(number),"title":"Issue \#(number): something is off","state":"\#(closed ? "closed" : "open")","locked":false,"user":\#(user(rng.next() % 5000)),"labels":[\#(labels.joined(separator: ","))],"assignee":\#(rng.next() % 3 == 0 ? user(rng.next() % 5000) : "null"),"comments":\#(rng.next() % 40),"created_at":"2026-11-01T10:00:00Z","updated_at":"2026-11-20T10:00:00Z","closed_at":\#(closed ? "\"2026-11-21T10:00:00Z\"" : "null"),"body":"A longer description of the issue number \#(number), with some text in it.","author_association":"CONTRIBUTOR","reactions":{"total_count":\#(rng.next() % 9),"+1":0}}"#
}

let fixtureCount = argument("--fixtures", default: 300)
let rounds = argument("--rounds", default: 7)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("contract-benchmark-\(UUID().uuidString)")
let stubs = folder.appendingPathComponent("Stubs/github")
try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
// `--keep`: leave the generated files in place (their folder is printed), to profile a command over them.
let keepsFiles = CommandLine.arguments.contains("--keep")
defer { if keepsFiles { print("kept: \(folder.path)") } else { try? FileManager.default.removeItem(at: folder) } }

var rng = SeededGenerator(seed: 42)
var names: [String] = []
var totalBytes = 0
for index in 0..<fixtureCount {
    let issues = (0..<30).map { issueJSON(&rng, number: index * 30 + $0) }.joined(separator: ",")
    let text = """
        {"metadata":{"apiprobeVersion":"0.1.0","source":"benchmark"},"request":{"method":"GET","url":"https://api.example.com/repos/o/r/issues?page=\(index)"},"response":{"body":[\(issues)],"bodyEncoding":"json","headers":{"Content-Type":"application/json"},"status":200}}
        """
    let name = index == 0 ? "issues" : "issues.page\(index)"
    try Data(text.utf8).write(to: stubs.appendingPathComponent(name + ".json"))
    names.append("github/" + name)
    totalBytes += text.utf8.count
}
let store = FixtureStore(directory: folder.appendingPathComponent("Stubs"))
let decoder = JSONDecoder()
decoder.keyDecodingStrategy = .convertFromSnakeCase

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return seconds(ContinuousClock.now - start)
}

print(
    "ContractBenchmark: \(fixtureCount) fixtures of 30 issues, \(totalBytes / 1_048_576) MiB, \(rounds) interleaved rounds"
)
var expectRatios: [Double] = []
var coverageRatios: [Double] = []
for round in 1...rounds {
    var decodedPlain = 0
    let plain = try time {
        for name in names {
            let data = try Data(contentsOf: store.url(for: name))
            decodedPlain += try decoder.decode(FixtureFile<[Issue]>.self, from: data).response.body.count
        }
    }
    var decodedExpect = 0
    let expect = time {
        for name in names {
            decodedExpect += expectDecoding([Issue].self, from: .fixture(name, in: store), decoder: decoder).count
        }
    }
    let coverage = time {
        for name in names {
            _ = verifyKeyCoverage([Issue].self, from: .fixture(name, in: store), decoder: decoder)
        }
    }
    precondition(decodedPlain == fixtureCount * 30 && decodedExpect == fixtureCount)
    expectRatios.append(expect / plain)
    coverageRatios.append(coverage / plain)
    print(
        String(
            format: "round %d: plain %.1f ms, expectDecoding %.1f ms (%.2f×), key coverage %.1f ms (%.2f×)", round,
            plain * 1000, expect * 1000, expect / plain, coverage * 1000, coverage / plain))
}

let verdict = median(expectRatios)
print(
    String(
        format: "expectDecoding / plain JSONDecoder: median %.2f× (target ≤ 1.5×) %@", verdict,
        verdict <= 1.5 ? "ok" : "OVER"))
print(
    String(
        format: "key coverage / plain JSONDecoder: median %.2f× (the recording pass; no target)", median(coverageRatios)
    ))

// MARK: A generated API of 500 endpoints with 5 fixtures each

/// One endpoint's fixture: a page of 10 objects of 12 fields whose names depend on the endpoint.
func endpointFixture(endpoint: Int, page: Int, _ rng: inout SeededGenerator) -> String {
    let items = (0..<10).map { item -> String in
        let fields = (0..<12).map { field -> String in
            let name = "field_\(endpoint % 7)_\(field)"
            switch field % 4 {
            case 0: return #""\#(name)":\#(rng.next() % 10_000)"#
            case 1: return #""\#(name)":"value \#(rng.next() % 100)""#
            case 2: return #""\#(name)":\#(rng.next() % 2 == 0)"#
            default: return #""\#(name)":{"id":\#(item),"url":"https://example.com/\#(item)"}"#
            }
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
    return """
        {"metadata":{"apiprobeVersion":"0.1.0","source":"benchmark"},"request":{"method":"GET","url":"https://api.example.com/e\(endpoint)?page=\(page)"},"response":{"body":{"items":[\(items.joined(separator: ","))],"page":\(page)},"bodyEncoding":"json","headers":{"Content-Type":"application/json"},"status":200}}
        """
}

struct Page: Decodable {
    struct Item: Decodable {
        var values: [String: Int] = [:]
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: AnyKey.self)
            for key in container.allKeys where key.stringValue.hasSuffix("_0") {
                values[key.stringValue] = try container.decode(Int.self, forKey: key)
            }
        }
    }
    var items: [Item]
    var page: Int
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

let apiFolder = folder.appendingPathComponent("api")
let apiStubs = apiFolder.appendingPathComponent("Stubs")
let apiSnapshots = apiFolder.appendingPathComponent("Snapshots")
var apiNames: [String] = []
var apiBytes = 0
for endpoint in 0..<500 {
    let directory = apiStubs.appendingPathComponent("big")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for page in 0..<5 {
        let name = page == 0 ? "e\(endpoint)" : "e\(endpoint).page\(page)"
        let text = endpointFixture(endpoint: endpoint, page: page, &rng)
        try Data(text.utf8).write(to: directory.appendingPathComponent(name + ".json"))
        apiBytes += text.utf8.count
    }
    apiNames.append("big/e\(endpoint)")
}
let apiStore = FixtureStore(directory: apiStubs)
let files = apiNames.flatMap { name in [name] + (1..<5).map { "\(name).page\($0)" } }

let readOnly = try time {
    for name in files { _ = try Data(contentsOf: apiStore.url(for: name)) }
}
// The contract suite a team would write: decode, key coverage, snapshot match (recorded on the first run,
// matched on the second) and the usage manifest of every endpoint.
var suiteFailures = 0
@MainActor func runSuite() -> Double {
    time {
        withContractTesting(record: .missing) {
            for endpoint in apiNames {
                let source = ContractSource.everyFixture(of: endpoint, in: apiStore)
                if !verifyDecoding(Page.self, from: source).passed { suiteFailures += 1 }
                _ = verifyKeyCoverage(Page.self, from: source)
                _ = verifySnapshotMatch(source, snapshots: apiSnapshots)
                _ = verifyUsageManifest(
                    for: endpoint, models: .decoding(Page.self), in: apiStore, snapshots: apiSnapshots)
            }
        }
    }
}
let firstSuite = runSuite()
let secondSuite = runSuite()
precondition(suiteFailures == 0, "the generated API does not decode")
print(
    String(
        format:
            "500 endpoints × 5 fixtures (%d MiB): reading the files %.2f s; the contract suite (decode, key coverage, snapshot, usage) %.2f s recording, %.2f s matching",
        apiBytes / 1_048_576, readOnly, firstSuite, secondSuite))

// MARK: `apiprobe snapshot check` over the same API, beside reading its files

/// `apiprobe snapshot check` over the generated API, run as a user runs it (the release binary beside this
/// one; build it with `swift build -c release --product apiprobe`); the best of 3, in seconds.
func snapshotCheckSeconds() -> Double? {
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("apiprobe")
    guard FileManager.default.isExecutableFile(atPath: tool.path) else { return nil }
    var best = Double.infinity
    for _ in 0..<3 {
        let process = Process()
        process.executableURL = tool
        process.arguments = ["snapshot", "check", "--stubs", apiStubs.path, "--snapshots", apiSnapshots.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let start = Date()
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        best = min(best, Date().timeIntervalSince(start))
    }
    return best
}

/// Starting the tool and doing nothing: what a check costs before it reads a file.
func startupSeconds() -> Double? {
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("apiprobe")
    var best = Double.infinity
    for _ in 0..<3 {
        let process = Process()
        process.executableURL = tool
        process.arguments = ["--version"]
        process.standardOutput = FileHandle.nullDevice
        let start = Date()
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        best = min(best, Date().timeIntervalSince(start))
    }
    return best
}

let readAgain = try time {
    for name in files { _ = try Data(contentsOf: apiStore.url(for: name)) }
}
if let check = snapshotCheckSeconds(), let startup = startupSeconds() {
    print(
        String(
            format:
                "apiprobe snapshot check over the 2,500 fixtures: %.3f s (of which %.3f s starting the tool); reading the files: %.3f s; check / read: %.1f×",
            check, startup, readAgain, (check - startup) / readAgain))
} else {
    print("apiprobe snapshot check: not measured (swift build -c release --product apiprobe first)")
}
