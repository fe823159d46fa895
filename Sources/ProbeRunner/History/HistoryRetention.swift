import APIProbeShared
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much of the history file a run keeps (`history: {keep: 30d, maxSize: 50MB}`): rounds younger than `keep`,
/// and at most `maxSize` bytes of the newest lines. Either or both; neither keeps everything (the default).
///
/// Pruning happens when a round is appended, under the history's lock, by replacing the file with its newest lines
/// (``AppendOnlyFile/keepTail(of:from:)``), and not at every round: only once the oldest round is more than a tenth
/// of `keep` too old, or the file is above `maxSize`, and then down to `keep`, or to nine tenths of `maxSize`. The
/// counters (`history.totals.json`) and the alert states (`history.outbox.json`) are kept beside the history, not
/// read from it, so pruning changes neither.
package struct HistoryRetention: Sendable, Hashable {
    /// The oldest round kept, as an age.
    var keep: Duration?
    /// The most bytes kept.
    var maxBytes: Int64?

    package init(keep: Duration? = nil, maxBytes: Int64? = nil) {
        self.keep = keep
        self.maxBytes = maxBytes
    }

    /// Whether any limit is set.
    var isLimited: Bool { keep != nil || maxBytes != nil }
}

extension HistoryFile {
    /// Prunes the file as `retention` says, at `now`. Returns the rounds removed (0 when the file was within its
    /// limits).
    ///
    /// - Throws: ``HistoryFileError`` naming the file.
    @discardableResult
    package func prune(_ retention: HistoryRetention, now: Date) throws -> Int {
        guard retention.isLimited else { return 0 }
        var removed = 0
        try AppendOnlyFile.keepTail(of: url) { descriptor, size in
            var cut: Int64 = 0
            if let maxBytes = retention.maxBytes, size > maxBytes {
                cut = try lineStart(descriptor, atOrAfter: size - maxBytes * 9 / 10, size: size)
            }
            if let keep = retention.keep {
                let oldest = now.addingTimeInterval(-keep.timeInterval)
                let due = now.addingTimeInterval(-(keep * 1.1).timeInterval)
                if let first = try firstRecordTime(descriptor, from: cut, size: size), first < due {
                    cut = max(cut, try firstLine(descriptor, from: cut, size: size) { $0 >= oldest })
                }
            }
            guard cut > 0 else { return nil }
            removed = try lineCount(descriptor, upTo: cut)
            return cut
        }
        return removed
    }

    /// The lines of the file from `offset` on (``forEachLine(_:from:to:_:)``, a damaged one empty); a read that
    /// fails is an error, never a shorter file.
    private func lines(
        _ descriptor: Int32, from offset: Int64, size: Int64, _ body: (Int64, ArraySlice<UInt8>) -> Bool
    ) throws(HistoryFileError) {
        if let failure = Self.forEachLine(
            descriptor, from: offset, to: size, { start, bytes in body(start, bytes ?? []) })
        {
            throw HistoryFileError(
                file: url.relativePath, problem: "cannot be read: \(AppendOnlyFile.describe(failure))")
        }
    }

    /// The start of the first line at or after `offset` (`size` when none starts there).
    private func lineStart(_ descriptor: Int32, atOrAfter offset: Int64, size: Int64) throws(HistoryFileError) -> Int64
    {
        guard offset > 0 else { return 0 }
        var byte: UInt8 = 0
        guard pread(descriptor, &byte, 1, off_t(offset - 1)) == 1 else {
            throw HistoryFileError(file: url.relativePath, problem: "cannot be read: \(AppendOnlyFile.describe(errno))")
        }
        if byte == UInt8(ascii: "\n") { return offset }
        var found = size
        try lines(descriptor, from: offset, size: size) { start, _ in
            guard start > offset else { return true }
            found = start
            return false
        }
        return found
    }

    /// When the first readable round at or after `offset` started.
    private func firstRecordTime(_ descriptor: Int32, from offset: Int64, size: Int64) throws(HistoryFileError) -> Date?
    {
        var time: Date?
        try lines(descriptor, from: offset, size: size) { _, bytes in
            guard let record = HistoryRecord(line: bytes) else { return true }
            time = record.startedAt
            return false
        }
        return time
    }

    /// The start of the first readable line at or after `offset` whose round `keeps` accepts (`size` when none
    /// does): the damaged lines before it go with the old ones.
    private func firstLine(
        _ descriptor: Int32, from offset: Int64, size: Int64, where keeps: (Date) -> Bool
    ) throws(HistoryFileError) -> Int64 {
        var found = size
        try lines(descriptor, from: offset, size: size) { start, bytes in
            guard let record = HistoryRecord(line: bytes), keeps(record.startedAt) else { return true }
            found = start
            return false
        }
        return found
    }

    /// The lines that start before `offset`.
    private func lineCount(_ descriptor: Int32, upTo offset: Int64) throws(HistoryFileError) -> Int {
        var count = 0
        try lines(descriptor, from: 0, size: offset) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
