import APIProbeShared
import Foundation
import HTTPFixtures
import JSONShape
import ProbeRunner

/// Reading schema inputs and printing diffs, shared by `schema` and `snapshot`.
enum SchemaInput {
    /// Whether a file holds JSON Lines, by its extension.
    static func isJSONLines(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson")
    }

    /// `paths` with each folder replaced by the sample files below it (`.json`, `.jsonl`, `.ndjson`), sorted in
    /// byte order; a folder with none is an error, since inferring from nothing would look like an empty API.
    static func sampleFiles(_ paths: [String]) throws(InputError) -> [String] {
        try files(paths, endingIn: [".json", ".jsonl", ".ndjson"], kind: "JSON samples (.json, .jsonl, .ndjson)")
    }

    /// `paths` with each folder replaced by the files below it whose names end in one of `suffixes`, sorted in
    /// byte order: the one reading of "a file, or a folder of them" (`schema infer`, `contract verify`). A folder
    /// with none is an error naming `kind`.
    static func files(_ paths: [String], endingIn suffixes: [String], kind: String) throws(InputError) -> [String] {
        var files: [String] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                files.append(path)
                continue
            }
            let root = URL(fileURLWithPath: path, isDirectory: true)
            var found: [String] = []
            if let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) {
                for case let url as URL in walker {
                    let name = url.lastPathComponent.lowercased()
                    guard suffixes.contains(where: { name.hasSuffix($0) }) else { continue }
                    let relative = String(url.path.dropFirst(root.path.count)).drop { $0 == "/" }
                    found.append((path.hasSuffix("/") ? path : path + "/") + relative)
                }
            }
            guard !found.isEmpty else {
                throw InputError(file: path, position: .file, expected: "a folder of \(kind)", found: "none")
            }
            files += found.sorted(by: precedesInByteOrder)
        }
        return files
    }

    /// Adds the samples of a file (one document, or JSON Lines) to an inference.
    static func addSamples(from path: String, to inference: inout ShapeInference) throws(InputError) {
        let url = URL(fileURLWithPath: path)
        if isJSONLines(path) {
            let before = inference.sampleCount
            try inference.addJSONLines(contentsOf: url, file: path)
            // An empty file has no shape to compare: "no changes" against it would be a false all-clear.
            guard inference.sampleCount > before else {
                throw InputError(
                    file: path, position: .file, expected: "at least one JSON sample (one a line)",
                    found: "no samples (an empty file)")
            }
        } else {
            // Streamed: a 50 MB response is read in about a megabyte of memory.
            try inference.addSample(contentsOf: url, file: path)
        }
    }

    static func read(_ path: String) throws(InputError) -> Data {
        try SnapshotWorkspace.read(path)
    }

    /// One side of `schema diff`: a `*.schema.json` snapshot, a fixture (its response body), or samples.
    static func shape(of path: String, detectsEnums: Bool) throws -> ShapeNode {
        if path.lowercased().hasSuffix(".schema.json") {
            return try SchemaSnapshot(
                decoding: read(path), file: path, folder: URL(fileURLWithPath: path).deletingLastPathComponent()
            ).shape
        }
        var inference = ShapeInference(options: InferenceOptions(detectsEnums: detectsEnums))
        if let body = try fixtureBody(path) {
            try inference.addSample(body, file: path)
            return inference.shape
        }
        try addSamples(from: path, to: &inference)
        return inference.shape
    }

    /// The response body of a fixture file (an object of `request`, `response` and `metadata`, as `record` and
    /// the importers write), or `nil` for any other file. Only the first key is read to tell (a large sample is
    /// still streamed); a fixture without a JSON body is an error, since comparing the file itself would compare
    /// its envelope, not the API's answer.
    static func fixtureBody(_ path: String) throws -> Data? {
        guard !isJSONLines(path), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        let head = (try? handle.read(upToCount: 256)) ?? Data()
        try? handle.close()
        let text = String(decoding: head, as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        guard text.hasPrefix("{"),
            ["metadata", "request", "response"].contains(where: {
                text.dropFirst().drop(while: \.isWhitespace).hasPrefix("\"\($0)\"")
            }),
            let data = FileManager.default.contents(atPath: path),
            let (status, body) = try? Exchange.responseSample(decoding: data, file: path)
        else { return nil }
        guard let body else {
            throw InputError(
                file: path, position: .jsonPointer("/response/body"), expected: "a JSON response body to compare",
                found: "a fixture (status \(status)) without one")
        }
        return body
    }

    static func usage(at path: String?) throws(InputError) -> UsageManifest? {
        guard let path else { return nil }
        return try UsageManifest(decoding: read(path), file: path)
    }
}

/// Text output of changes: one line a change, severity marked (coloured on a terminal), a summary line.
enum ChangeReport {
    static func line(for change: SchemaChange, on terminal: Terminal) -> String {
        let label = change.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        let styled: String
        switch change.severity {
        case .breaking: styled = terminal.styled(label, .red)
        case .warning: styled = terminal.styled(label, .yellow)
        default: styled = terminal.styled(label, .dim)
        }
        return "\(styled) \(change.summary)"
    }

    static func summary(_ diff: SchemaDiff) -> String {
        let warnings = diff.warningCount == 1 ? "1 warning" : "\(diff.warningCount) warnings"
        return "\(diff.breakingCount) breaking, \(warnings), \(diff.infoCount) info"
    }

    static func text(for diff: SchemaDiff, on terminal: Terminal) -> String {
        var out = ""
        for change in diff.changes { out += line(for: change, on: terminal) + "\n" }
        if diff.changes.isEmpty {
            out += "No changes.\n"
        } else {
            let summary = summary(diff)
            out += (diff.hasBreakingChanges ? terminal.styled(summary, .bold) : summary) + "\n"
        }
        return out
    }
}

/// The output formats of `schema diff` and `snapshot check`.
enum ReportFormat: String, CaseIterable, Sendable {
    case text
    case json
}
