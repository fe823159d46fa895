import APIProbeShared
import APIProbeTestSupport
import FixtureImport
import Foundation
import HTTPFixtures
import JSONShape
import ProbeTestSupport
import Testing

@testable import ProbeClient
@testable import ProbeRunner

/// Random bytes and random numbers, from a seeded generator, fed to every reader of outside input: the
/// config, the history file, HAR archives and the JSON readers. None may crash, and every failure is a typed
/// error that names the file and the place. The seed is printed; replay a failure with
/// `APIPROBE_SEED=<seed> swift test --filter ReaderFuzzTests`. Bounded counts keep it to a few seconds.
@Suite("Reader fuzzing", .hangGuard, .temporaryFolder)
struct ReaderFuzzTests {
    /// Random inputs: bytes, edits of valid documents, and numbers from the edges of every numeric type.
    struct Fuzzer {
        var random: SeededGenerator

        init(seed: UInt64) { random = SeededGenerator(seed: seed) }

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

        mutating func bytes(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        }

        static let edgeNumbers = [
            "0", "-0", "1", "-1", "0.001", "1e-10", "1e-400", "1e308", "-1e308", "1e400", "nan", ".nan", ".inf",
            "-.inf", "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
            "4294967296", "0.0000000001", "1.5", "100000", "100000.0001", "999999999999999999999999", "1_000", "0x10",
            "1e", "--1", "",
        ]

        /// A number as text: an edge of some numeric type, or a random integer or double.
        mutating func number() -> String {
            switch int(0...3) {
            case 0: return String(Int.random(in: Int.min...Int.max, using: &random))
            case 1: return String(Double(bitPattern: random.next()))
            case 2: return String(int(-5...5_000))
            default: return pick(Self.edgeNumbers)
            }
        }

        static let tokens: [[UInt8]] = [
            Array("{".utf8), Array("}".utf8), Array("[".utf8), Array("]".utf8), Array("\"".utf8), Array(",".utf8),
            Array(":".utf8), Array("\\u".utf8), Array("\\uD800".utf8), Array("\n".utf8), Array("~".utf8),
            Array("${X}".utf8), Array("${".utf8), Array("*".utf8), Array("- ".utf8), Array("&a".utf8),
            Array("!!binary".utf8), [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0],
            Array(String(repeating: "[", count: 600).utf8), Array("1e-10".utf8), Array("99999999999999999999".utf8),
        ]

        /// One to four edits: a byte changed, bytes inserted (random or a token that matters to a reader), a
        /// range deleted or repeated.
        mutating func mutate(_ seed: [UInt8]) -> [UInt8] {
            var bytes = seed
            for _ in 0..<int(1...4) {
                let at = int(0...bytes.count)
                switch int(0...4) {
                case 0 where !bytes.isEmpty: bytes[min(at, bytes.count - 1)] = self.bytes(1)[0]
                case 1: bytes.insert(contentsOf: self.bytes(int(1...8)), at: at)
                case 2: bytes.insert(contentsOf: pick(Self.tokens), at: at)
                case 3 where at < bytes.count:
                    bytes.removeSubrange(at..<min(bytes.count, at + int(1...16)))
                default:
                    let end = min(bytes.count, at + int(0...32))
                    bytes.insert(contentsOf: bytes[at..<end], at: at)
                }
            }
            return bytes
        }

        /// Usually `valid`, sometimes any number: a config with many numbers is still accepted often enough
        /// for what comes after the reader to be tried.
        mutating func number(or valid: String) -> String { chance(85) ? valid : number() }

        mutating func duration(or valid: String = "2s") -> String {
            chance(85) ? valid : number() + pick(["ms", "s", "m", "h", ""])
        }

        mutating func size(or valid: String = "1MiB") -> String {
            chance(85) ? valid : number() + pick(["B", "KB", "KiB", "MiB", "GiB", ""])
        }
    }

    static func seed() -> UInt64 {
        let seed = SeededGenerator.seed()
        print("ReaderFuzzTests seed: \(seed)")
        return seed
    }

    // MARK: Config

    static func configText(_ f: inout Fuzzer) -> String {
        """
        api: fuzz
        baseURL: http://127.0.0.1:\(f.number(or: "8080"))
        concurrency: \(f.number(or: "4"))
        rateLimit: \(f.number(or: "0.5"))
        deadline: \(f.duration(or: "1m"))
        downAfter: \(f.number(or: "2"))
        regression: {window: \(f.number(or: "5")), factor: \(f.number(or: "1.5")), minimumRuns: \(f.number(or: "2"))}
        defaults: {samples: \(f.number(or: "3")), timeout: \(f.duration()), retries: \(f.number(or: "1")), maxBodySize: \(f.size())}
        endpoints:
          - name: a
            path: /a
            query: {page: \(f.number())}
            timeout: \(f.duration(or: "500ms"))
            maxBodySize: \(f.size(or: "64KiB"))
            expect:
              status: \(f.number(or: "200"))
              body: [/count > \(f.number()), /items length >= \(f.number(or: "1")), /a~1b == \(f.number())]
              latency: [p\(f.number(or: "95")) < \(f.duration())]
        """
    }

