import APIProbeShared
import Foundation
import HTTPFixtures

/// The nearest `Snapshots/` folder above a test file, or a new one beside the nearest `Stubs/`.
func snapshotsFolder(relativeTo filePath: StaticString) -> URL? {
    let file = URL(fileURLWithPath: "\(filePath)")
    if let found = FixtureStore.findAncestorFolder(named: "Snapshots", from: file) { return found }
    if let stubs = FixtureStore.findAncestorFolder(named: "Stubs", from: file) {
        return stubs.deletingLastPathComponent().appendingPathComponent("Snapshots", isDirectory: true)
    }
    return nil
}

/// Compares freshly made snapshot bytes with the file at `url` and applies the record mode.
///
/// - Parameters:
///   - differences: the changes from the committed bytes to `fresh`, one line each; empty when they
///     match. A throw means the committed file cannot be read (reported as such).
/// - Returns: the failure message, or `nil` when the snapshot holds (or was re-recorded unchanged).
func verifyFileSnapshot(
    at url: URL,
    fresh: Data,
    mode: RecordMode,
    kind: String,
    differences: (Data) throws -> [String]
) -> String? {
    let shown = displayPath(url)
    guard let existing = FileManager.default.contents(atPath: url.path) else {
        guard mode.writesMissing else {
            return "No \(kind) at \(shown) (record mode never); run the tests locally to record it, then commit it."
        }
        do {
            try AtomicFile.write(fresh, to: url, displayName: shown)
        } catch {
            return error.description
        }
        return "Recorded missing \(kind) \(shown); re-run, then commit it."
    }
    let changes: [String]
    do {
        changes = try differences(existing)
    } catch {
        return "\(shown): cannot read the \(kind): \(error)"
    }
    if changes.isEmpty {
        // Record mode all rewrites every file, and a test fails where the file's content changed (README).
        guard mode.rewritesAll, existing != fresh else { return nil }
        do { try AtomicFile.write(fresh, to: url, displayName: shown) } catch { return error.description }
        return "\(shown) was re-recorded with changed content (record mode all); review the change, then commit it."
    }
    let listing = changes.map { "  " + $0 }.joined(separator: "\n")
    if mode.rewritesMismatches {
        do {
            try AtomicFile.write(fresh, to: url, displayName: shown)
        } catch {
            return error.description
        }
        return
            "\(shown) did not match and was re-recorded (record mode \(mode)); review the change, then commit it:\n\(listing)"
    }
    return
        "\(shown) does not match:\n\(listing)\nIf the change is intended, re-run with APIPROBE_RECORD=failed and commit the file."
}
