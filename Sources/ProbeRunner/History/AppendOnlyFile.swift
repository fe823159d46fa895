package import APIProbeShared
package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A problem with the history file or another file apiprobe appends to: the file and what went wrong.
///
/// ```
/// .apiprobe/history.jsonl: the folder .apiprobe does not exist; create it first (mkdir -p .apiprobe)
/// ```
package struct HistoryFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it.
    package var file: String
    /// What went wrong, and what to do about it.
    package var problem: String

    init(file: String, problem: String) {
        self.file = file
        self.problem = problem
    }

    package var description: String { "\(file): \(problem)" }
}

/// Appends to a file so that earlier content is never rewritten and a killed writer damages at most its own line.
package enum AppendOnlyFile {
    /// Appends `bytes` in one `write` (`O_APPEND`, under an exclusive `flock` so cooperating writers take turns),
    /// then `fsync`s. When the file does not end in a line feed (a torn earlier write), a line feed goes first, so
    /// the new line never merges with the damaged one.
    ///
    /// - Throws: ``HistoryFileError`` naming the file: a missing folder, a folder in the way, no permission.
    ///
    /// With `offset` (a value an earlier call returned), the file is first cut back to that size, so `bytes`
    /// replace what that call and any later ones appended (a file already shorter is not extended).
    ///
    /// - Returns: the file's size before `bytes` (and the line feed that may precede them) were appended.
    @discardableResult
    package static func append(
        _ bytes: [UInt8], to url: URL, synchronize: Bool = true, replacingFrom offset: Int64? = nil
    )
        throws(HistoryFileError) -> Int64
    {
        let name = url.relativePath
        let path = url.path
        var created = false
        // Read-write, so the last byte can be read back under the lock.
        var descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT {
            descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(0o644))
            created = descriptor >= 0
        }
        guard descriptor >= 0 else { throw openError(errno, url: url) }
        defer { close(descriptor) }
        try lockCurrentFile(&descriptor, url: url) { () throws(HistoryFileError) in
            let reopened = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, mode_t(0o644))
            guard reopened >= 0 else { throw openError(errno, url: url) }
            return reopened
        }
        defer { _ = flock(descriptor, LOCK_UN) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw HistoryFileError(file: name, problem: "cannot read its size: \(describe(errno))")
        }
        if let offset, offset >= 0, offset < Int64(status.st_size) {
            guard ftruncate(descriptor, off_t(offset)) == 0 else {
                throw HistoryFileError(file: name, problem: "cannot be cut back: \(describe(errno))")
            }
            status.st_size = off_t(offset)
        }
        var output = bytes
        if status.st_size > 0 {
            var last: UInt8 = 0
            guard pread(descriptor, &last, 1, off_t(status.st_size - 1)) == 1 else {
                throw HistoryFileError(file: name, problem: "cannot read its last line: \(describe(errno))")
            }
            if last != UInt8(ascii: "\n") { output.insert(UInt8(ascii: "\n"), at: 0) }
        }
        let failure: Int32? = output.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure {
            throw HistoryFileError(file: name, problem: "cannot append: \(describe(failure))")
        }
        if synchronize {
            guard fsync(descriptor) == 0 else {
                throw HistoryFileError(file: name, problem: "cannot flush to disk: \(describe(errno))")
            }
            if created { synchronizeFolder(of: url) }
        }
        return Int64(status.st_size)
    }

    /// Takes the exclusive lock on the file open on `descriptor`. A pruning run may have replaced the file while
    /// this one waited for the lock: then the file the path names now is opened (`reopen`) and locked instead, so
    /// nothing goes to the file that was replaced. `descriptor` is left holding the lock, or -1 when `reopen` found
    /// no file.
    private static func lockCurrentFile(
        _ descriptor: inout Int32, url: URL, reopen: () throws(HistoryFileError) -> Int32
    ) throws(HistoryFileError) {
        while descriptor >= 0 {
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    throw HistoryFileError(file: url.relativePath, problem: "cannot lock: \(describe(errno))")
                }
            }
            guard isReplaced(descriptor, path: url.path) else { return }
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
            descriptor = try reopen()
        }
    }

    /// Whether the file open on `descriptor` is no longer the one `path` names (a pruning run replaced it).
    static func isReplaced(_ descriptor: Int32, path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0 else { return false }
        // `stat`, not `lstat`: a history reached through a link is appended to through it.
        guard stat(path, &named) == 0 else { return true }
        return open.st_ino != named.st_ino || open.st_dev != named.st_dev
    }

    /// Replaces the file with its bytes from the offset `cut` returns (a line's start) to its end, under the same
    /// lock as ``append(_:to:synchronize:replacingFrom:)``: the kept bytes are written to a new file beside it,
    /// flushed and renamed over it, so a killed run leaves the old file or the new one, and an appender that waited
    /// for the lock appends to the new one. `cut` reads the file through the descriptor it is given (and the
    /// file's size); it returns `nil` or 0 to keep everything.
    ///
    /// - Returns: the bytes removed (0 when nothing was).
    /// - Throws: ``HistoryFileError`` naming the file; `cut`'s errors.
    @discardableResult
    static func keepTail(
        of url: URL, from cut: (_ descriptor: Int32, _ size: Int64) throws -> Int64?
    ) throws -> Int64 {
        let name = url.relativePath
        let path = url.path
        var descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0, errno == ENOENT { return 0 }
        if descriptor < 0, errno == ELOOP {
            throw HistoryFileError(
                file: name,
                problem: "is a symbolic link: pruning replaces the file, and never a link; give the file's own path")
        }
        guard descriptor >= 0 else { throw openError(errno, url: url) }
        defer { close(descriptor) }
        try lockCurrentFile(&descriptor, url: url) { () throws(HistoryFileError) in
            let reopened = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard reopened >= 0 || errno == ENOENT else { throw openError(errno, url: url) }
            return reopened
        }
        guard descriptor >= 0 else { return 0 }  // removed while this run waited
        defer { _ = flock(descriptor, LOCK_UN) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw HistoryFileError(file: name, problem: "is not a regular file; expected a JSON Lines history file")
        }
        let size = Int64(status.st_size)
        guard let offset = try cut(descriptor, size), offset > 0 else { return 0 }
        let start = min(offset, size)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).prune-\(getpid())")
        // A file of that name is one a killed run of the same process number left: this run holds the lock.
        unlink(temporary.path)
        let output = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC, status.st_mode & 0o777)
        guard output >= 0 else {
            throw HistoryFileError(file: name, problem: "cannot be pruned: \(temporary.path): \(describe(errno))")
        }
        var moved = false
        defer {
            close(output)
            if !moved { unlink(temporary.path) }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = start
        while position < size {
            let count = buffer.withUnsafeMutableBytes { bytes in
                pread(descriptor, bytes.baseAddress, min(bytes.count, Int(size - position)), off_t(position))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw HistoryFileError(file: name, problem: "cannot be read: \(describe(errno))")
            }
            var written = 0
            while written < count {
                let result = buffer.withUnsafeBytes { bytes in
                    write(output, bytes.baseAddress! + written, count - written)
                }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    throw HistoryFileError(file: name, problem: "cannot be pruned: \(describe(errno))")
                }
                written += result
            }
            position += Int64(count)
        }
        guard fsync(output) == 0, rename(temporary.path, path) == 0 else {
            throw HistoryFileError(file: name, problem: "cannot be pruned: \(describe(errno))")
        }
        moved = true
        synchronizeFolder(of: url)
        return start
    }

    /// Makes a newly created file's folder entry durable too.
    private static func synchronizeFolder(of url: URL) {
        let folder = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        guard folder >= 0 else { return }
        _ = fsync(folder)
        close(folder)
    }

    static func openError(_ code: Int32, url: URL) -> HistoryFileError {
        let name = url.relativePath
        let folder = url.deletingLastPathComponent()
        var folderName = (name as NSString).deletingLastPathComponent
        if folderName.isEmpty { folderName = folder.path }
        switch code {
        case ENOENT:
            return HistoryFileError(
                file: name,
                problem: "the folder \(folderName) does not exist; create it first (mkdir -p \(folderName))"
            )
        case EISDIR:
            return HistoryFileError(file: name, problem: "is a folder; expected a file")
        case ENOTDIR:
            return HistoryFileError(file: name, problem: "a part of the path is a file, not a folder")
        case EACCES, EPERM, EROFS:
            return HistoryFileError(file: name, problem: "cannot be written: \(describe(code))")
        default:
            return HistoryFileError(file: name, problem: "cannot be opened for appending: \(describe(code))")
        }
    }

    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

extension HistoryFileError: ExitStatusReporting {
    /// A history the user named that cannot be read or written: status 2.
    package var exitStatus: ExitStatus { .badInput }
}
