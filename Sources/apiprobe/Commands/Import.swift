import APIProbeShared
import ArgumentParser
import FixtureImport
import Foundation
import HTTPFixtures
import OpenAPISupport

/// `apiprobe import`: turns captured traffic into fixtures.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn captured traffic into fixtures.",
        subcommands: [ImportHARCommand.self, ImportPostmanCommand.self]
    )
}

/// The options every import shares: how fixtures are named, which part is imported, what more is redacted.
struct ImportOptions: ParsableArguments {
    @OptionGroup var diagnostics: DiagnosticOptions

    @Option(
        name: .customLong("name"),
        help: "Name every fixture NAME (NAME, NAME.2, …: samples of one endpoint) instead of after its request.")
    var name: String?

    @Option(
        name: .customLong("template"),
        help: ArgumentHelp(
            "A path template, optionally with a method, naming the fixtures whose request it matches (with or without the API's base path): /repos/{owner}/{repo}/issues gives issues, issues.2, …; 'GET /repos/{owner}/{repo}=repository' names them repository.",
            valueName: "[METHOD ]template[=name]"))
    var templates: [String] = []

    @Option(
        name: .customLong("spec"),
        help: ArgumentHelp(
            "An OpenAPI description: each request is named after its operation, as `apiprobe openapi import` names the operation's snapshot, so fixtures and snapshots line up by name; requests it has no operation for are warned of.",
            valueName: "openapi.yaml"))
    var spec: String?

    @Option(
        name: .customLong("only"),
        help: ArgumentHelp(
            "Import only what this selects (repeatable): a collection folder (Stores, Stores/Settings), a path prefix (/v3/stores) or a template (GET /v3/stores/{storeId}), with or without the base path.",
            valueName: "selection"))
    var only: [String] = []

