import APIProbeTestSupport
import Foundation
import ProbeRunner
import ProbeTestSupport
import Testing

@Suite(.temporaryFolder) struct HistoryFileTests {
    let folder: URL

    /// The test's own folder (`.temporaryFolder`), removed when it ends.
    init() throws { folder = try TemporaryFolder.url }

    static func record(_ index: Int, p95: Double? = 10, passed: Bool = true) -> HistoryRecord {
        HistoryRecord(
            startedAt: SampleRuns.startedAt.addingTimeInterval(Double(index) * 60), passed: passed,
            endpoints: ["search": .init(passed: passed, p95: p95), "detail": .init(passed: true, p95: Double(index))]
        )
    }

    /// `history.keep`: the rounds older than the age go (a damaged line among them too), the file is replaced as
    /// a whole, and a prune right after removes nothing (the next waits until the oldest is a tenth too old).
    @Test func pruningKeepsTheRoundsYoungerThanKeep() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        let now = SampleRuns.startedAt
        for day in stride(from: 40, through: 0, by: -1) {
            try history.append(
                HistoryRecord(
                    startedAt: now.addingTimeInterval(-Double(day) * 86_400), passed: true,
                    endpoints: ["search": .init(passed: true, p95: Double(day))]))
            if day == 35 { try AppendOnlyFile.append(Array("{torn".utf8) + [10], to: history.url) }
        }
        let retention = HistoryRetention(keep: .seconds(30 * 86_400))
        #expect(try history.prune(retention, now: now) == 11)
        let contents = try history.read(last: 100)
        #expect(contents.damagedLines == 0)
        #expect(contents.records.count == 31)
        #expect(contents.records.first?.startedAt == now.addingTimeInterval(-30 * 86_400))
        #expect(contents.records.last?.startedAt == now)
        // A day later the oldest is 31 days old: within a tenth of 30 days, so the file is left as it is.
        #expect(try history.prune(retention, now: now.addingTimeInterval(86_400)) == 0)
        #expect(try history.prune(retention, now: now.addingTimeInterval(4 * 86_400)) == 4)
    }

    /// `history.maxSize`: the file is cut at a line's start to nine tenths of the size, newest rounds kept whole.
    @Test func pruningKeepsTheNewestLinesWithinMaxSize() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for index in 0..<400 { try history.append(Self.record(index)) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: history.url.path)[.size] as? Int)
        let limit = Int64(size / 4)
        let removed = try history.prune(HistoryRetention(maxBytes: limit), now: SampleRuns.startedAt)
        let after = try #require(try FileManager.default.attributesOfItem(atPath: history.url.path)[.size] as? Int)
        #expect(Int64(after) <= limit * 9 / 10 && Int64(after) > limit * 8 / 10, "\(after) of \(limit)")
        let contents = try history.read(last: 1_000)
        #expect(contents.damagedLines == 0)
        #expect(contents.records.count == 400 - removed)
        #expect(contents.records.last == Self.record(399))
        #expect(try history.prune(HistoryRetention(maxBytes: limit), now: SampleRuns.startedAt) == 0)
    }

    /// Pruning replaces the file, never a symbolic link to it: a linked history is refused, naming the file.
    @Test func aLinkedHistoryIsNotPruned() throws {
        let target = folder.appendingPathComponent("real.jsonl")
        let link = folder.appendingPathComponent("history.jsonl")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let history = HistoryFile(url: link)
        for index in 0..<3 { try history.append(Self.record(index)) }
        let error = #expect(throws: HistoryFileError.self) {
            try history.prune(HistoryRetention(maxBytes: 10), now: SampleRuns.startedAt)
        }
        #expect(error?.problem.hasPrefix("is a symbolic link") == true)
        #expect(try HistoryFile(url: target).records(last: 10).count == 3)
    }

    @Test func appendedRunsReadBackOldestFirst() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        try history.append(SampleRuns.mixed)
        try history.append(SampleRuns.green)
        let records = try history.records(last: 10)
        #expect(records.count == 2)
        #expect(records[0] == HistoryRecord(SampleRuns.mixed))
        #expect(records[0].startedAt == SampleRuns.startedAt)
        #expect(records[0].passed == false)
        #expect(records[0].endpoints["search"] == .init(passed: true, p95: 15.8, p50: 12.5))
        #expect(
            records[0].endpoints["offline"]
                == .init(
                    passed: false, p95: nil, failures: ["refused"],
                    message: "reachable: connection refused by 127.0.0.1:9"))
        #expect(records[1].endpoints.keys.sorted() == ["search"])
        let text = try String(contentsOf: history.url, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        let expected: String = [
            #"{"endpoints":{"detail":{"drift":["breaking /recipe/social_rank type-changed: number → string","#,
            #""info /recipe/rating added: integer"],"failures":["http-status","schema-drift"],"#,
            #""message":"status 200-299: 2 of 5 samples answered 503","p50":20,"p95":24.5,"passed":false},"#,
            #""offline":{"failures":["refused"],"message":"reachable: connection refused by 127.0.0.1:9","#,
            #""p95":null,"passed":false},"search":{"p50":12.5,"p95":15.8,"passed":true}},"passed":false,"#,
            #""startedAt":"2026-11-22T18:00:00Z","version":1}"#, "\n",
        ].joined()
        #expect(text.hasPrefix(expected))
    }

    /// Runs less than a second apart (`--every` rounds, cron runs started together) keep their own times: the
    /// history writes milliseconds when a time has them.
    @Test func runsLessThanASecondApartKeepTheirOwnTimes() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for index in 0..<9 {
            try history.append(
                HistoryRecord(
                    startedAt: SampleRuns.startedAt.addingTimeInterval(Double(index) * 0.125), passed: true,
                    endpoints: ["search": .init(passed: true, p95: 1)]))
        }
        let records = try history.records(last: 20)
        #expect(
            records.map { $0.startedAt.timeIntervalSince(SampleRuns.startedAt) }
                == (0..<9).map {
                    Double($0) * 0.125
                })
        let text = try String(contentsOf: history.url, encoding: .utf8)
        #expect(text.contains(#""startedAt":"2026-11-22T18:00:00Z""#))
        #expect(text.contains(#""startedAt":"2026-11-22T18:00:00.125Z""#))
        #expect(text.contains(#""startedAt":"2026-11-22T18:00:01Z""#))
    }

    @Test func aTornLineIsSkippedCountedAndNeverJoinsTheNextRun() throws {
        let url = folder.appendingPathComponent("history.jsonl")
        let history = HistoryFile(url: url)
        for index in 0..<5 { try history.append(Self.record(index)) }
        // A writer killed mid-line: half a record, no line feed.
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"endpoints":{"search":{"p95":1"#.utf8))
        try handle.close()
        #expect(try history.read(last: 10).damagedLines == 1)
        try history.append(Self.record(5))

        let contents = try history.read(last: 100)
        #expect(contents.records == (0...5).map { Self.record($0) })
        #expect(contents.damagedLines == 1)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 7)
        #expect(lines[5] == #"{"endpoints":{"search":{"p95":1"#)
        #expect(lines[6].hasPrefix("{\"endpoints\""))
    }

    @Test func concurrentAppendsNeverInterleave() async throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { try history.append(Self.record(index)) }
            }
            try await group.waitForAll()
        }
        let contents = try history.read(last: 1_000)
        #expect(contents.damagedLines == 0)
        #expect(contents.records.count == 64)
        #expect(Set(contents.records.map(\.startedAt)).count == 64)
        let text = try String(contentsOf: history.url, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        #expect(text.split(separator: "\n").count == 64)
    }

    @Test func lastRecordsComeFromTheTailAcrossChunkBoundaries() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("history.jsonl"))
        for index in 0..<200 { try history.append(Self.record(index)) }
        for chunkSize in [1, 7, 64, 150, 1 << 20] {
            let contents = try history.read(last: 10, chunkSize: chunkSize)
            #expect(contents.records == (190..<200).map { Self.record($0) }, "chunk \(chunkSize)")
            #expect(contents.damagedLines == 0)
        }
        #expect(try history.read(last: 500, chunkSize: 100).records.count == 200)
        #expect(try history.records(last: 0).isEmpty)
    }

    @Test func readingTheTailDoesNotReadTheWholeFile() throws {
        let url = folder.appendingPathComponent("history.jsonl")
        // 4 MiB of damaged lines, then three good records: asking for three never reaches the damage.
        let junkLine = String(repeating: "x", count: 1_023) + "\n"
        try Data(String(repeating: junkLine, count: 4_096).utf8).write(to: url)
        let history = HistoryFile(url: url)
        for index in 0..<3 { try history.append(Self.record(index)) }
        let tail = try history.read(last: 3)
        #expect(tail.records == (0..<3).map { Self.record($0) })
        #expect(tail.damagedLines == 0)
        let all = try history.read(last: 10)
        #expect(all.records.count == 3)
        #expect(all.damagedLines == 4_096)
    }

    @Test func aMissingFileHasNoRecords() throws {
        let history = HistoryFile(url: folder.appendingPathComponent("none.jsonl"))
        #expect(try history.records(last: 10).isEmpty)
    }

    @Test func aMissingFolderIsAClearError() throws {
        let url = folder.appendingPathComponent("nope/history.jsonl")
        let error = #expect(throws: HistoryFileError.self) { try HistoryFile(url: url).append(SampleRuns.green) }
        #expect(error?.file == url.path)
        #expect(error?.problem.contains("does not exist; create it first (mkdir -p") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("nope").path))
    }

    @Test func aRelativePathIsNamedAsGiven() throws {
        let error = #expect(throws: HistoryFileError.self) {
            try HistoryFile(url: URL(fileURLWithPath: "no-such-folder-\(UUID().uuidString)/history.jsonl"))
                .append(SampleRuns.green)
        }
        #expect(error?.description.hasPrefix("no-such-folder-") == true)
    }

    @Test func aFolderInPlaceOfTheFileIsAClearError() throws {
        let error = #expect(throws: HistoryFileError.self) { try HistoryFile(url: folder).append(SampleRuns.green) }
        #expect(error?.problem.contains("folder") == true)
        #expect(throws: HistoryFileError.self) { try HistoryFile(url: folder).records(last: 1) }
    }
}
