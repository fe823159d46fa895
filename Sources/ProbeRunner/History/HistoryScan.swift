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
        package var records: Int
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
        var pending: [UInt8] = []
        var pendingTooLong = false
        var chunk = [UInt8](repeating: 0, count: 1 << 20)

        func damaged(_ line: Int) {
            summary.damagedLines += 1
            if summary.firstDamagedLines.count < 10 { summary.firstDamagedLines.append(line) }
        }
        func consume(_ line: ArraySlice<UInt8>) throws {
            lineNumber += 1
            guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") && $0 != 9 }) else {
                return
            }
            do {
                let record = try HistoryRecord(parsing: line)
                summary.records += 1
                try body(record)
            } catch let problem as HistoryRecord.LineProblem {
                if let syntax = problem.syntax {
                    damaged(lineNumber)
                    if firstSyntaxError == nil { firstSyntaxError = (lineNumber, syntax) }
                    return
                }
                throw InputError(
                    file: name, position: .lineColumn(line: lineNumber, column: 1),
                    expected: "a history record with \(problem.pointer) \(problem.expected)", found: problem.found)
            }
        }

        while true {
            let count = chunk.withUnsafeMutableBytes { buffer -> Int in
                while true {
                    let got = readBytes(descriptor, buffer.baseAddress, buffer.count)
                    if got < 0, errno == EINTR { continue }
                    return got
                }
            }
            guard count >= 0 else {
                throw InputError(
                    file: name, position: .lineColumn(line: lineNumber + 1, column: 1), expected: "a readable file",
                    found: AppendOnlyFile.describe(errno))
            }
            if count == 0 { break }
            var start = 0
            while start < count {
                guard let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) else {
                    if pendingTooLong || pending.count + count - start > Self.maximumLineLength {
                        pending = []
                        pendingTooLong = true
                    } else {
                        pending += chunk[start..<count]
                    }
                    break
                }
                if pendingTooLong || pending.count + newline - start > Self.maximumLineLength {
                    lineNumber += 1
                    damaged(lineNumber)
                } else if pending.isEmpty {
                    try consume(chunk[start..<newline])
                } else {
                    pending += chunk[start..<newline]
                    try consume(pending[...])
                }
                pending = []
                pendingTooLong = false
                start = newline + 1
            }
        }
        if pendingTooLong {
            lineNumber += 1
            damaged(lineNumber)
        } else if !pending.isEmpty {
            try consume(pending[...])
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

/// `read(2)`, named apart from ``HistoryFile/read(last:chunkSize:)``.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
