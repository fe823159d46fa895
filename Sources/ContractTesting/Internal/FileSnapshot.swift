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
    argument: RecordMode?,
    kind: String,
    differences: (Data) throws -> [String]
) -> String? {
    let shown = displayPath(url)
    let specSource = writtenFromSpec(url)
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
        // The file's own errors name it and the place; the file is named once.
        let detail = "\(error)"
        return detail.hasPrefix(shown) ? detail : "\(shown): cannot read the \(kind): \(detail)"
    }
    if changes.isEmpty {
        // Record mode all rewrites every file, and a test fails where the file's content changed (README); a
        // snapshot written from a spec is the spec's, never rewritten from samples.
        guard mode.rewritesAll, existing != fresh, specSource == nil else { return nil }
        do { try AtomicFile.write(fresh, to: url, displayName: shown) } catch { return error.description }
        return "\(shown) was re-recorded with changed content (record mode all); review the change, then commit it."
    }
    let listing = changes.map { "  " + $0 }.joined(separator: "\n")
    if let specSource {
        return
            "\(shown) does not match:\n\(listing)\n\(shown) comes from an OpenAPI description (it is listed in \(specSource)), so no record mode rewrites it from samples: if the API changed, update the description and re-run `apiprobe openapi import`."
    }
    if mode.rewritesMismatches {
        do {
            try AtomicFile.write(fresh, to: url, displayName: shown)
        } catch {
            return error.description
        }
        return
            "\(shown) did not match and was re-recorded (record mode \(mode)); review the change, then commit it:\n\(listing)"
    }
    return "\(shown) does not match:\n\(listing)\nIf the change is intended, \(recordAdvice(argument: argument))"
}

/// How to record a changed file under the record mode in force: where it came from is what to change (an argument
/// or a trait overrides `APIPROBE_RECORD`, so advice to set the variable would do nothing).
func recordAdvice(argument: RecordMode?, scope: RecordMode? = ContractTestingConfiguration.current.record) -> String {
    if let argument {
        return
            "pass record: .failed instead of record: .\(argument) (the argument overrides APIPROBE_RECORD), re-run, and commit the file."
    }
    if let scope {
        return
            "set record: .failed instead of .\(scope) in the .contractTesting trait or withContractTesting scope (it overrides APIPROBE_RECORD), re-run, and commit the file."
    }
    return "re-run with APIPROBE_RECORD=failed and commit the file."
}

/// The `operations.json` beside a snapshot that lists it (`openapi import` wrote the snapshot from a spec), as
/// shown in messages; `nil` for any other snapshot.
func writtenFromSpec(_ snapshot: URL) -> String? {
    let operations = snapshot.deletingLastPathComponent().appendingPathComponent(OperationsFile.fileName)
    guard FileManager.default.fileExists(atPath: operations.path),
        let file = try? OperationsFile.read(operations, displayName: displayPath(operations)),
        file.operations.contains(where: { $0.snapshots.contains(snapshot.lastPathComponent) })
    else { return nil }
    return displayPath(operations)
}
