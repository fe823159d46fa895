import ArgumentParser
import Foundation
import HTTPFixtures
import ProbeRunner

/// `apiprobe record [--config FILE] [--only NAME]... [--snapshots]`
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record live responses of the config's endpoints as redacted fixtures.",
        discussion: """
            Calls each endpoint once and writes Stubs/<api>/<name>.json (folders relative to the config file). \
            Secrets are redacted before anything is written: Authorization, Cookie, Set-Cookie and API-key-like \
            headers, query parameters such as key, api_key and token, and the JSON body fields listed under \
            redact in the config; each fixture's metadata lists what was redacted.

            An unchanged response leaves its fixture byte for byte as it was; a changed one is rewritten and \
            summarised (status, headers, schema changes of the body, values changed). With --snapshots, the \
            schema of each endpoint is written to Snapshots/<api>/<endpoint>.schema.json, inferred from all of \
            its fixtures (search.json and variants such as search.empty.json).

            An HTTP error status is recorded and shown as a warning (a fixture of an error is useful for tests); \
            a body that is not JSON is recorded as text, and its snapshot skipped.

            Exit status: 0 every endpoint recorded; 1 an endpoint could not be reached (nothing written for it); \
            2 a bad config, an unknown --only name, or a folder that cannot be written (no file half-written).
            """
    )

    @Option(name: .long, help: "The probe config.")
    var config = "apiprobe.yml"

    @Option(name: .long, help: "Record only this endpoint (repeatable).")
    var only: [String] = []

    @OptionGroup var diagnostics: DiagnosticOptions

    @Flag(name: .long, help: "Also write the schema snapshot of each endpoint.")
    var snapshots = false

    func run() async throws {
        let url = URL(fileURLWithPath: config)
        let loaded: ProbeConfig
        loaded = try ProbeConfig.load(contentsOf: url, file: config)
        var recorder = Recorder(config: loaded, directory: url.deletingLastPathComponent())
        recorder.redactor = loaded.makeRedactor(secrets: Terminal.secrets)
        let result = try await recorder.record(only: only, snapshots: snapshots)
        diagnostics.emit(Self.diagnostics(for: result, on: .standardError))
        Terminal.standardOutput.write(Self.text(for: result, on: .standardOutput))
        if result.hasFailures { throw ChecksFailed() }
    }

    /// The warnings and notes of each endpoint, for standard error, each naming the fixture (counted in the last
    /// line of ``text(for:on:)``).
    static func diagnostics(for result: RecordingResult, on err: Terminal) -> String {
        var text = ""
        for endpoint in result.endpoints {
            for warning in endpoint.warnings {
                text += err.styled("warning: \(endpoint.fixturePath): \(warning)", .yellow) + "\n"
            }
            for note in endpoint.notes { text += err.styled("note: \(endpoint.fixturePath): \(note)", .dim) + "\n" }
        }
        return text
    }

    /// One line an endpoint, indented details below it, and a count line (the warnings counted; said by
    /// ``diagnostics(for:on:)``).
    static func text(for result: RecordingResult, on out: Terminal) -> String {
        var text = ""
        for endpoint in result.endpoints {
            let label = endpoint.outcome.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            switch endpoint.outcome {
            case .failed:
                text += out.styled(label, .red) + (endpoint.message ?? endpoint.name) + "\n"
                continue
            case .new: text += out.styled(label, .green)
            case .changed: text += out.styled(label, .yellow)
            case .unchanged: text += out.styled(label, .dim)
            }
            text += "\(endpoint.fixturePath)  \(endpoint.status.map(String.init) ?? "-")\n"
            for change in endpoint.changes { text += "  \(change)\n" }
            if !endpoint.redactions.isEmpty {
                text += out.styled("  redacted: \(endpoint.redactions.joined(separator: ", "))", .dim) + "\n"
            }
            if let snapshot = endpoint.snapshotPath, let outcome = endpoint.snapshotOutcome {
                text += "  snapshot \(outcome.rawValue): \(snapshot)\n"
            }
        }
        let count = { (outcome: EndpointRecording.Outcome) in result.endpoints.count { $0.outcome == outcome } }
        let total = result.endpoints.count
        text +=
            "\(total) endpoint\(total == 1 ? "" : "s"): \(count(.new)) new, \(count(.changed)) changed, "
            + "\(count(.unchanged)) unchanged, \(count(.failed)) failed"
        if !result.skipped.isEmpty {
            text += "; \(result.skipped.count) skipped (tcp, tls and dns endpoints have no response to record: "
            text += result.skipped.joined(separator: ", ") + ")"
        }
        let warnings = result.endpoints.reduce(0) { $0 + $1.warnings.count }
        if warnings > 0 { text += "; \(warnings) warning\(warnings == 1 ? "" : "s")" }
        return text + "\n"
    }
}
