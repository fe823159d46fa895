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
    package var keep: Duration?
    /// The most bytes kept.
    package var maxBytes: Int64?

    package init(keep: Duration? = nil, maxBytes: Int64? = nil) {
        self.keep = keep
        self.maxBytes = maxBytes
    }

    /// Whether any limit is set.
    package var isLimited: Bool { keep != nil || maxBytes != nil }
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
                cut = Self.lineStart(descriptor, atOrAfter: size - maxBytes * 9 / 10, size: size)
            }
            if let keep = retention.keep {
                let oldest = now.addingTimeInterval(-keep.timeInterval)
                let due = now.addingTimeInterval(-(keep * 1.1).timeInterval)
                if let first = Self.firstRecordTime(descriptor, from: cut, size: size), first < due {
                    cut = max(cut, Self.firstLine(descriptor, from: cut, size: size) { $0 >= oldest })
                }
            }
            guard cut > 0 else { return nil }
            removed = Self.lineCount(descriptor, upTo: cut)
            return cut
        }
        return removed
    }

    /// The lines of the file from `offset` on, as (start, end, bytes) in order, read in 1 MiB chunks; `body`
    /// returns `false` to stop. A line longer than ``maximumLineLength`` is passed without its bytes (empty).
    private static func lines(
        _ descriptor: Int32, from offset: Int64, size: Int64, _ body: (Int64, ArraySlice<UInt8>) -> Bool
    ) {
        var position = offset
        var line: [UInt8] = []
        var lineStart = offset
        var tooLong = false
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while position < size {
            let count = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress, min(bytes.count, Int(size - position)), off_t(position))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var from = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                if !tooLong { line += buffer[from..<index] }
                guard body(lineStart, tooLong ? [] : line[...]) else { return }
                line = []
                tooLong = false
                from = index + 1
                lineStart = position + Int64(index) + 1
            }
            if !tooLong {
                line += buffer[from..<count]
                if line.count > maximumLineLength {
                    line = []
                    tooLong = true
                }
            }
            position += Int64(count)
        }
        if position > lineStart { _ = body(lineStart, tooLong ? [] : line[...]) }
    }

    /// The start of the first line at or after `offset` (`size` when none starts there).
    private static func lineStart(_ descriptor: Int32, atOrAfter offset: Int64, size: Int64) -> Int64 {
        guard offset > 0 else { return 0 }
        var byte: UInt8 = 0
        guard pread(descriptor, &byte, 1, off_t(offset - 1)) == 1 else { return size }
        if byte == UInt8(ascii: "\n") { return offset }
        var found = size
        lines(descriptor, from: offset, size: size) { start, _ in
            guard start > offset else { return true }
            found = start
            return false
        }
        return found
    }

    /// When the first readable round at or after `offset` started.
    private static func firstRecordTime(_ descriptor: Int32, from offset: Int64, size: Int64) -> Date? {
        var time: Date?
        lines(descriptor, from: offset, size: size) { _, bytes in
            guard let record = HistoryRecord(line: bytes) else { return true }
            time = record.startedAt
            return false
        }
        return time
    }

    /// The start of the first readable line at or after `offset` whose round `keeps` accepts (`size` when none
    /// does): the damaged lines before it go with the old ones.
    private static func firstLine(
        _ descriptor: Int32, from offset: Int64, size: Int64, where keeps: (Date) -> Bool
    ) -> Int64 {
        var found = size
        lines(descriptor, from: offset, size: size) { start, bytes in
            guard let record = HistoryRecord(line: bytes), keeps(record.startedAt) else { return true }
            found = start
            return false
        }
        return found
    }

    /// The lines that start before `offset`.
    private static func lineCount(_ descriptor: Int32, upTo offset: Int64) -> Int {
        var count = 0
        lines(descriptor, from: 0, size: offset) { _, _ in
            count += 1
            return true
        }
        return count
    }
}
