import APIProbeShared
import APIProbeTestSupport
import Foundation
import ProbeRunner
import Testing

/// The history file's one codec (issue 36): every stored field of a record reaches the file and comes back, and
/// lines written by the version before the codec (2026-11-27, the hand-written writer) read and write back
/// byte for byte.
@Suite(.temporaryFolder)
struct HistoryCodecTests {
    /// Written by `apiprobe run --history` of 2026-11-27 (before the codec): a schema drift with its five lines, a
    /// refused endpoint with no latency (`p95: null`), a passing variant; a round of one endpoint; a 20-endpoint
    /// round of the soak benchmark (body conditions failing, a 404).
    static let linesOfTodaysFormat = [
        #"{"endpoints":{"gone":{"failures":["http-status","refused"],"message":"reachable: 1 of 1 samples failed: connection refused (http://127.0.0.1:9/nothing)","p95":null,"passed":false},"search":{"drift":["breaking /count type-changed: integer → string","breaking /recipes/*/f2f_url removed: was string","breaking /recipes/*/image_url removed: was string","breaking /recipes/*/publisher removed: was string","breaking /recipes/*/publisher_url removed: was string"],"failures":["schema-drift"],"message":"schema Snapshots/recipes/search.schema.json: breaking /count type-changed: integer → string (and 7 more)","p50":0.821,"p95":1.023,"passed":false},"second.variant":{"p50":1.345,"p95":1.345,"passed":true}},"passed":false,"startedAt":"2026-11-27T13:41:59.734Z","version":1}"#,
        #"{"endpoints":{"gone":{"failures":["http-status","refused"],"message":"reachable: 1 of 1 samples failed: connection refused (http://127.0.0.1:9/nothing)","p95":null,"passed":false}},"passed":false,"startedAt":"2026-11-27T13:41:59.777Z","version":1}"#,
        #"{"endpoints":{"gone19":{"failures":["http-status"],"message":"status 200: got 404 × 1 of 1 samples","p50":5.997,"p95":5.997,"passed":false},"health1":{"p50":6.284,"p95":6.284,"passed":true},"health11":{"p50":5.898,"p95":5.898,"passed":true},"health13":{"p50":0.335,"p95":0.335,"passed":true},"health15":{"p50":4.028,"p95":4.028,"passed":true},"health17":{"p50":5.965,"p95":5.965,"passed":true},"health3":{"p50":8.821,"p95":8.821,"passed":true},"health5":{"p50":11.564,"p95":11.564,"passed":true},"health7":{"p50":11.522,"p95":11.522,"passed":true},"health9":{"p50":5.468,"p95":5.468,"passed":true},"search0":{"p50":8.751,"p95":8.751,"passed":true},"search10":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":5.891,"p95":5.891,"passed":false},"search12":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":6.206,"p95":6.206,"passed":false},"search14":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":8.038,"p95":8.038,"passed":false},"search16":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":7.825,"p95":7.825,"passed":false},"search18":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":7.187,"p95":7.187,"passed":false},"search2":{"p50":7.007,"p95":7.007,"passed":true},"search4":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":11.479,"p95":11.479,"passed":false},"search6":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":13.991,"p95":13.991,"passed":false},"search8":{"failures":["body-condition"],"message":"/count > 0: /count: expected > 0, found 0 (sample 1)","p50":8.214,"p95":8.214,"passed":false}},"passed":false,"startedAt":"2026-11-27T13:09:25.038Z","version":1}"#,
    ]

    @Test func linesWrittenBeforeTheCodecReadAndWriteBackByteForByte() throws {
        let url = try TemporaryFolder.url.appendingPathComponent("history.jsonl")
        try Data((Self.linesOfTodaysFormat.joined(separator: "\n") + "\n").utf8).write(to: url)
        let contents = try HistoryFile(url: url).read(last: 10)
        #expect(contents.damagedLines == 0)
        #expect(contents.records.count == 3)
        let first = try #require(contents.records.first)
        let search = try #require(first.endpoints["search"])
        #expect(search.drift.count == 5 && search.failures == ["schema-drift"] && search.p50 == 0.821)
        #expect(first.endpoints["gone"]?.p95 == nil && first.endpoints["gone"]?.failures == ["http-status", "refused"])

        let again = try TemporaryFolder.url.appendingPathComponent("again.jsonl")
        for record in contents.records { try HistoryFile(url: again).append(record) }
        #expect(
            String(decoding: try Data(contentsOf: again), as: UTF8.self)
                == Self.linesOfTodaysFormat.joined(separator: "\n") + "\n")
    }

    /// A record with every field set, through the file and back, is the same record; and every stored property of
    /// a record and of an endpoint's summary has its member in the codec (a new field that is not written fails
    /// here, instead of compiling and never reaching the file).
    @Test func everyFieldReachesTheFileAndComesBack() throws {
        let summary = HistoryRecord.EndpointSummary(
            passed: false, p95: 12.345, p50: 6.5, failures: ["http-status", "timeout"], message: "status 200: got 503",
            drift: ["breaking /id type-changed: string → integer"])
        let record = HistoryRecord(
            startedAt: Date(timeIntervalSince1970: 1_795_370_400.125), passed: false,
            endpoints: ["search": summary, "health": .init(passed: true, p95: 1, p50: 1)])
        let url = try TemporaryFolder.url.appendingPathComponent("round-trip.jsonl")
        try HistoryFile(url: url).append(record)
        #expect(try HistoryFile(url: url).read(last: 1).records == [record])

        #expect(Set(Mirror(reflecting: record).children.compactMap(\.label)) == HistoryRecord.memberKeys)
        #expect(
            Set(Mirror(reflecting: summary).children.compactMap(\.label)) == HistoryRecord.EndpointSummary.memberKeys)
    }
}
