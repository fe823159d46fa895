import Foundation
import HTTPFixtures

#if canImport(Glibc)
// With SwiftNIO's C modules in the graph, Swift attributes glibc's `struct stat` to CoreFoundation's module, or to
// Dispatch's, depending on the order the modules are loaded in.
import CoreFoundation
import CDispatch
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension HistoryFile {
    /// What ``scan(_:)`` read: how many records, and which lines were skipped as damaged.
    package struct ScanSummary: Sendable, Hashable {
        /// Records handed to the body.
        var records: Int
        /// Lines that are not JSON (a write cut short by a killed run) or longer than
        /// ``HistoryFile/maximumLineLength``: skipped, as `apiprobe run` skips them.
        package var damagedLines: Int
        /// The 1-based numbers of the first damaged lines (at most 10), for a warning.
        package var firstDamagedLines: [Int]
    }

    /// Reads every record from the first line to the last, one at a time, in bounded memory.
    ///
    /// A line that is not JSON, or longer than ``maximumLineLength``, is a write cut short by a killed run (or a
    /// hand edit): it is skipped and counted, as `apiprobe run` does. A line that is JSON but not a history record
    /// is not something a run writes: it is an error naming the file, the line and the field.
    ///
    /// - Complexity: O(file size) time; memory O(``maximumLineLength``) beside what `body` keeps.
    /// - Throws: ``HTTPFixtures/InputError`` for a missing or unreadable file, a JSON line that is not a record,
    ///   or a file with no record at all; whatever `body` throws.
    package func scan(_ body: (HistoryRecord) throws -> Void) throws -> ScanSummary {
        let name = url.relativePath
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw InputError(
                file: name, position: .file, expected: "a history file (apiprobe run --history FILE writes one)",
                found: code == ENOENT ? "no such file" : "a file that cannot be read (\(AppendOnlyFile.describe(code)))"
            )
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw InputError(
                file: name, position: .file, expected: "a JSON Lines history file", found: "something else (a folder?)")
        }

        var summary = ScanSummary(records: 0, damagedLines: 0, firstDamagedLines: [])
        var firstSyntaxError: (line: Int, error: InputError)?
        var lineNumber = 0

        func damaged(_ line: Int) {
            summary.damagedLines += 1
            if summary.firstDamagedLines.count < 10 { summary.firstDamagedLines.append(line) }
        }
        let failure = try Self.forEachLine(descriptor, from: 0, to: Int64(status.st_size)) { _, bytes in
            lineNumber += 1
            guard let line = bytes else {
                damaged(lineNumber)
                return true
            }
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") && $0 != 9 }) else {
                return true
            }
            do {
                let record = try HistoryRecord(parsing: line)
                summary.records += 1
                try body(record)
            } catch let problem as HistoryRecord.LineProblem {
                if let syntax = problem.syntax {
                    damaged(lineNumber)
                    if firstSyntaxError == nil { firstSyntaxError = (lineNumber, syntax) }
                    return true
                }
                throw InputError(
                    file: name, position: .lineColumn(line: lineNumber, column: 1),
                    expected: "a history record with \(problem.pointer) \(problem.expected)", found: problem.found)
            }
            return true
        }
        if let failure {
            throw InputError(
                file: name, position: .lineColumn(line: lineNumber + 1, column: 1), expected: "a readable file",
                found: AppendOnlyFile.describe(failure))
        }

        guard summary.records > 0 else {
            if let (line, error) = firstSyntaxError {
                throw InputError(
                    file: name, position: .lineColumn(line: line, column: error.position.column ?? 1),
                    expected: "a history line: \(error.expected)", found: error.found)
            }
            throw InputError(
                file: name, position: .file, expected: "at least one history line (apiprobe run --history FILE)",
                found: summary.damagedLines > 0 ? "only lines longer than 1 MiB" : "an empty file")
        }
        return summary
    }
}

extension HistoryFile {
    /// The lines of the open file `descriptor` from `offset` (a line's start) up to `end`, in order, read in 1 MiB
    /// chunks in bounded memory: `body` gets each line's start and its bytes without the line feed, `nil` for a
    /// line longer than ``maximumLineLength`` (damaged, not held in memory), and returns `false` to stop. The
    /// last line may lack its line feed (a write cut short). The one forward reading of the history: ``scan(_:)``
    /// and pruning.
    ///
    /// - Returns: `nil`, or the `errno` of a read that failed.
    static func forEachLine(
        _ descriptor: Int32, from offset: Int64, to end: Int64, _ body: (Int64, ArraySlice<UInt8>?) throws -> Bool
    ) rethrows -> Int32? {
        var position = offset
        var line: [UInt8] = []
        var lineStart = offset
        var tooLong = false
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while position < end {
            let count = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress, min(bytes.count, Int(end - position)), off_t(position))
            }
            if count < 0, errno == EINTR { continue }
            if count < 0 { return errno }
            if count == 0 { break }
            var from = 0
            while let newline = buffer[from..<count].firstIndex(of: UInt8(ascii: "\n")) {
                if !tooLong, line.count + newline - from > maximumLineLength { tooLong = true }
                let kept: ArraySlice<UInt8>?
                if tooLong {
                    kept = nil
                } else if line.isEmpty {
                    kept = buffer[from..<newline]  // the whole line is in this chunk: no copy
                } else {
                    line += buffer[from..<newline]
                    kept = line[...]
                }
                guard try body(lineStart, kept) else { return nil }
                line = []
                tooLong = false
                from = newline + 1
                lineStart = position + Int64(from)
            }
            if !tooLong {
                if line.count + count - from > maximumLineLength {
                    line = []
                    tooLong = true
                } else {
                    line += buffer[from..<count]
                }
            }
            position += Int64(count)
        }
        if position > lineStart { _ = try body(lineStart, tooLong ? nil : line[...]) }
        return nil
    }
}
