import APIProbeShared
package import Foundation
import HTTPFixtures
import ProbeClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The history file of `--history FILE`: one JSON line a run, appended and flushed, never rewriting
/// earlier lines.
///
/// ```swift
/// let history = HistoryFile(url: URL(fileURLWithPath: ".apiprobe/history.jsonl"))
/// let earlier = try history.records(last: config.regression.window)
/// result.regressions = RegressionDetector.regressions(in: result, history: earlier, policy: config.regression)
/// try history.append(result)
/// ```
///
/// A line:
/// ```json
/// {"endpoints":{"search":{"p95":15.2,"passed":true}},"passed":true,"startedAt":"2026-11-22T18:00:00.250Z","version":1}
/// ```
///
/// `startedAt` is UTC with milliseconds when it has any, so runs less than a second apart keep their order.
///
/// Each line is appended with one `write` to a file opened `O_APPEND`, under an exclusive `flock`, then
/// `fsync`ed: concurrent runs never interleave, and a process killed mid-write damages only its own line, which
/// readers skip (and count in ``Contents/damagedLines``).
package struct HistoryFile: Sendable {
    package var url: URL

    package init(url: URL) { self.url = url }

    /// The longest line read (1 MiB; a run's line is a few hundred bytes an endpoint): a longer line is
    /// damaged, skipped and counted in ``Contents/damagedLines`` without being held in memory.
    static let maximumLineLength = 1 << 20

    /// Appends one line for `result`.
    ///
    /// The file is created when missing, but not its folder: a missing folder is an error, since it usually
    /// means a mistyped path or a cache that was not restored.
    ///
    /// - Throws: ``HistoryFileError`` naming the file.
    package func append(_ result: ProbeRunResult) throws {
        try append(HistoryRecord(result))
    }

    /// Appends one line for `record`.
    ///
    /// - Throws: ``HistoryFileError`` naming the file.
    package func append(_ record: HistoryRecord) throws {
        try AppendOnlyFile.append(Array(record.line.utf8) + [UInt8(ascii: "\n")], to: url)
    }

    /// The last `limit` readable records, oldest first; damaged lines (a killed writer's tail, a hand edit, a
    /// line longer than ``maximumLineLength``) are skipped.
    ///
    /// A missing file has no records (the first run).
    ///
    /// - Complexity: reads the file from its end in 1 MiB chunks, only as far back as `limit` records need.
    /// - Throws: ``HistoryFileError`` when the file exists but cannot be read.
    package func records(last limit: Int) throws -> [HistoryRecord] {
        try read(last: limit).records
    }

    /// What ``read(last:)`` found.
    package struct Contents: Sendable, Hashable {
        /// The readable records, oldest first.
        package var records: [HistoryRecord]
        /// Lines that could not be read (a torn write, a hand edit), among those looked at.
        package var damagedLines: Int

        init(records: [HistoryRecord], damagedLines: Int) {
            self.records = records
            self.damagedLines = damagedLines
        }
    }

    /// The last `limit` readable records, oldest first, and how many damaged lines were skipped on the way.
    ///
    /// - Parameters:
    ///   - limit: how many records at most.
    ///   - chunkSize: how many bytes to read at a time from the end (1 MiB).
    /// - Complexity: O(bytes of the last `limit` lines), whatever the file's size.
    /// - Throws: ``HistoryFileError`` when the file exists but cannot be read.
    package func read(last limit: Int, chunkSize: Int = 1 << 20) throws -> Contents {
        let name = url.relativePath
        guard limit > 0 else { return Contents(records: [], damagedLines: 0) }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return Contents(records: [], damagedLines: 0) }
            throw HistoryFileError(file: name, problem: "cannot be read: \(AppendOnlyFile.describe(code))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw HistoryFileError(file: name, problem: "cannot read its size: \(AppendOnlyFile.describe(errno))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw HistoryFileError(file: name, problem: "is not a regular file; expected a JSON Lines history file")
        }

        var newestFirst: [HistoryRecord] = []
        var damaged = 0
        var end = Int64(status.st_size)
        // Bytes from the start of the last chunk read up to its first line feed: the tail of a line that
        // began in an earlier chunk. Never more than `maximumLineLength`: a longer line is damaged, and only
        // whether it is too long is kept, so a huge unterminated line is read in linear time.
        var pending: [UInt8] = []
        var pendingTooLong = false
        let step = Int64(max(chunkSize, 1))
        while newestFirst.count < limit {
            guard end > 0 else {
                // The file's first line.
                if pendingTooLong {
                    damaged += 1
                } else {
                    consume(pending[...], into: &newestFirst, damaged: &damaged)
                }
                break
            }
            let start = max(0, end - step)
            var chunk = [UInt8](repeating: 0, count: Int(end - start))
            let got = chunk.withUnsafeMutableBytes { buffer in
                readFully(descriptor, buffer, at: start)
            }
            guard got == chunk.count else {
                throw HistoryFileError(file: name, problem: "cannot be read: \(AppendOnlyFile.describe(errno))")
            }
            end = start
            var lineEnd = chunk.count
            var index = chunk.count - 1
            // In the file's last chunk, text after the last line feed is a torn line or one being written:
            // read like any other line (it counts as damaged unless it is a whole record).
            while index >= 0, newestFirst.count < limit {
                if chunk[index] == UInt8(ascii: "\n") {
                    let length = lineEnd - index - 1
                    if lineEnd == chunk.count {
                        // The line goes on into `pending`.
                        if pendingTooLong || length + pending.count > Self.maximumLineLength {
                            damaged += 1
                        } else {
                            consume((chunk[(index + 1)...] + pending)[...], into: &newestFirst, damaged: &damaged)
                        }
                        pending = []
                        pendingTooLong = false
                    } else if length > Self.maximumLineLength {
                        damaged += 1
                    } else {
                        consume(chunk[(index + 1)..<lineEnd], into: &newestFirst, damaged: &damaged)
                    }
                    lineEnd = index
                }
                index -= 1
            }
            if newestFirst.count >= limit { break }
            if lineEnd == chunk.count {
                // No line feed in this chunk: the line in `pending` goes on further back.
                if !pendingTooLong, lineEnd + pending.count <= Self.maximumLineLength {
                    pending = Array(chunk) + pending
                } else {
                    pending = []
                    pendingTooLong = true
                }
            } else if lineEnd > Self.maximumLineLength {
                pending = []
                pendingTooLong = true
            } else {
                pending = Array(chunk[0..<lineEnd])
                pendingTooLong = false
            }
        }
        return Contents(records: newestFirst.reversed(), damagedLines: damaged)
    }

    private func consume(_ line: ArraySlice<UInt8>, into records: inout [HistoryRecord], damaged: inout Int) {
        guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") && $0 != 9 }) else {
            return
        }
        if let record = HistoryRecord(line: line) {
            records.append(record)
        } else {
            damaged += 1
        }
    }

    private func readFully(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, base + done, buffer.count - done, off_t(offset + Int64(done)))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            done += count
        }
        return done
    }
}

