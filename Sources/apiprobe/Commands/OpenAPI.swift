import APIProbeShared
import ArgumentParser
import Foundation
import HTTPFixtures
import JSONShape
import OpenAPISupport

/// `apiprobe openapi`: OpenAPI descriptions as snapshots, and fixtures checked against them.
struct OpenAPICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi",
        abstract:
            "Import an OpenAPI 3.0/3.1 description as snapshots, check fixtures against it, diff two versions, or "
            + "export one from the fixtures.",
        subcommands: [
            OpenAPIImportCommand.self, OpenAPICheckCommand.self, OpenAPIDiffCommand.self, OpenAPIExportCommand.self,
        ]
    )
}

/// `apiprobe openapi import SPEC`
struct OpenAPIImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a snapshot per operation and success status, and an operations file.",
        discussion: """
            Writes Snapshots/<api>/<operationId>.schema.json for each operation's 2xx JSON response and \
            Snapshots/<api>/operations.json (method, path, parameters, request body, responses, and notes on \
            what the snapshots approximate). A referenced schema is one definition, in \
            Snapshots/<api>/components.json when a snapshot too large to write in full refers to it: a recursive \
            schema is a cycle of references, never cut. Re-importing an unchanged description changes no byte.

            The last line counts the operations, the snapshots and the approximations (what a snapshot cannot \
            say: a constraint such as maxLength, a oneOf joined into one shape); --strict makes an approximation \
            an error (exit status 2, nothing written).
            """
    )

    @Argument(help: "The OpenAPI description (JSON or YAML).")
    var spec: String

    @Option(name: .long, help: "The API's folder name (default: the description's file name without extension).")
    var api: String?

    @Flag(name: .long, help: "Fail (exit status 2, nothing written) when a snapshot approximates the description.")
    var strict = false

    @OptionGroup var diagnostics: DiagnosticOptions

    @Option(name: .long, help: "The folder of schema snapshots.")
    var snapshots = "Snapshots"

    @Option(
        name: .long,
        help: "Also write a probe config (apiprobe.yml) with the GET operations callable without inventing data.")
    var config: String?

    func run() async throws {
        let specURL = URL(fileURLWithPath: spec)
        let (description, result) = try await onLargeStack {
            let description = try OpenAPISpec(contentsOf: specURL)
            return (description, SpecImport(description))
        }
        let name = SafePath.fileName(api ?? specURL.deletingPathExtension().lastPathComponent, fallback: "api")
        let folder = URL(fileURLWithPath: snapshots, isDirectory: true).appendingPathComponent(name, isDirectory: true)
        if strict, let first = result.notes.first {
            var text = ""
            for note in result.notes.prefix(20) { text += "note: \(description.file): \(note)\n" }
            if result.notes.count > 20 { text += "… and \(result.notes.count - 20) more\n" }
            Terminal.standardError.write(text)
            throw InputError(
                file: description.file, position: .jsonPointer(first.pointer),
                expected: "a description every snapshot can say exactly (--strict)",
                found: "\(result.notes.count) approximation\(result.notes.count == 1 ? "" : "s"); nothing written")
        }
        // A config of the user's own is never replaced: refuse before anything is written.
        if let config { try SpecImport.requireConfigIsOurs(at: URL(fileURLWithPath: config)) }
        let changed = try result.write(into: folder)
        let out = Terminal.standardOutput
        var text = ""
        var diagnostics = ""
        for file in result.files {
            let path = displayPath(folder.appendingPathComponent(file.name))
            text +=
                (changed.contains(file.name) ? out.styled("wrote   ", .green) : out.styled("same    ", .dim)) + path
                + "\n"
        }
        var leftOut = 0
        if let config {
            let url = URL(fileURLWithPath: config)
            let (written, skipped) = try result.writeProbeConfig(to: url, api: name, source: description.file)
            leftOut = skipped.count
            text += (written ? out.styled("wrote   ", .green) : out.styled("same    ", .dim)) + displayPath(url) + "\n"
            // What the config leaves out, and the approximations, go to standard error (counted below).
            for line in skipped { diagnostics += "not in the config: \(line)\n" }
        }
        if !result.notes.isEmpty {
            let shown = 20
            for note in result.notes.prefix(shown) { diagnostics += "note: \(description.file): \(note)\n" }
            if result.notes.count > shown {
                diagnostics += "… and \(result.notes.count - shown) more in operations.json\n"
            }
        }
        self.diagnostics.emit(diagnostics)
        let snapshotCount = result.files.count { $0.name.hasSuffix(".schema.json") }
        text +=
            "\(description.operations.count) operations, \(snapshotCount) snapshots, \(result.notes.count) approximation"
            + (result.notes.count == 1 ? "" : "s") + (result.notes.isEmpty ? "" : ": see operations.json")
            + (leftOut > 0 ? ", \(leftOut) not in the config" : "") + "\n"
        out.write(text)
    }
}

