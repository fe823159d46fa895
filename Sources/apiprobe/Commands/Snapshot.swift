import ArgumentParser
import FixtureImport
import Foundation
import HTTPFixtures
import JSONSchemaValidation
import JSONShape
import OpenAPISupport
import ProbeRunner

/// `apiprobe snapshot`: keep `Snapshots/` in step with the fixtures in `Stubs/`.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Check or update the schema snapshots of the recorded fixtures.",
        discussion: """
            Fixtures Stubs/<api>/<endpoint>.json and their variants Stubs/<api>/<endpoint>.<variant>.json are \
            samples of Snapshots/<api>/<endpoint>.schema.json. Only 2xx responses with a JSON body are samples.
            """,
        subcommands: [SnapshotCheckCommand.self, SnapshotUpdateCommand.self]
    )
}

/// Options shared by `check` and `update`.
struct SnapshotFolders: ParsableArguments {
    @Option(name: .long, help: "The folder of recorded fixtures.")
    var stubs = "Stubs"

    @Option(name: .long, help: "The folder of schema snapshots.")
    var snapshots = "Snapshots"
}

/// `apiprobe snapshot check`
struct SnapshotCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Compare the schema of every endpoint's fixtures with its snapshot.",
        discussion: """
            Two judgements: drift (the schema inferred from the fixtures against the snapshot; a usage manifest \
            beside a snapshot ranks unread paths as info), and every fixture validated against its snapshot as \
            written, so that each keyword a person added (pattern, minLength, maximum, multipleOf, uniqueItems, \
            minItems, additionalProperties: false, …) is enforced as JSON Schema says. Exit status 1 on breaking \
            drift, a violation or a missing snapshot. Keywords a snapshot's dialect does not define are ignored, as \
            the standard says, and counted in the summary line; --strict makes them an error (exit 2).
            """
    )

    @OptionGroup var folders: SnapshotFolders

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Check only what this selects (repeatable): an endpoint name (adyen, adyen/getStore), a path prefix (/v3/stores) or a template (GET /v3/stores/{storeId}); snapshots outside it are not reported as orphans.",
            valueName: "selection"))
    var only: [String] = []

    @Flag(name: .long, help: "Fail (exit 2) when a snapshot holds keywords its dialect does not define.")
    var strict = false

    @OptionGroup var diagnostics: DiagnosticOptions

    func validate() throws {
        for selection in only where ImportSelection(selection) == nil {
            throw ValidationError(
                "--only \(selection): expected an endpoint name (adyen/getStore), a path prefix (/v3/stores) or a template (GET /v3/stores/{storeId})"
            )
        }
    }

    func run() async throws {
        var workspace = try SnapshotWorkspace(stubs: folders.stubs, snapshots: folders.snapshots)
        try workspace.select(only.compactMap(ImportSelection.init))
        let checked = workspace
        let result = try await onLargeStack { try checked.check() }
        if strict, let (file, first) = result.ignoredKeywords.first {
            throw InputError(
                file: file, position: .jsonPointer(first.pointer),
                expected: "only keywords of JSON Schema 2020-12 (--strict)",
                found: "\(first.keyword): \(first.reason)"
                    + (result.ignoredKeywords.count > 1 ? ", and \(result.ignoredKeywords.count - 1) more" : ""))
        }
        let out = Terminal.standardOutput
        switch format {
        case .json:
            let lists = ["missing": result.missing, "orphaned": result.orphans, "skipped": result.skipped]
            out.write(
                String(
                    decoding: result.report.jsonReport(adding: lists, extra: Self.jsonMembers(of: result)),
                    as: UTF8.self))
        case .text:
            diagnostics.emit(Self.diagnostics(for: result, on: Terminal.standardError))
            out.write(Self.text(for: result, on: out))
        }
        if result.failed { throw ChecksFailed() }
    }

    /// What a check could not do, for standard error: the fixtures and endpoints it skipped, and the keywords of
    /// snapshots it ignored (each counted in the summary line of ``text(for:on:)``).
    static func diagnostics(for result: SnapshotCheckResult, on err: Terminal) -> String {
        var text = ""
        for line in result.skipped { text += err.styled("skipped ", .dim) + line + "\n" }
        for (key, _, outcome) in result.endpoints {
            if case .noSamples = outcome { text += err.styled("skipped ", .dim) + "\(key): no 2xx JSON samples\n" }
        }
        for (file, keyword) in result.ignoredKeywords {
            text += err.styled("ignored ", .yellow) + "\(file)#\(keyword.pointer): \(keyword.reason)\n"
        }
        return text
    }

    /// The endpoints a check skipped: fixtures it could not read and endpoints without a 2xx JSON sample.
    static func skippedCount(_ result: SnapshotCheckResult) -> Int {
        result.skipped.count
            + result.endpoints.count { if case .noSamples = $0.2 { return true } else { return false } }
    }

    /// The text report of a check, for standard output: a line per endpoint compared, its changes, orphans, and a
    /// summary that counts what was skipped (``diagnostics(for:on:)`` says what, on standard error).
    static func text(for result: SnapshotCheckResult, on out: Terminal) -> String {
        var text = ""
        for (key, file, outcome) in result.endpoints {
            switch outcome {
            case .noSamples:
                break
            case .missing:
                text +=
                    out.styled("missing ", .red) + "\(file): no snapshot for \(key); run `apiprobe snapshot update`\n"
            case .matched(let samples):
                text += out.styled("ok      ", .green) + "\(file) (\(samples) samples)\n"
            case .drifted(let changes):
                text += "\(file):\n"
                for change in changes { text += "  " + ChangeReport.line(for: change, on: out) + "\n" }
            }
            for violation in result.violations where violation.snapshot == file {
                let error = violation.error
                let place = error.instanceLocation.isEmpty ? "/" : error.instanceLocation
                text +=
                    "  " + out.styled("violation ", .red) + "\(violation.fixture): \(place): \(error.keyword): "
                    + "\(error.message) (\(Self.schemaPlace(of: error)))\n"
            }
        }
        for orphan in result.orphans {
            text += out.styled("orphan  ", .yellow) + "\(orphan): a snapshot without fixtures\n"
        }
        var summary = ChangeReport.summary(result.report)
        let skipped = Self.skippedCount(result)
        if skipped > 0 { summary += ", \(skipped) skipped" }
        if !result.missing.isEmpty { summary += ", \(result.missing.count) missing" }
        if !result.orphans.isEmpty { summary += ", \(result.orphans.count) without fixtures" }
        let violations = result.violations.count
        if violations > 0 {
            summary += ", \(violations) violation\(violations == 1 ? "" : "s") of the snapshots as written"
        }
        if !result.ignoredKeywords.isEmpty {
            let count = result.ignoredKeywords.count
            summary += ", \(count) keyword\(count == 1 ? "" : "s") ignored"
        }
        return text + (result.failed ? out.styled(summary, .bold) : summary) + "\n"
    }
}