/// One run as the history file keeps it.
///
/// Per endpoint: passed, p95 and p50 (ms, `null` with no response); when it failed, the categories of its failed
/// checks (`failures`) and the first failed check (`message`, up to ``maximumMessageLength`` characters); when its
/// snapshot drifted, the first ``maximumDriftLines`` changes (`drift`). Lines written before `p50`, `failures`,
/// `message` and `drift` existed read with them empty.
package struct HistoryRecord: Sendable, Hashable {
    package var startedAt: Date
    package var passed: Bool
    /// Per endpoint: passed, p95 (ms, `nil` with no response).
    package var endpoints: [String: EndpointSummary]

    /// The longest `message` kept, in characters.
    static let maximumMessageLength = 200
    /// The most `drift` lines kept an endpoint.
    static let maximumDriftLines = 5

    package struct EndpointSummary: Sendable, Hashable {
        package var passed: Bool
        package var p95: Double?
        /// The median latency (ms), `nil` with no response or in a line written before it was recorded.
        package var p50: Double?
        /// The categories of the failed checks, sorted (`http-status`, `timeout`); empty when it passed.
        package var failures: [String]
        /// The first failed check, `name: message`; `nil` when it passed.
        package var message: String?
        /// Schema drift against the snapshot, one change a line (`breaking /id type-changed: string → integer`).
        package var drift: [String]

        /// Whether the endpoint gave a usable answer that round (no failure category that means down): the
        /// rounds `downAfter` and alerts count. A failed round of a line written before the categories were
        /// recorded counts as not answered, as every failure counted then.
        package var answered: Bool {
            passed || (!failures.isEmpty && !failures.contains { FailureCategory(rawValue: $0).meansDown })
        }

        package init(
            passed: Bool, p95: Double?, p50: Double? = nil, failures: [String] = [], message: String? = nil,
            drift: [String] = []
        ) {
            self.passed = passed
            self.p95 = p95
            self.p50 = p50
            self.failures = failures
            self.message = message
            self.drift = drift
        }

        /// The keys of ``members``: the names of the stored properties they write.
        package static var memberKeys: Set<String> { Set(members.map(\.key)) }

        /// Every member of an endpoint's summary in a line, each once (see ``HistoryRecord/members``).
        static let members: [HistoryMember<EndpointSummary>] = [
            HistoryMember(
                "passed", write: { .bool($0.passed) },
                read: { summary, value, pointer throws(LineProblem) in
                    summary.passed = try HistoryMember<EndpointSummary>.bool(value, at: pointer)
                }),
            // Written as null with no response: a reader sees the round had none.
            HistoryMember(
                "p95", write: { HistoryMember<EndpointSummary>.milliseconds($0.p95) ?? .null },
                read: { summary, value, pointer throws(LineProblem) in
                    summary.p95 = try HistoryMember<EndpointSummary>.milliseconds(value, at: pointer)
                }),
            HistoryMember(
                "p50", write: { HistoryMember<EndpointSummary>.milliseconds($0.p50) },
                read: { summary, value, pointer throws(LineProblem) in
                    summary.p50 = try HistoryMember<EndpointSummary>.milliseconds(value, at: pointer)
                }),
            HistoryMember(
                "failures", write: { $0.failures.isEmpty ? nil : .array($0.failures.map(JSONValue.string)) },
                read: { summary, value, pointer throws(LineProblem) in
                    summary.failures = try HistoryMember<EndpointSummary>.strings(value, at: pointer)
                }),
            HistoryMember(
                "message", write: { $0.message.map(JSONValue.string) },
                read: { summary, value, pointer throws(LineProblem) in
                    switch value {
                    case nil, .null?: summary.message = nil
                    case .string(let text)?: summary.message = text
                    case let other?: throw LineProblem(pointer: pointer, expected: "a string", found: found(other))
                    }
                }),
            HistoryMember(
                "drift", write: { $0.drift.isEmpty ? nil : .array($0.drift.map(JSONValue.string)) },
                read: { summary, value, pointer throws(LineProblem) in
                    summary.drift = try HistoryMember<EndpointSummary>.strings(value, at: pointer)
                }),
        ]
    }

    package init(startedAt: Date, passed: Bool, endpoints: [String: EndpointSummary]) {
        self.startedAt = startedAt
        self.passed = passed
        self.endpoints = endpoints
    }

    /// The record of a run: whether it and each endpoint passed, each endpoint's p95 and p50, and why it failed.
    package init(_ result: ProbeRunResult) {
        var endpoints: [String: EndpointSummary] = [:]
        for endpoint in result.endpoints {
            let failed = endpoint.checks.filter { !$0.passed }
            let message = failed.first.map { check in check.message.map { "\(check.name): \($0)" } ?? check.name }
            endpoints[endpoint.name] = EndpointSummary(
                passed: endpoint.passed, p95: endpoint.latency?.p95, p50: endpoint.latency?.p50,
                failures: Set(failed.map { ($0.category ?? .other).rawValue }).sorted(),
                message: message.map { String($0.prefix(Self.maximumMessageLength)) },
                drift: endpoint.schemaChanges.prefix(Self.maximumDriftLines).map(\.lineWithFile))
        }
        self.init(startedAt: result.startedAt, passed: result.passed, endpoints: endpoints)
    }

    /// The file's line for this record (no line feed): compact JSON, keys sorted, latencies to 0.001 ms, written
    /// by the one codec (``members`` and ``EndpointSummary/members``).
    var line: String {
        var document: [(key: String, value: JSONValue)] = [("version", .number("1"))]
        for member in Self.members { if let value = member.write(self) { document.append((member.key, value)) } }
        return String(decoding: JSONValue.object(document).serialized(sortedKeys: true), as: UTF8.self)
    }

    /// The keys of ``members``: the names of the stored properties they write.
    package static var memberKeys: Set<String> { Set(members.map(\.key)) }

    /// Every member of a line, each once: its key, how it is written and how it is read. A stored property without
    /// its member here is caught by a test (HistoryCodecTests), so a field cannot compile and never reach the file.
    static let members: [HistoryMember<HistoryRecord>] = [
        HistoryMember(
            "startedAt", write: { .string(DisplayText.timestamp($0.startedAt, milliseconds: true)) },
            read: { record, value, pointer throws(LineProblem) in
                guard case .string(let text)? = value, let date = DisplayText.parseTimestamp(text) else {
                    throw LineProblem(
                        pointer: pointer, expected: "an ISO 8601 time (2026-11-22T18:00:00Z)", found: found(value))
                }
                record.startedAt = date
            }),
        HistoryMember(
            "passed", write: { .bool($0.passed) },
            read: { record, value, pointer throws(LineProblem) in
                record.passed = try HistoryMember<HistoryRecord>.bool(value, at: pointer)
            }),
        HistoryMember(
            "endpoints",
            write: { record in
                .object(
                    record.endpoints.map { name, summary in
                        var members: [(key: String, value: JSONValue)] = []
                        for member in EndpointSummary.members {
                            if let value = member.write(summary) { members.append((member.key, value)) }
                        }
                        return (name, JSONValue.object(members))
                    })
            },
            read: { record, value, pointer throws(LineProblem) in
                guard case .object(let entries)? = value else {
                    throw LineProblem(pointer: pointer, expected: "an object of endpoints", found: found(value))
                }
                for (name, entry) in entries {
                    var summary = EndpointSummary(passed: false, p95: nil)
                    let at = pointer + "/" + JSONPointer.escape(name)
                    for member in EndpointSummary.members {
                        try member.read(&summary, entry[member.key], at + "/" + member.key)
                    }
                    record.endpoints[name] = summary
                }
            }),
    ]

    /// Reads a line; `nil` when it is not a whole record.
    init?(line: ArraySlice<UInt8>) {
        guard let record = try? Self(parsing: line) else { return nil }
        self = record
    }

    /// Why a line is not a record: a JSON Pointer into it, what was expected there and what was found.
    struct LineProblem: Error {
        var pointer: String
        var expected: String
        var found: String
        /// The JSON syntax error, when the line is not JSON (`pointer` is then empty).
        var syntax: InputError?
    }

    /// Reads a line, or says what is wrong with it: by the one codec (``members``); a member a line lacks reads as
    /// empty (lines written before `p50`, `failures`, `message` and `drift` existed), except `startedAt`, `passed`
    /// and each endpoint's `passed`.
    init(parsing line: ArraySlice<UInt8>) throws(LineProblem) {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: Data(line))
        } catch {
            throw LineProblem(pointer: "", expected: error.expected, found: error.found, syntax: error)
        }
        var record = HistoryRecord(startedAt: Date(timeIntervalSince1970: 0), passed: false, endpoints: [:])
        for member in Self.members { try member.read(&record, document[member.key], "/" + member.key) }
        self = record
    }

}