/// `apiprobe openapi check SPEC`
struct OpenAPICheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check every fixture against the description; exit 1 on any violation.",
        discussion: """
            Each fixture is matched to an operation by method and path (server base paths stripped, path \
            templates matched). Its path and query parameters and JSON request body must fit, its response status \
            must be declared and its JSON body must fit that status's schema. A fixture that matches no operation \
            is a violation (no-operation) and is listed as unmatched.

            When the stubs folder holds a folder named after the API (--api, by default the description's file \
            name without extension: Stubs/recipes for recipes.yaml), only the fixtures in it are checked: the \
            other folders are other APIs' fixtures.

            Every schema keyword is enforced as JSON Schema says (3.1: 2020-12; 3.0: its schema object), by the \
            validator `schema validate` uses. `format` is an assertion by default; --no-format-assertion reads it \
            as an annotation, as JSON Schema's own default is.
            """
    )

    @Argument(help: "The OpenAPI description (JSON or YAML).")
    var spec: String

    @Option(name: .long, help: "The folder of recorded fixtures (every *.json below it).")
    var stubs = "Stubs"

    @Flag(
        name: .customLong("format-assertion"), inversion: .prefixedNo,
        help: "Whether `format` fails a value that does not fit it (default: yes).")
    var formatAssertion = true

    @Option(
        name: .long,
        help: "The API's folder name in the stubs folder (default: the description's file name without extension).")
    var api: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    func run() async throws {
        let specURL = URL(fileURLWithPath: spec)
        let store = OpenAPISpec.fixtures(
            of: api ?? specURL.deletingPathExtension().lastPathComponent,
            in: URL(fileURLWithPath: stubs, isDirectory: true))
        let formats = formatAssertion
        let report = try await onLargeStack {
            try OpenAPISpec(contentsOf: specURL).check(store, redactor: Terminal.redactor, assertsFormat: formats)
        }
        let out = Terminal.standardOutput
        switch format {
        case .json: out.write(String(decoding: report.jsonReport(), as: UTF8.self))
        case .text: out.write(Self.text(for: report, on: out))
        }
        if !report.passed { throw ChecksFailed() }
    }

    /// The text report: a line per violation (the first `limit` of them, when given) and unmatched fixture, then
    /// the counts.
    static func text(for report: SpecCheckReport, on out: Terminal, limit: Int? = nil) -> String {
        var text = ""
        for violation in report.violations.prefix(limit ?? .max) {
            text += out.styled("violation ", .red) + "\(violation)\n"
        }
        if let limit, report.violations.count > limit {
            text += "… and \(report.violations.count - limit) more (apiprobe openapi check lists them all)\n"
        }
        for file in report.unmatched { text += out.styled("unmatched ", .yellow) + file + "\n" }
        text +=
            "\(report.fixtureCount) fixtures, \(report.operationCount) operations: "
            + "\(report.violations.count) violations, \(report.unmatched.count) unmatched\n"
        return text
    }
}

/// `apiprobe openapi diff OLD NEW`
struct OpenAPIDiffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract:
            "What changed between two versions of a description, judged from the client's side; exit 1 when breaking.",
        discussion: """
            Operations are matched by method and path template (parameter names aside). Breaking: an operation or \
            response status removed; a response field removed, retyped, made optional or nullable; a new required \
            parameter or request body field. Warnings: an enum or format changed; a parameter or request field \
            removed. Additions are info.
            """
    )

    @Argument(help: "The old description.")
    var old: String

    @Argument(help: "The new description.")
    var new: String

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    func run() async throws {
        let (oldURL, newURL) = (URL(fileURLWithPath: old), URL(fileURLWithPath: new))
        let diff = try await onLargeStack {
            SpecDiff(from: try OpenAPISpec(contentsOf: oldURL), to: try OpenAPISpec(contentsOf: newURL))
        }
        let out = Terminal.standardOutput
        switch format {
        case .json:
            out.write(String(decoding: diff.jsonReport(), as: UTF8.self))
        case .text:
            out.write(Self.text(for: diff, on: out))
        }
        if diff.hasBreakingChanges { throw ChecksFailed() }
    }
}

