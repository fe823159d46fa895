import Foundation
import ProbeRunner

/// Appends a Markdown report to the GitHub Actions step summary (the file `GITHUB_STEP_SUMMARY` names).
///
/// ```swift
/// try appendToStepSummary(Report.render(result, as: .markdown))
/// ```
///
/// Appends, never overwrites: earlier steps' summaries stay. Does nothing outside GitHub Actions (the
/// variable unset or empty).
///
/// - Parameters:
///   - markdown: the text to add.
///   - environment: where to look for `GITHUB_STEP_SUMMARY` (this process's environment by default).
/// - Returns: whether anything was written.
/// - Throws: ``HistoryFileError`` naming the file when it cannot be appended to.
@discardableResult
package func appendToStepSummary(
    _ markdown: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> Bool {
    guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return false }
    var text = markdown
    if !text.hasSuffix("\n") { text += "\n" }
    try AppendOnlyFile.append(Array(text.utf8), to: URL(fileURLWithPath: path), synchronize: false)
    return true
}

/// This process's section of the GitHub Actions step summary (the file `GITHUB_STEP_SUMMARY` names).
///
/// ```swift
/// var summary = StepSummary()
/// try summary.write(Report.render(result, as: .markdown))  // each round of --every: the last one stays
/// ```
///
/// The first ``write(_:)`` appends after what earlier steps wrote; each later one replaces this process's
/// section, so `apiprobe run --every` leaves one report (the last round's), never one a round: GitHub caps a
/// step summary at 1 MiB. Does nothing outside GitHub Actions (the variable unset or empty).
package struct StepSummary: Sendable {
    /// The summary file, `nil` outside GitHub Actions.
    var path: String?
    /// Where this process's section begins, once written.
    private var start: Int64?

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        path = environment["GITHUB_STEP_SUMMARY"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Writes `markdown` as this process's section, replacing the one written before.
    ///
    /// - Returns: whether anything was written.
    /// - Throws: ``HistoryFileError`` naming the file when it cannot be written.
    @discardableResult
    package mutating func write(_ markdown: String) throws -> Bool {
        guard let path else { return false }
        var text = markdown
        if !text.hasSuffix("\n") { text += "\n" }
        start = try AppendOnlyFile.append(
            Array(text.utf8), to: URL(fileURLWithPath: path), synchronize: false, replacingFrom: start)
        return true
    }
}