    @Test func theConfigReaderNeverCrashesAndNamesThePlaceOfEveryError() throws {
        let seed = Self.seed()
        var f = Fuzzer(seed: seed)
        var accepted = 0
        for round in 0..<3_000 {
            let text = Self.configText(&f)
            let data: [UInt8]
            switch f.int(0...9) {
            case 0...4: data = Array(text.utf8)
            case 5...8: data = f.mutate(Array(text.utf8))
            default: data = f.bytes(f.int(0...200))
            }
            do {
                let config = try ProbeConfig.parse(Data(data), environment: ["X": "1"], file: "fuzz.yml")
                accepted += 1
                // What the runner does with the numbers it was given must not trap either.
                if let rate = config.requestsPerSecondPerHost { _ = RateLimiter(requestsPerSecond: rate) }
                _ = ContinuousClock.now + config.deadline
                for endpoint in config.endpoints {
                    _ = try? endpoint.probeRequest(baseURL: config.baseURL, file: config.file)
                    _ = formatDuration(endpoint.timeout)
                    _ = endpoint.maxBodySize.map(formatSize)
                    _ = endpoint.expectations.latency.map(\.description)
                    _ = endpoint.expectations.body.map(\.description)
                }
            } catch {
                #expect(error.file == "fuzz.yml", "seed \(seed), round \(round)")
                #expect(
                    error.position.line != nil || error.found == "an empty document",
                    "no line: \(error); seed \(seed), round \(round)")
                #expect(error.description.hasPrefix("fuzz.yml"), "seed \(seed), round \(round)")
            }
        }
        #expect(accepted > 0, "seed \(seed): no input was accepted, so nothing past the reader was tried")
    }

    // MARK: History

    static let historyLine = Array(
        #"{"endpoints":{"search":{"p95":15.2,"passed":true}},"passed":true,"startedAt":"2026-11-22T18:00:00Z","version":1}"#
            .utf8)

    @Test func theHistoryReaderNeverCrashesAndCountsWhatItSkips() throws {
        let seed = Self.seed()
        var f = Fuzzer(seed: seed)
        let folder = try TemporaryFolder.make("history-fuzz")
        let url = folder.appendingPathComponent("history.jsonl")
        for round in 0..<40 {
            var lines: [[UInt8]] = []
            for _ in 0..<f.int(0...120) {
                switch f.int(0...3) {
                case 0: lines.append(Self.historyLine)
                case 1: lines.append(f.mutate(Self.historyLine).filter { $0 != UInt8(ascii: "\n") })
                case 2:
                    let digits = String(repeating: "9", count: f.int(0...40))
                    let stamp = "2026-\(f.int(0...13))-22T18:00:00\(digits.isEmpty ? "" : ".")\(digits)Z"
                    lines.append(
                        Array(
                            #"{"endpoints":{"a":{"p95":\#(f.number()),"passed":true}},"passed":false,"startedAt":"\#(stamp)"}"#
                                .utf8))
                default: lines.append(f.bytes(f.int(0...80)).filter { $0 != UInt8(ascii: "\n") })
                }
            }
            var file = lines.joined(separator: [UInt8(ascii: "\n")]).map { $0 }
            if f.chance(50) { file.append(UInt8(ascii: "\n")) }
            try Data(file).write(to: url)
            let limit = f.int(1...200)
            let contents = try HistoryFile(url: url).read(last: limit, chunkSize: f.int(1...512))
            #expect(contents.records.count <= min(limit, lines.count), "seed \(seed), round \(round)")
            #expect(contents.records.count + contents.damagedLines <= lines.count, "seed \(seed), round \(round)")
            _ = RegressionDetector.regressions(
                in: SampleRuns.mixed, history: contents.records, policy: RegressionPolicy(minimumRuns: 1))
            _ = RegressionDetector.consecutiveFailures(in: contents.records)
        }
    }

    // MARK: HAR

    static func harText(_ f: inout Fuzzer) -> String {
        """
        {"log": {"version": "1.2", "creator": {"name": "fuzz", "version": "1"}, "entries": [
          {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": \(f.number()),
           "request": {"method": "GET", "url": "https://api.example.com/a?page=\(f.number())", "httpVersion": "HTTP/1.1",
                       "headers": [{"name": "Accept", "value": "application/json"}], "queryString": [], "cookies": [],
                       "headersSize": -1, "bodySize": \(f.number())},
           "response": {"status": \(f.number()), "statusText": "", "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "Content-Type", "value": "application/json"}], "cookies": [],
                        "content": {"size": \(f.number()), "mimeType": "application/json", "text": "{\\"n\\": \(f.number())}"},
                        "redirectURL": "", "headersSize": -1, "bodySize": -1},
           "cache": {}, "timings": {"send": 0, "wait": \(f.number()), "receive": 2}}]}}
        """
    }

    @Test func theHARReaderNeverCrashesAndNamesThePlaceOfEveryError() throws {
        let seed = Self.seed()
        var f = Fuzzer(seed: seed)
        for round in 0..<2_000 {
            let text = Array(Self.harText(&f).utf8)
            let data: [UInt8]
            switch f.int(0...9) {
            case 0...3: data = text
            case 4...8: data = f.mutate(text)
            default: data = f.bytes(f.int(0...200))
            }
            do {
                let archive = try HARArchive(parsing: Data(data), file: "fuzz.har")
                // Every fixture an import writes reads back.
                for entry in archive.entries {
                    #expect(throws: Never.self, "seed \(seed), round \(round)") {
                        try Exchange(decoding: entry.exchange.encoded(), file: "\(entry.name).json")
                    }
                }
            } catch {
                #expect(error.file == "fuzz.har", "seed \(seed), round \(round)")
                #expect(error.description.hasPrefix("fuzz.har"), "seed \(seed), round \(round)")
            }
        }
    }

    // MARK: JSON

    static func jsonText(_ f: inout Fuzzer, depth: Int = 0) -> [UInt8] {
        switch f.int(0...(depth > 4 ? 3 : 6)) {
        case 0: return Array(f.pick(["null", "true", "false"]).utf8)
        case 1: return Array(f.number().utf8)
        case 2:
            var bytes = Array("\"".utf8)
            for _ in 0..<f.int(0...6) {
                bytes +=
                    f.chance(30) ? f.bytes(1) : Array(f.pick(["a", "é", "\\n", "\\u00e9", "\\uD83D\\uDE00", "~"]).utf8)
            }
            return bytes + Array("\"".utf8)
        case 3: return Array(String(repeating: "[", count: f.int(500...520)).utf8)
        case 4, 5:
            let members = (0..<f.int(0...4)).map { _ in
                Array("\"k\(f.int(0...3))\":".utf8) + jsonText(&f, depth: depth + 1)
            }
            return Array("{".utf8) + members.joined(separator: Array(",".utf8)) + Array("}".utf8)
        default:
            let items = (0..<f.int(0...4)).map { _ in jsonText(&f, depth: depth + 1) }
            return Array("[".utf8) + items.joined(separator: Array(",".utf8)) + Array("]".utf8)
        }
    }

    @Test func theJSONReadersNeverCrashAgreeAndNameThePlaceOfEveryError() throws {
        let seed = Self.seed()
        var f = Fuzzer(seed: seed)
        for round in 0..<4_000 {
            let text = Self.jsonText(&f)
            let data = Data(f.chance(40) ? f.mutate(text) : text)
            let lines = data.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
            var valueParsed = false
            do {
                let value = try JSONValue(parsing: data)
                valueParsed = true
                let again = try JSONValue(parsing: value.serialized(pretty: f.chance(50)))
                #expect(again == value, "round trip; seed \(seed), round \(round)")
            } catch {
                let line = error.position.line ?? 0
                #expect(line >= 1 && line <= lines, "seed \(seed), round \(round): \(error)")
                #expect((error.position.column ?? 0) >= 1, "seed \(seed), round \(round): \(error)")
            }
            var shapeRead = false
            do {
                _ = try ShapeNode.infer(from: data, file: "fuzz.json")
                shapeRead = true
            } catch {
                #expect(error.file == "fuzz.json", "seed \(seed), round \(round)")
                if case .lineColumn(let line, let column) = error.position {
                    #expect(line >= 1 && line <= lines && column >= 1, "seed \(seed), round \(round): \(error)")
                } else {
                    Issue.record("no line and column: \(error); seed \(seed), round \(round)")
                }
            }
            #expect(
                valueParsed == shapeRead,
                "the readers disagree on \(String(decoding: data.prefix(200), as: UTF8.self)); seed \(seed), round \(round)"
            )
            do {
                _ = try SchemaSnapshot(decoding: data, file: "fuzz.schema.json")
            } catch {
                #expect(error.file == "fuzz.schema.json", "seed \(seed), round \(round)")
            }
        }
    }
}
