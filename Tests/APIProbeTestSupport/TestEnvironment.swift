public import Foundation
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

extension TestEnvironment {
    /// A folder of outside material the tests read (`shared/real-collections`, `shared/json-schema-test-suite`):
    /// the one an environment variable names, else `shared/<name>` beside the checkout; `nil` when neither holds
    /// `probe` (a file the folder must have).
    public static func sharedFolder(_ name: String, variable: String, probe: String) -> URL? {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment[variable],
            checkout.deletingLastPathComponent().appendingPathComponent("shared").appendingPathComponent(name).path,
        ]
        return candidates.compactMap { $0 }.map(URL.init(fileURLWithPath:)).first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent(probe).path)
        }
    }
}

extension Tag {
    /// The suite starts a program from outside the Swift toolchain (Prometheus, the Pushgateway, promtool, Chromium,
    /// curl, dig, dnsmasq, openssl, buildah, the tests' Python): `.ci/run` installs them; elsewhere a missing one
    /// is a known issue (``TestEnvironment/recordMissing(_:sourceLocation:)``).
    @Tag public static var outsideTools: Self
    /// The suite reads real vendors' files from outside the repository (`APIPROBE_REAL_COLLECTIONS`).
    @Tag public static var realMaterial: Self
    /// The suite runs the built `apiprobe` binary in another process.
    @Tag public static var commandLine: Self
}
