import Foundation
import HTTPFixtures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small file of state kept beside the history for the next run (the alerts not delivered yet, the counters'
/// totals): read, changed and written back under one exclusive lock, so cron runs that overlap take turns and
/// none loses another's change.
///
/// The lock is a `.lock` file beside it (the state file itself is replaced, so a lock on it would not hold);
/// the new bytes are written atomically, so a killed run leaves the old state or the new, never half of one.
enum StateFile {
    /// Runs `body` with the file's bytes (`nil` when it does not exist) under the lock, and writes what it
    /// returns: new bytes, or `nil` to remove the file.
    ///
    /// - Throws: ``HistoryFileError`` naming the file when it cannot be locked or written; `body`'s errors.
    static func update<T>(_ url: URL, _ body: (Data?) async throws -> (data: Data?, result: T)) async throws -> T {
        let lockName = url.relativePath + ".lock"
        let descriptor = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, mode_t(0o644))
        // The history's own words for a missing folder or no permission (the state file is beside it).
        guard descriptor >= 0 else { throw AppendOnlyFile.openError(errno, url: url) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw HistoryFileError(file: lockName, problem: "cannot be locked: \(describe(errno))")
            }
        }
        defer { _ = flock(descriptor, LOCK_UN) }
        let (data, result) = try await body(FileManager.default.contents(atPath: url.path))
        if let data {
            do {
                try AtomicFile.write(data, to: url, displayName: url.relativePath)
            } catch {
                throw HistoryFileError(file: url.relativePath, problem: "cannot be written: \(error.found)")
            }
        } else if FileManager.default.fileExists(atPath: url.path) {
            try? FileManager.default.removeItem(at: url)
        }
        return result
    }

    /// A file beside the history: `history.jsonl` → `history.<name>.json`.
    static func url(_ name: String, besideHistory history: URL) -> URL {
        history.deletingPathExtension().appendingPathExtension("\(name).json")
    }

    private static func describe(_ code: Int32) -> String { AppendOnlyFile.describe(code) }
}
