public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes files so that a reader sees the old bytes or the new ones, never a half-written file.
public enum AtomicFile {
    /// Writes `data` to a temporary file beside `url`, flushes it to disk, then renames it over `url`.
    /// Creates missing parent folders. On failure the temporary file is removed and `url` is untouched.
    ///
    /// - Throws: ``FixtureError`` naming the file and the reason.
    public static func write(_ data: Data, to url: URL, displayName: String? = nil) throws(FixtureError) {
        let name = displayName ?? url.path
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw FixtureError(
                file: name, position: .file, expected: "a folder that can be created",
                found: "\(folder.path) cannot be created")
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw FixtureError(
                file: name, position: .file, expected: "a writable folder", found: "\(folder.path) is not writable")
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw FixtureError(
                file: name, position: .file, expected: "room to write \(data.count) bytes", found: "\(error)")
        }
        if rename(temporary.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw FixtureError(file: name, position: .file, expected: "a file that can be replaced", found: reason)
        }
    }
}
