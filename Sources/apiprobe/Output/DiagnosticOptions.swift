import ArgumentParser

/// `--quiet` (`-q`) of the commands that note, skip or report progress on standard error (`import`, `record`,
/// `snapshot update` and `check`, `openapi import`): those lines are left out, warnings and errors are not, and the
/// summary line on standard output still counts every one of them, so nothing turns into silence.
struct DiagnosticOptions: ParsableArguments {
    @Flag(
        name: [.short, .long],
        help: """
            Print only warnings and errors on standard error: no notes, skipped items or progress (the summary \
            line still counts them).
            """)
    var quiet = false

    /// Writes `text` (lines for standard error) there: every line, or with `--quiet` only the warnings and errors.
    func emit(_ text: String) {
        guard !text.isEmpty else { return }
        guard quiet else {
            Terminal.standardError.write(text)
            return
        }
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let plain = line.replacing(/\u{1B}\[[0-9;]*m/, with: "")
            return plain.hasPrefix("warning:") || plain.hasPrefix("error:") || plain.hasPrefix("Error:")
        }
        if !kept.isEmpty { Terminal.standardError.write(kept.joined(separator: "\n") + "\n") }
    }
}
