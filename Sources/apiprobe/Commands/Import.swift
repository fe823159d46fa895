import APIProbeShared
import ArgumentParser
import Foundation
import HTTPFixtures

/// `apiprobe import`: turns captured traffic into fixtures.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn captured traffic into fixtures.",
        subcommands: [ImportHARCommand.self]
    )
}

/// `apiprobe import har FILE [--into DIR]`.
struct ImportHARCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "har",
        abstract: "Turn a HAR 1.2 file (browser devtools, Charles, Proxyman) into redacted fixtures.",
        discussion: """
            Writes one fixture per entry, named from the method and path (get-api-search, get-api-search-2, …), \
            with JSON bodies inline. Without --into, each entry goes to Stubs/<host>/ in the current folder \
            (Stubs/api.example.com/get-api-search.json; a non-default port is written as _<port>). With --into DIR, \
            every entry goes to DIR.

            Secrets are redacted before anything is written: Authorization, Cookie, Set-Cookie and API-key-like \
            headers, URL user-info, query and fragment parameters such as key, api_key, token, access_token, \
            client_secret, password, signature, and JSON body members such as password and accessToken; a \
            secret found once is masked wherever else it appears, in HTML and multipart bodies too. Add your own \
            with --redact-key and --redact-pointer. Each fixture's metadata lists what was redacted.

            File names come from the method, host and path, reduced to safe names; nothing is written outside \
            the folder. Files are written atomically; if one cannot be written, the files written before it are \
            restored and nothing is left half-written. Exit status 2 for a malformed HAR file, a method that is \
            not an HTTP token, or an unwritable folder.
            """
    )

    @Argument(help: "The HAR file.")
    var file: String

    @Option(name: .customLong("into"), help: "The folder to write the fixtures to (default: Stubs/<host>/).")
    var directory: String?

    @Option(name: .customLong("redact-key"), help: "Also redact JSON body members with this name, anywhere.")
    var bodyKeys: [String] = []

    @Option(
        name: .customLong("redact-pointer"),
        help: "Also redact the JSON body value at this JSON Pointer (* for any item).")
    var bodyPointers: [String] = []

    func run() async throws {
        let fileURL = URL(fileURLWithPath: file)
        let data: Data
        do {
            data = try Data(contentsOf: fileURL)
        } catch {
            let exists = FileManager.default.fileExists(atPath: fileURL.path)
            throw FixtureError(
                file: file, position: .file, expected: "a readable HAR file",
                found: exists ? "a file that cannot be read" : "no such file")
        }
        let policy = RedactionPolicy.default.redactingBodyKeys(bodyKeys).redactingBodyPointers(bodyPointers)
        let archive = try HARArchive(parsing: data, file: file, redactingWith: policy)

        // Names are unique per host; entries of several hosts sharing one --into folder are numbered again.
        var usedPaths: Set<String> = []
        let planned = archive.entries.map { entry in
            let folder =
                directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                    entry.host, isDirectory: true)
            var url = folder.appendingPathComponent(entry.name + ".json")
            var suffix = 2
            while !usedPaths.insert(url.standardizedFileURL.path).inserted {
                url = folder.appendingPathComponent("\(entry.name)-\(suffix).json")
                suffix += 1
            }
            return (entry: entry, url: url, folder: folder)
        }
        let outcomes = try FixtureBatch.write(planned.map { ($0.url, $0.entry.exchange.encoded(), $0.folder) })

        let out = Terminal.standardOutput
        for (item, outcome) in zip(planned, outcomes) {
            let exchange = item.entry.exchange
            var line = "\(outcome.isChanged ? "wrote" : "unchanged") \(displayPath(item.url))"
            line += "  \(exchange.request.method) \(exchange.response.status)"
            if !exchange.metadata.redactions.isEmpty {
                line += out.styled("  redacted: \(exchange.metadata.redactions.joined(separator: ", "))", .dim)
            }
            out.write(line + "\n")
        }
        for note in archive.skipped {
            out.write(out.styled("skipped \(file): \(note)", .yellow) + "\n")
        }
        let written = outcomes.filter(\.isChanged).count
        out.write(
            "\(archive.entries.count) fixture\(archive.entries.count == 1 ? "" : "s") from \(file): \(written) written, \(archive.entries.count - written) unchanged\n"
        )
    }

}

/// Writes several files, each atomically; when one fails, the ones already written are put back as they were.
enum FixtureBatch {
    struct Outcome {
        var isChanged: Bool
    }

    /// Writes each file, checking that it lands inside its folder.
    static func write(_ files: [(url: URL, data: Data, folder: URL)]) throws(FixtureError) -> [Outcome] {
        var outcomes: [Outcome] = []
        var undo: [(url: URL, previous: Data?, folder: URL)] = []
        for file in files {
            let previous = try? Data(contentsOf: file.url)
            if previous == file.data {
                outcomes.append(Outcome(isChanged: false))
                continue
            }
            do {
                try AtomicFile.write(file.data, to: file.url, displayName: displayPath(file.url), inside: file.folder)
            } catch {
                for step in undo.reversed() {
                    if let previous = step.previous {
                        try? AtomicFile.write(previous, to: step.url, inside: step.folder)
                    } else {
                        try? FileManager.default.removeItem(at: step.url)
                    }
                }
                throw error
            }
            undo.append((file.url, previous, file.folder))
            outcomes.append(Outcome(isChanged: true))
        }
        return outcomes
    }
}