/// What a value in a history line is, for a message: `a string`, `12`, `nothing`.
private func found(_ value: JSONValue?) -> String { value?.briefDescription ?? "nothing" }

/// One member of a history line: its key, how it is written (`nil`: left out) and how it is read into `Root` (a
/// missing member, `nil`, reads as empty unless the reader requires it). The one codec of the history file.
struct HistoryMember<Root>: Sendable {
    let key: String
    let write: @Sendable (Root) -> JSONValue?
    let read: @Sendable (inout Root, JSONValue?, _ pointer: String) throws(HistoryRecord.LineProblem) -> Void

    init(
        _ key: String, write: @escaping @Sendable (Root) -> JSONValue?,
        read: @escaping @Sendable (inout Root, JSONValue?, String) throws(HistoryRecord.LineProblem) -> Void
    ) {
        self.key = key
        self.write = write
        self.read = read
    }

    static func bool(_ value: JSONValue?, at pointer: String) throws(HistoryRecord.LineProblem) -> Bool {
        guard case .bool(let flag)? = value else {
            throw HistoryRecord.LineProblem(pointer: pointer, expected: "true or false", found: found(value))
        }
        return flag
    }

    /// Latencies to 0.001 ms; `nil` for none (or one that is not finite).
    static func milliseconds(_ value: Double?) -> JSONValue? {
        value.flatMap { $0.isFinite ? .number(DisplayText.trimmed($0)) : nil }
    }

    static func milliseconds(_ value: JSONValue?, at pointer: String) throws(HistoryRecord.LineProblem) -> Double? {
        switch value {
        case .number(let literal)?:
            guard let number = Double(literal), number.isFinite else {
                throw HistoryRecord.LineProblem(pointer: pointer, expected: "milliseconds", found: literal)
            }
            return number
        case .null?, nil: return nil
        case let other?:
            throw HistoryRecord.LineProblem(pointer: pointer, expected: "milliseconds or null", found: found(other))
        }
    }

    static func strings(_ value: JSONValue?, at pointer: String) throws(HistoryRecord.LineProblem) -> [String] {
        switch value {
        case nil, .null?: return []
        case .array(let items)?:
            var texts: [String] = []
            for (index, item) in items.enumerated() {
                guard case .string(let text) = item else {
                    throw HistoryRecord.LineProblem(
                        pointer: "\(pointer)/\(index)", expected: "a string", found: found(item))
                }
                texts.append(text)
            }
            return texts
        case let other?:
            throw HistoryRecord.LineProblem(pointer: pointer, expected: "an array of strings", found: found(other))
        }
    }
}