    @Flag(name: .long, help: "Fail (exit status 2, nothing written) when the import warns of anything.")
    var strict = false

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
                "--template \(template): expected a path template starting with / (/repos/{owner}/{repo}/issues), optionally after a method (GET /repos/{owner}/{repo}) and before =name"
            )
        }
        for selection in only where ImportSelection(selection) == nil {
            throw ValidationError(
                "--only \(selection): expected a folder name (Stores), a path prefix (/v3/stores) or a template (GET /v3/stores/{storeId})"
            )
        }
    }

    var selections: [ImportSelection] { only.compactMap(ImportSelection.init) }

    /// The naming of `--name`, `--template` and `--spec` (read here, so a bad description fails before any import).
    func naming() async throws -> FixtureNaming {
        var naming = FixtureNaming(name: name, templates: templates.compactMap(FixtureNaming.PathTemplate.init))
        if let spec {
            let url = URL(fileURLWithPath: spec)
            let description = try await onLargeStack { try OpenAPISpec(contentsOf: url) }
            let byOperation = description.fixtureNaming
            naming.operations = byOperation.operations
            naming.basePaths = byOperation.basePaths
        }
        return naming
    }

    /// The API folder `--spec` implies (`Stubs/<description's name>`, as `openapi import` names its snapshots').
    var specFolder: URL? {
        spec.map { spec in
            URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                SafePath.fileName(
                    URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent, fallback: "api"),
                isDirectory: true)
        }
    }

    var policy: RedactionPolicy {
        RedactionPolicy.default.redactingBodyKeys(bodyKeys).redactingBodyPointers(bodyPointers)
    }

    /// The bytes of the file to import.
    static func read(_ file: String, kind: String) throws(InputError) -> Data {
        try InputError.contents(
            of: URL(fileURLWithPath: file), displayName: file, expected: "a readable \(kind) file")
    }

    /// What one import read, for its summary line.
    struct Summary {
        /// `158 requests`, `42 entries`.
        var read: String
        /// Requests or entries not imported, with the reason.
        var skipped: [String]
        /// What was imported other than exactly as written.
        var warnings: [String]
        /// `dynamic variables $guid, $timestamp given fixed values`, or nothing.
        var notes: [String] = []
    }

    /// Writes the fixtures (each inside its folder, all or none) and prints a line for each, the skipped
    /// entries, the warnings, and one summary line. With `--strict`, a warning fails the import before anything
    /// is written.
    func write(
        _ fixtures: [(exchange: Exchange, url: URL, folder: URL)], summary: Summary, from file: String
    ) throws {
        // Results (each fixture, the summary) on standard output; what was skipped, noted or warned on standard
        // error, so `import … > list.txt` keeps the list and `2> problems.txt` every problem.
        let out = Terminal.standardOutput
        let err = Terminal.standardError
        if strict, !summary.warnings.isEmpty {
            var text = ""
            for warning in summary.warnings { text += err.styled("warning: \(file): \(warning)", .yellow) + "\n" }
            err.write(text)
            throw InputError(
                file: file, position: .file, expected: "an import without warnings (--strict)",
                found: "\(summary.warnings.count) warning\(summary.warnings.count == 1 ? "" : "s"); nothing written")
        }
        let outcomes = try FixtureBatch.write(fixtures.map { ($0.url, $0.exchange.encoded(), $0.folder) })
        var text = ""
        for (item, outcome) in zip(fixtures, outcomes) {
            let exchange = item.exchange
            var line = "\(outcome.isChanged ? "wrote" : "unchanged") \(displayPath(item.url))"
            line += "  \(exchange.request.method) \(exchange.response.status)"
            if !exchange.metadata.redactions.isEmpty {
                line += out.styled("  redacted: \(exchange.metadata.redactions.joined(separator: ", "))", .dim)
            }
            text += line + "\n"
        }
        var diagnostics = ""
        for note in summary.skipped { diagnostics += err.styled("skipped \(file): \(note)", .dim) + "\n" }
        for note in summary.notes { diagnostics += "note: \(file): \(note)\n" }
        for warning in summary.warnings {
            diagnostics += err.styled("warning: \(file): \(warning)", .yellow) + "\n"
        }
        self.diagnostics.emit(diagnostics)
        let written = outcomes.filter(\.isChanged).count
        var line =
            "\(file): \(summary.read), \(fixtures.count) fixture\(fixtures.count == 1 ? "" : "s") (\(written) written, \(fixtures.count - written) unchanged)"
        line +=
            ", \(summary.skipped.count) skipped, \(summary.warnings.count) warning\(summary.warnings.count == 1 ? "" : "s")"
        text += (summary.warnings.isEmpty ? line : out.styled(line, .yellow)) + "\n"
        out.write(text)
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
            and --template name them yourself, and --spec names each after its operation (as openapi import \
            names its snapshot). Without --into, each entry goes to Stubs/<host>/ in the current folder \
            (Stubs/api.example.com/get-api-search.json; a non-default port is written as _<port>), or to \
            Stubs/<description's name>/ with --spec. With --into DIR, every entry goes to DIR. --only imports \
            the entries under a path prefix (/v3/stores) or of a template (GET /v3/stores/{storeId}).

            Secrets are redacted before anything is written: Authorization, Cookie, Set-Cookie and API-key-like \
            headers, URL user-info, query and fragment parameters such as key, api_key, token, access_token, \
            client_secret, password, signature, and JSON body members such as password and accessToken; a \
            secret found once is masked wherever else it appears, in HTML and multipart bodies too. Add your own \
            with --redact-key and --redact-pointer. Each fixture's metadata lists what was redacted.

            File names come from the method, host and path, reduced to safe names; nothing is written outside \
            the folder. Files are written atomically; if one cannot be written, the files written before it are \
            restored and nothing is left half-written. The last line counts the entries, the fixtures and the \
            skipped entries. Exit status 2 for a malformed HAR file, a method that is not an HTTP token, an \
            --only that selects nothing, or an unwritable folder.
            """
    )

    @Argument(help: "The HAR file.")
    var file: String

    @Option(name: .customLong("into"), help: "The folder to write the fixtures to (default: Stubs/<host>/).")
    var directory: String?

    @OptionGroup var options: ImportOptions

    func run() async throws {
        let data = try ImportOptions.read(file, kind: "HAR")
        for selection in options.selections where selection.isFolder {
            throw ValidationError(
                "--only \(selection): a HAR file has no folders; expected a path prefix (/v3/stores) or a template")
        }
        let archive = try HARArchive(
            parsing: data, file: file, redactingWith: options.policy, naming: try await options.naming(),
            only: options.selections)
        // Names are unique per host; entries of several hosts sharing one --into folder are numbered again.
        var usedPaths: Set<String> = []
        let planned = archive.entries.map { entry in
            let folder =
                directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? options.specFolder
                ?? URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                    entry.host, isDirectory: true)
            func file(_ name: String) -> URL { folder.appendingPathComponent(name + ".json") }
            let name = UniqueName.first(entry.name) { usedPaths.contains(file($0).standardizedFileURL.path) }
            usedPaths.insert(file(name).standardizedFileURL.path)
            return (exchange: entry.exchange, url: file(name), folder: folder)
        }
        try options.write(
            planned,
            summary: .init(
                read: "\(archive.entries.count + archive.skipped.count) entries", skipped: archive.skipped,
                warnings: []),
            from: file)
    }
}

/// `apiprobe import postman COLLECTION [--into DIR]`.
struct ImportPostmanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postman",
        abstract: "Turn the saved example responses of a Postman collection (v2.1) into redacted fixtures.",
        discussion: """
            Writes one fixture per saved example. Examples are grouped by endpoint (method and path template), \
            not by title: an endpoint is named after its first request's title (List issues → list-issues; its \
            further examples are list-issues.2, …, samples of the same endpoint), or after its method and path \
            when another endpoint has that title. --spec names each after its operation, as openapi import names \
            its snapshot, and writes to Stubs/<description's name>/ so the two line up; --name and --template name \
            them yourself. Without --into or --spec, they go to Stubs/<collection name>/. --only imports a folder, \
            a path prefix or a template.

            The URL is the one Postman sends: the structured URL with its enabled query items. {{variables}} take \
            the collection's values, then an --environment file's, then --var NAME=VALUE, which win; --var \
            :NAME=VALUE sets the path variable :NAME. A variable that is empty or has no value never makes an empty \
            path segment: the segment keeps the placeholder {NAME} (a path template for the stubs) and is warned \
            of once. Postman's dynamic variables ({{$guid}}, {{$timestamp}}, …) take fixed values, so a re-import \
            changes no byte. A body that says it is JSON but is not is kept as text, with a warning naming the \
            line and column. A request's auth (or its folder's or the collection's; noauth stops inheritance), in \
            v2.0's object form or v2.1's list, is recorded as the header or query item it sends (bearer, basic, \
            API key, OAuth 2's saved token) and redacted as every credential is; a scheme that signs each request \
            (digest, AWS Signature 4, Hawk, OAuth 1, …) is warned. Requests with no saved example are listed as \
            skipped. A collection of format v1 is refused, naming the way out (export it as v2.1).

            The last line counts the requests, the fixtures, the skipped requests and the warnings; --strict makes \
            any warning an error. Exit status 2 for a malformed collection (the JSON Pointer of the field is \
            named), a base URL whose variable has no value, an --only that selects nothing, warnings under \
            --strict, or an unwritable folder.
            """
    )

    @Argument(help: "The collection file (exported as Collection v2.1).")
    var file: String

    @Option(name: .customLong("into"), help: "The folder to write the fixtures to (default: Stubs/<collection>/).")
    var directory: String?

    @Option(
        name: .customLong("environment"),
        help: ArgumentHelp(
            "A Postman environment file (exported from Postman): its enabled values for {{NAME}}, over the collection's own.",
            valueName: "environment.json"))
    var environment: String?

    @Option(
        name: .customLong("var"),
        help: ArgumentHelp(
            "A value for {{NAME}}, over the collection's own; :NAME=VALUE sets the path variable :NAME.",
            valueName: "NAME=VALUE"))
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
        if let environment {
            values = try PostmanCollection.environmentValues(
                parsing: ImportOptions.read(environment, kind: "Postman environment"), file: environment)
        }
        for variable in variables {
            let parts = variable.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            values[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
        }
        let collection = try PostmanCollection(
            parsing: data, file: file, variables: values, redactingWith: options.policy,
            naming: try await options.naming(), only: options.selections)
        let folder =
            directory.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? options.specFolder
            ?? URL(fileURLWithPath: "Stubs", isDirectory: true).appendingPathComponent(
                SafePath.fileName(FixtureNaming.slug(collection.name), fallback: "postman"), isDirectory: true)
        let planned = collection.entries.map { entry in
            (exchange: entry.exchange, url: folder.appendingPathComponent(entry.name + ".json"), folder: folder)
        }
        var summary = ImportOptions.Summary(
            // With --only, the selection is counted against the whole: `5 of 98 requests selected`.
            read: collection.selectedCount == collection.requestCount
                ? "\(collection.requestCount) request\(collection.requestCount == 1 ? "" : "s")"
                : "\(collection.selectedCount) of \(collection.requestCount) requests selected",
            skipped: collection.skipped, warnings: collection.warnings)
        if !collection.dynamicVariables.isEmpty {
            summary.notes.append(
                "dynamic variables given fixed values (PostmanCollection.dynamicVariableValues): \(collection.dynamicVariables.map { "{{\($0)}}" }.joined(separator: ", "))"
            )
        }
        try options.write(planned, summary: summary, from: file)
    }
}

/// Writes several files, each atomically; when one fails, the ones already written are put back as they were.
enum FixtureBatch {
    struct Outcome {
        var isChanged: Bool
    }

    /// Writes each file, checking that it lands inside its folder.
    static func write(_ files: [(url: URL, data: Data, folder: URL)]) throws(InputError) -> [Outcome] {
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
