import ArgumentParser
import Foundation
import HTTPFixtures
import JSONShape

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
        discussion:
            "Exit status 1 on breaking drift or a missing snapshot; a usage manifest beside a snapshot ranks unread paths as info."
    )

    @OptionGroup var folders: SnapshotFolders

    @Option(name: .long, help: "Output format: text or json.")
    var format: ReportFormat = .text

    func run() async throws {
        let workspace = try SnapshotWorkspace(stubs: folders.stubs, snapshots: folders.snapshots)
        let out = Terminal.standardOutput
        var changes: [SchemaChange] = []
        var missing: [String] = []
        var text = ""
        for line in workspace.skipped { text += out.styled("skipped ", .dim) + line + "\n" }
        for endpoint in workspace.endpoints {
            let file = workspace.snapshotPath(for: endpoint.key)
            guard endpoint.sampleCount > 0 else {
                text += out.styled("skipped ", .dim) + "\(endpoint.key): no 2xx JSON samples\n"
                continue
            }
            guard let old = try workspace.existingSnapshot(for: endpoint.key) else {
                missing.append(file)
                text +=
                    out.styled("missing ", .red)
                    + "\(file): no snapshot for \(endpoint.key); run `apiprobe snapshot update`\n"
                continue
            }
            let inferred = try endpoint.snapshot(previous: old).shape
            let diff = SchemaDiff(from: old.shape, to: inferred, usage: try workspace.usage(for: endpoint.key))
            if diff.changes.isEmpty {
                text += out.styled("ok      ", .green) + "\(file) (\(endpoint.sampleCount) samples)\n"
            } else {
                text += "\(file):\n"
                for change in diff.changes {
                    text += "  " + ChangeReport.line(for: change, on: out) + "\n"
                    var located = change
                    located.file = file
                    changes.append(located)
                }
            }
        }
        let orphans = workspace.orphanedSnapshots()
        for orphan in orphans { text += out.styled("orphan  ", .yellow) + "\(orphan): a snapshot without fixtures\n" }

        let report = SchemaDiff(changes: changes)
        switch format {
        case .json:
            let lists = ["missing": missing, "orphaned": orphans, "skipped": workspace.skipped]
            out.write(String(decoding: report.jsonReport(adding: lists), as: UTF8.self))
        case .text:
            var summary = ChangeReport.summary(report)
            if !missing.isEmpty { summary += ", \(missing.count) missing" }
            if !orphans.isEmpty { summary += ", \(orphans.count) without fixtures" }
            text += (report.hasBreakingChanges || !missing.isEmpty ? out.styled(summary, .bold) : summary) + "\n"
            out.write(text)
        }
        if report.hasBreakingChanges || !missing.isEmpty { throw ChecksFailed() }
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

    func run() async throws {
        let workspace = try SnapshotWorkspace(stubs: folders.stubs, snapshots: folders.snapshots)
        let out = Terminal.standardOutput
        var text = ""
        var written = 0
        for line in workspace.skipped { text += out.styled("skipped ", .dim) + line + "\n" }
        for endpoint in workspace.endpoints {
            let file = workspace.snapshotPath(for: endpoint.key)
            guard endpoint.sampleCount > 0 else {
                text += out.styled("skipped ", .dim) + "\(endpoint.key): no 2xx JSON samples\n"
                continue
            }
            let url = workspace.snapshotURL(for: endpoint.key)
            let exists = FileManager.default.fileExists(atPath: url.path)
            let old = try? workspace.existingSnapshot(for: endpoint.key)
            let snapshot = try endpoint.snapshot(previous: old, recordingEnums: enums)
            let shape = snapshot.shape
            let data = snapshot.encoded()
            if let existing = try? Data(contentsOf: url), existing == data {
                text += out.styled("same    ", .dim) + "\(file)\n"
                continue
            }
            let verb: String
            switch (exists, old == nil, dryRun) {
            case (false, _, false): verb = "created "
            case (false, _, true): verb = "would create "
            case (true, true, false): verb = "replaced unreadable "
            case (true, true, true): verb = "would replace unreadable "
            case (true, false, false): verb = "updated "
            case (true, false, true): verb = "would update "
            }
            text += out.styled(verb, .green) + file + "\n"
            if let old {
                let diff = SchemaDiff(from: old.shape, to: shape)
                for change in diff.changes { text += "  " + ChangeReport.line(for: change, on: out) + "\n" }
                if old.sampleCount != snapshot.sampleCount {
                    text += "  samples: \(old.sampleCount) → \(snapshot.sampleCount)\n"
                }
            }
            if !dryRun {
                try AtomicFile.write(data, to: url, displayName: file, inside: workspace.snapshotsDirectory)
                written += 1
            }
        }
        for orphan in workspace.orphanedSnapshots() {
            text += out.styled("orphan  ", .yellow) + "\(orphan): a snapshot without fixtures (not removed)\n"
        }
        text += dryRun ? "Dry run: nothing written.\n" : "\(written) snapshot\(written == 1 ? "" : "s") written.\n"
        out.write(text)
    }
}