extension SnapshotCheckCommand {
    /// The keyword's place in the snapshot: the fragment of its absolute location (`#/properties/title/maxLength`).
    static func schemaPlace(of error: JSONSchemaValidation.ValidationError) -> String {
        guard let hash = error.absoluteKeywordLocation.firstIndex(of: "#") else { return error.absoluteKeywordLocation }
        return String(error.absoluteKeywordLocation[hash...])
    }

    /// `violations` (the standard's basic output entries, with the fixture and snapshot) and `ignoredKeywords`.
    static func jsonMembers(of result: SnapshotCheckResult) -> [(key: String, value: JSONValue)] {
        let violations: [JSONValue] = result.violations.map { violation in
            .object([
                ("fixture", .string(violation.fixture)), ("snapshot", .string(violation.snapshot)),
                ("instanceLocation", .string(violation.error.instanceLocation)),
                ("keywordLocation", .string(violation.error.keywordLocation)),
                ("absoluteKeywordLocation", .string(Self.schemaPlace(of: violation.error))),
                ("error", .string(violation.error.message)),
            ])
        }
        let ignored: [JSONValue] = result.ignoredKeywords.map { file, keyword in
            .object([
                ("snapshot", .string(file)), ("pointer", .string(keyword.pointer)), ("reason", .string(keyword.reason)),
            ])
        }
        return [("violations", .array(violations)), ("ignoredKeywords", .array(ignored))]
    }
}

/// `apiprobe snapshot update`
struct SnapshotUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Write the snapshots inferred from the fixtures, printing what changed.",
        discussion:
            "Writes are atomic; an unchanged snapshot keeps its bytes. Snapshots without fixtures are reported, not removed."
    )

    @OptionGroup var folders: SnapshotFolders

    @Flag(name: .long, help: "Print what would change; write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Record the string values of fields with few distinct values as enums.")
    var enums = false

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() async throws {
        let workspace = try SnapshotWorkspace(stubs: folders.stubs, snapshots: folders.snapshots)
        let result = try workspace.update(dryRun: dryRun, recordingEnums: enums)
        let out = Terminal.standardOutput
        let err = Terminal.standardError
        // What was skipped goes to standard error and is counted in the last line; the snapshots to standard
        // output.
        var diagnostics = ""
        var skipped = result.skipped.count
        for line in result.skipped { diagnostics += err.styled("skipped ", .dim) + line + "\n" }
        var text = ""
        for entry in result.entries {
            let verb: String
            switch (entry.action, dryRun) {
            case (.noSamples, _):
                diagnostics += err.styled("skipped ", .dim) + "\(entry.key): no 2xx JSON samples\n"
                skipped += 1
                continue
            case (.same, _):
                text += out.styled("same    ", .dim) + "\(entry.file)\n"
                continue
            case (.created, false): verb = "created "
            case (.created, true): verb = "would create "
            case (.replacedUnreadable, false): verb = "replaced unreadable "
            case (.replacedUnreadable, true): verb = "would replace unreadable "
            case (.updated, false): verb = "updated "
            case (.updated, true): verb = "would update "
            }
            text += out.styled(verb, .green) + entry.file + "\n"
            for change in entry.changes { text += "  " + ChangeReport.line(for: change, on: out) + "\n" }
            if let samples = entry.samples { text += "  samples: \(samples.before) → \(samples.after)\n" }
        }
        for orphan in result.orphans {
            text += out.styled("orphan  ", .yellow) + "\(orphan): a snapshot without fixtures (not removed)\n"
        }
        let written = result.written
        text += dryRun ? "Dry run: nothing written" : "\(written) snapshot\(written == 1 ? "" : "s") written"
        text += skipped > 0 ? ", \(skipped) skipped.\n" : ".\n"
        self.diagnostics.emit(diagnostics)
        out.write(text)
    }
}
