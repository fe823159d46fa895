import Foundation
public import Testing

/// Where the tests run, and what a test does when a real part it needs is not there.
public enum TestEnvironment {
    /// Whether the tests run under CI (`CI` set, and not `0` or `false`, as `.ci/run` and GitHub Actions set it).
    public static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"] ?? ""
        return !value.isEmpty && value != "0" && value.lowercased() != "false"
    }

    /// A tool or permission the test needs is missing: a failure under CI, where `.ci/run` provides it, and a
    /// known issue elsewhere, which says what to install.
    public static func recordMissing(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if isCI {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            withKnownIssue(Comment(rawValue: message)) {
                Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
            }
        }
    }
}
