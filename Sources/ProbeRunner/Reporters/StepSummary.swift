public import Foundation

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
public func appendToStepSummary(
    _ markdown: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
) throws -> Bool {
    guard let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty else { return false }
    var text = markdown
    if !text.hasSuffix("\n") { text += "\n" }
    try AppendOnlyFile.append(Array(text.utf8), to: URL(fileURLWithPath: path), synchronize: false)
    return true
}
