import APIProbeShared
import ArgumentParser
import Foundation
import HTTPFixtures

/// `apiprobe import`: turns captured traffic into fixtures.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn captured traffic into fixtures.",
        subcommands: [ImportHARCommand.self, ImportPostmanCommand.self]
    )
}

/// The options every import shares: how fixtures are named and what more is redacted.
struct ImportOptions: ParsableArguments {
    @Option(
        name: .customLong("name"),
        help: "Name every fixture NAME (NAME, NAME.2, …: samples of one endpoint) instead of after its request.")
    var name: String?

    @Option(
        name: .customLong("template"),
        help: ArgumentHelp(
            "A path template naming the fixtures whose path it matches: /repos/{owner}/{repo}/issues gives issues, issues.2, …; /repos/{owner}/{repo}=repository names them repository.",
            valueName: "template[=name]"))
    var templates: [String] = []

    @Option(name: .customLong("redact-key"), help: "Also redact JSON body members with this name, anywhere.")
    var bodyKeys: [String] = []

    @Option(
        name: .customLong("redact-pointer"),
        help: "Also redact the JSON body value at this JSON Pointer (* for any item).")
    var bodyPointers: [String] = []

    func validate() throws {
        if let name, SafePath.fileName(name, fallback: "") != name || name.contains(".") {
            throw ValidationError("--name \(name): expected a file name without '.', '/' or '..'")
        }
        for template in templates where FixtureNaming.PathTemplate(template) == nil {
            throw ValidationError(
                "--template \(template): expected a path template starting with / (/repos/{owner}/{repo}/issues), optionally =name"
            )
        }
    }

    var naming: FixtureNaming {
        FixtureNaming(name: name, templates: templates.compactMap(FixtureNaming.PathTemplate.init))
    }

    var policy: RedactionPolicy {
        RedactionPolicy.default.redactingBodyKeys(bodyKeys).redactingBodyPointers(bodyPointers)
    }

    /// The bytes of the file to import.
    static func read(_ file: String, kind: String) throws(FixtureError) -> Data {
        let fileURL = URL(fileURLWithPath: file)
        do {
            return try Data(contentsOf: fileURL)
        } catch {
            let exists = FileManager.default.fileExists(atPath: fileURL.path)
            throw FixtureError(
                file: file, position: .file, expected: "a readable \(kind) file",
                found: exists ? "a file that cannot be read" : "no such file")
        }
    }

    /// Writes the fixtures (each inside its folder, all or none) and prints a line for each, the skipped
    /// entries and a summary.
    static func write(
        _ fixtures: [(exchange: Exchange, url: URL, folder: URL)], skipped: [String], from file: String
    ) throws(FixtureError) {
        let outcomes = try FixtureBatch.write(fixtures.map { ($0.url, $0.exchange.encoded(), $0.folder) })
        let out = Terminal.standardOutput
        for (item, outcome) in zip(fixtures, outcomes) {
            let exchange = item.exchange
            var line = "\(outcome.isChanged ? "wrote" : "unchanged") \(displayPath(item.url))"
            line += "  \(exchange.request.method) \(exchange.response.status)"
            if !exchange.metadata.redactions.isEmpty {
                line += out.styled("  redacted: \(exchange.metadata.redactions.joined(separator: ", "))", .dim)
            }
            out.write(line + "\n")
        }
        for note in skipped {
            out.write(out.styled("skipped \(file): \(note)", .yellow) + "\n")
        }
        let written = outcomes.filter(\.isChanged).count
        out.write(
            "\(fixtures.count) fixture\(fixtures.count == 1 ? "" : "s") from \(file): \(written) written, \(fixtures.count - written) unchanged\n"
        )
    }
}

/// `apiprobe import har FILE [--into DIR]`.
struct ImportHARCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "har",
        abstract: "Turn a HAR 1.2 file (browser devtools, Charles, Proxyman) into redacted fixtures.",
        discussion: """
            Writes one fixture per entry, named from the method and path (get-api-search; a second request to \
            the same path is get-api-search.2, a sample of the same endpoint), with JSON bodies inline; --name \
            and --template name them yourself. Without --into, each entry goes to Stubs/<host>/ in the current \
            folder (Stubs/api.example.com/get-api-search.json; a non-default port is written as _<port>). With \
            --into DIR, every entry goes to DIR.

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

    @OptionGroup var options: ImportOptions

    func run() async throws {
        let data = try ImportOptions.read(file, kind: "HAR")
        let archive = try HARArchive(
            parsing: data, file: file, redactingWith: options.policy, naming: options.naming)
        // Names are unique per host; entries of several hosts sharing one --into folder are numbered again.
        var usedPaths: Set<String> = []
        let planned = archive.entries.map { entry in
            let folder =
                directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
                ?? URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                    entry.host, isDirectory: true)
            func file(_ name: String) -> URL { folder.appendingPathComponent(name + ".json") }
            let name = UniqueName.first(entry.name) { usedPaths.contains(file($0).standardizedFileURL.path) }
            usedPaths.insert(file(name).standardizedFileURL.path)
            return (exchange: entry.exchange, url: file(name), folder: folder)
        }
        try ImportOptions.write(planned, skipped: archive.skipped, from: file)
    }
}

/// `apiprobe import postman COLLECTION [--into DIR]`.
struct ImportPostmanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postman",
        abstract: "Turn the saved example responses of a Postman collection (v2.1) into redacted fixtures.",
        discussion: """
            Writes one fixture per saved example, named after its request (List issues → list-issues; the \
            request's second example is list-issues.2, a sample of the same endpoint); --name and --template \
            name them yourself. Without --into, they go to Stubs/<collection name>/. {{variables}} take the \
            collection's values and --var NAME=VALUE (a Postman environment's values), which win; a request's \
            auth (or the collection's) is recorded as the header or query item it sends, and redacted as every \
            credential is. Requests with no saved example are listed as skipped.

            Exit status 2 for a malformed collection (the JSON Pointer of the field is named), a variable with \
            no value, or an unwritable folder.
            """
    )

    @Argument(help: "The collection file (exported as Collection v2.1).")
    var file: String

    @Option(name: .customLong("into"), help: "The folder to write the fixtures to (default: Stubs/<collection>/).")
    var directory: String?

    @Option(
        name: .customLong("var"),
        help: ArgumentHelp("A value for {{NAME}}, over the collection's own.", valueName: "NAME=VALUE"))
    var variables: [String] = []

    @OptionGroup var options: ImportOptions

    func validate() throws {
        for variable in variables where !variable.contains("=") || variable.hasPrefix("=") {
            throw ValidationError("--var \(variable): expected NAME=VALUE")
        }
    }

    func run() async throws {
        let data = try ImportOptions.read(file, kind: "Postman collection")
        var values: [String: String] = [:]
        for variable in variables {
            let parts = variable.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
        }
        let collection = try PostmanCollection(
            parsing: data, file: file, variables: values, redactingWith: options.policy, naming: options.naming)
        let folder =
            directory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                SafePath.fileName(FixtureNaming.slug(collection.name), fallback: "postman"), isDirectory: true)
        let planned = collection.entries.map { entry in
            (exchange: entry.exchange, url: folder.appendingPathComponent(entry.name + ".json"), folder: folder)
        }
        try ImportOptions.write(planned, skipped: collection.skipped, from: file)
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