extension OpenAPIDiffCommand {
    /// The console report: each change to a shared schema that reaches several places once, with how many
    /// operations it reaches and one of them; then each operation's own changes (and those reaching one place);
    /// then the counts (of per-operation changes, as the JSON report counts them).
    static func text(for diff: SpecDiff, on out: Terminal) -> String {
        func severity(_ change: SchemaChange) -> String {
            let style: TextStyle = change.severity == .breaking ? .red : change.severity == .warning ? .yellow : .dim
            return out.styled(change.severity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), style)
        }
        var text = ""
        // A change to a shared schema that reaches one place only reads best as that operation's own change.
        let groups = diff.componentChanges
        let shared = groups.filter { $0.reaches.count > 1 }
        func key(_ component: String, _ change: SchemaChange, path: String?) -> [String?] {
            [component, path, change.kind.rawValue, change.severity.rawValue, change.before, change.after]
        }
        let single = Set(
            groups.filter { $0.reaches.count == 1 }.map { key($0.component, $0.change, path: $0.change.path) })
        if !shared.isEmpty {
            text += "Changes to shared schemas (\(shared.count)):\n"
            for group in shared {
                let count = group.operationCount
                let reach = "\(count) operation\(count == 1 ? "" : "s"), e.g. \(group.reaches[0])"
                text += severity(group.change) + "\(group.component): \(group.change.summary) — \(reach)\n"
            }
        }
        let own = diff.changes.filter { change in
            guard let component = change.component else { return true }
            return single.contains(key(component, change.change, path: change.change.pathInDefinition))
        }
        if !own.isEmpty {
            if !shared.isEmpty { text += "Changes to operations (\(own.count)):\n" }
            for change in own {
                let place = change.place.isEmpty ? "" : " \(change.place)"
                // An operation, status or parameter as a whole has no body path: its summary starts at the kind.
                let summary =
                    change.change.path.isEmpty ? String(change.change.summary.dropFirst(2)) : change.change.summary
                text += severity(change.change) + "\(change.operation)\(place): \(summary)\n"
            }
        }
        let count = { (severity: ChangeSeverity) in diff.changes.count { $0.change.severity == severity } }
        text += "\(count(.breaking)) breaking, \(count(.warning)) warnings, \(count(.info)) info"
        if !shared.isEmpty {
            let through = shared.count == 1 ? "1 change" : "\(shared.count) changes"
            text += " (\(diff.changes.count - own.count) of them through \(through) to shared schemas)"
        }
        return text + "\n"
    }
}

/// `apiprobe openapi export`
struct OpenAPIExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write an OpenAPI 3.1 description of the recorded fixtures and their snapshots.",
        discussion: """
            Paths come from the fixtures' URLs: a segment holding an id (digits, a UUID, a token with digits) \
            becomes a {parameter} where several recorded paths differ only there. Each method and path is an \
            operation, named after its fixtures' endpoint; it lists the path and query parameters seen, a JSON \
            request body, and every recorded status with its schema as a shared component (a 2xx schema is the \
            endpoint's snapshot when there is one). The same fixtures give the same bytes; secrets are masked.
            """
    )

    @Option(name: .long, help: "The folder of recorded fixtures (every *.json below it).")
    var stubs = "Stubs"

    @Option(name: .long, help: "The folder of schema snapshots.")
    var snapshots = "Snapshots"

    @Option(name: .long, help: "The document's info.title (default: the stubs folder's name).")
    var title: String?

    @Option(name: .long, help: "The file to write (JSON); standard output when left out.")
    var output: String?

    func run() async throws {
        let stubsURL = URL(fileURLWithPath: stubs, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: stubsURL.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw InputError(
                file: stubs, position: .file, expected: "a folder of fixtures",
                found: isDirectory.boolValue ? "a file" : "no such folder")
        }
        let export = try SpecExport(
            stubs: FixtureStore(directory: stubsURL), snapshots: URL(fileURLWithPath: snapshots, isDirectory: true),
            title: title ?? stubsURL.standardizedFileURL.lastPathComponent, redactor: Terminal.redactor)
        guard let output else {
            Terminal.standardOutput.write(String(decoding: export.data, as: UTF8.self))
            return
        }
        let url = URL(fileURLWithPath: output)
        try AtomicFile.write(export.data, to: url, displayName: displayPath(url))
        Terminal.standardOutput.write(
            "wrote   \(displayPath(url)): \(export.operationCount) operations from \(export.fixtureCount) fixtures\n")
    }
}
