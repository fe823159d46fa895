package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader sees the old bytes or the new ones, never a half-written file.
///
/// Only a regular file is replaced atomically (a temporary file beside it, flushed, then renamed over it),
/// keeping its permission bits: a `0600` file stays `0600`. A path that exists and is not a regular file is
/// never replaced by one: a symbolic link is followed (the file it points to is replaced, the link stays), a
/// terminal, pipe or socket (`/dev/stdout`, `/dev/stderr`) is written through, and a folder, a block device or
/// a link to nothing is refused. A temporary file left by a writer that was killed is removed by the next
/// write to its folder.
package enum AtomicFile {
    /// The start of every temporary file's name.
    static let temporaryPrefix = ".apiprobe-"
    /// The end of every temporary file's name.
    static let temporarySuffix = ".tmp"

    /// Writes `data` to `url` (see the type's discussion). Creates missing parent folders. On failure the
    /// temporary file is removed and `url` is untouched.
    ///
    /// - Throws: ``InputError`` naming the file and the reason.
    package static func write(_ data: Data, to url: URL, displayName: String? = nil) throws(InputError) {
        try write(data, to: url, displayName: displayName, inside: nil)
    }

    /// Writes `data` to `url` as ``write(_:to:displayName:inside:)`` does, unless the file holds those bytes
    /// already: an unchanged file keeps its bytes and its modification time.
    ///
    /// - Returns: whether the file was written.
    @discardableResult
    package static func writeIfChanged(_ data: Data, to url: URL, displayName: String? = nil, inside folder: URL?)
        throws(InputError) -> Bool
    {
        if let existing = try? Data(contentsOf: url), existing == data { return false }
        try write(data, to: url, displayName: displayName, inside: folder)
        return true
    }

    /// Writes `data` to `url` as ``write(_:to:displayName:)`` does, after checking that `url`, and the file a
    /// link there points to, are inside `folder`.
    ///
    /// - Throws: ``InputError`` for a path outside `folder`, or as ``write(_:to:displayName:)``.
    package static func write(_ data: Data, to url: URL, displayName: String? = nil, inside folder: URL?)
        throws(InputError)
    {
        let name = displayName ?? url.path
        func fail(_ expected: String, _ found: String) -> InputError {
            InputError(file: name, position: .file, expected: expected, found: found)
        }
        if let folder, !SafePath.isInside(url, folder: folder) {
            throw fail("a path inside \(folder.path)", "a path that leads outside it")
        }
        let fileName = url.lastPathComponent
        if fileName.utf8.count > Int(NAME_MAX) {
            throw fail("a file name of at most \(NAME_MAX) bytes", "a name of \(fileName.utf8.count) bytes (too long)")
        }

        var target = url
        var info = stat()
        if lstat(url.path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFLNK {
                // The kernel follows the link (`/dev/stdout` → `/proc/self/fd/1` → a pipe has no path).
                guard stat(url.path, &info) == 0 else {
                    throw fail("a file, or a link to one", "a symbolic link to nothing")
                }
                let resolved = realPath(url.path) ?? url.path
                if let folder, !SafePath.isInside(URL(fileURLWithPath: resolved), folder: folder) {
                    throw fail("a path inside \(folder.path)", "a symbolic link to \(resolved), outside it")
                }
                if (info.st_mode & S_IFMT) == S_IFREG { target = URL(fileURLWithPath: resolved) }
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                break
            case S_IFCHR, S_IFIFO, S_IFSOCK:
                try writeThrough(data, to: target.path, name: name)
                return
            case S_IFDIR:
                throw fail("a file", "a folder")
            default:
                throw fail("a file, a terminal or a pipe", "a device that is not written over")
            }
        } else if errno == ENAMETOOLONG {
            throw fail("a shorter path", "a path too long for the file system")
        }
        try replace(target, with: data, name: name, mode: info.st_mode != 0 ? info.st_mode & 0o7777 : nil)
    }

    /// Writes into an existing terminal, pipe or socket, as a shell's `>` would.
    private static func writeThrough(_ data: Data, to path: String, name: String) throws(InputError) {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw InputError(
                file: name, position: .file, expected: "a writable file", found: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        if let reason = writeAll(data, to: descriptor) {
            throw InputError(
                file: name, position: .file, expected: "room to write \(data.count) bytes", found: reason)
        }
    }

    /// A temporary file beside `url`, flushed, renamed over it; `mode` kept when the file existed.
    private static func replace(_ url: URL, with data: Data, name: String, mode: mode_t?) throws(InputError) {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InputError(
                file: name, position: .file, expected: "a folder that can be created",
                found: "\(folder.path) cannot be created")
        }
        removeAbandonedTemporaryFiles(in: folder)
        let (temporary, descriptor) = try createLockedTemporaryFile(in: folder, mode: mode, name: name)
        var failure = writeAll(data, to: descriptor)
        if failure == nil, let mode, fchmod(descriptor, mode) != 0 { failure = String(cString: strerror(errno)) }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary.path)
            close(descriptor)
            throw InputError(
                file: name, position: .file, expected: "room to write \(data.count) bytes", found: failure)
        }
        if rename(temporary.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            close(descriptor)
            throw InputError(file: name, position: .file, expected: "a file that can be replaced", found: reason)
        }
        close(descriptor)
    }

    /// A new temporary file in `folder`, open for writing and locked (`flock`) while this process writes it.
    ///
    /// Another writer cleaning the folder may take the file between its creation and the lock, and remove
    /// it; then the path no longer names the locked file, and a new one is made.
    private static func createLockedTemporaryFile(in folder: URL, mode: mode_t?, name: String) throws(InputError)
        -> (URL, Int32)
    {
        for _ in 0..<8 {
            let temporary = folder.appendingPathComponent("\(temporaryPrefix)\(UUID().uuidString)\(temporarySuffix)")
            let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode ?? 0o666)
            guard descriptor >= 0 else {
                let reason =
                    errno == ENAMETOOLONG ? "a path too long for the file system" : String(cString: strerror(errno))
                throw InputError(
                    file: name, position: .file, expected: "a writable folder", found: "\(folder.path): \(reason)")
            }
            // Held while writing: the lock tells a later writer that this file is not abandoned.
            _ = flock(descriptor, LOCK_EX)
            var opened = stat()
            var named = stat()
            if fstat(descriptor, &opened) == 0, lstat(temporary.path, &named) == 0, opened.st_ino == named.st_ino,
                opened.st_dev == named.st_dev
            {
                return (temporary, descriptor)
            }
            close(descriptor)
        }
        throw InputError(
            file: name, position: .file, expected: "a temporary file that stays",
            found: "\(folder.path): temporary files removed as soon as made")
    }

    /// Removes the temporary files of writers that died mid-write: files named as this type names them
    /// (or `.<name>.tmp-<UUID>`, as earlier versions did) that no live writer holds a lock on.
    static func removeAbandonedTemporaryFiles(in folder: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for entry in names where isTemporaryName(entry) {
            let path = folder.appendingPathComponent(entry).path
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { continue }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                unlink(path)
            }
            close(descriptor)
        }
    }

    static func isTemporaryName(_ name: String) -> Bool {
        if name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix) { return true }
        // Earlier versions: `.<name>.tmp-<UUID>`.
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards) else { return false }
        return UUID(uuidString: String(name[marker.upperBound...])) != nil
    }

    /// `nil` when every byte was written, else the reason.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        var failure: String?
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                offset += written
            }
        }
        return failure
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
