#if canImport(Testing)
import Testing
#endif
#if canImport(XCTest)
import XCTest
#endif

/// A contract assertion that did not hold, as Swift Testing records it: `issue.error` is this failure, and its
/// message is the issue's headline.
///
/// ```swift
/// withKnownIssue {
///     expectDecoding(Recipe.self, from: .fixture("recipes/get.drifted"))
/// } matching: { issue in
///     (issue.error as? ContractFailure)?.message.contains("social_rank") == true
/// }
/// ```
public struct ContractFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message, as the `verify…` twin of the assertion returns it.
    public var message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// The place in the caller's source that a failure is reported at.
struct CallSite: Sendable {
    var fileID: StaticString
    var filePath: StaticString
    var line: UInt
    var column: UInt
}

/// Records a failure through whichever test framework runs the current test: Swift Testing when a
/// `Test` is running, XCTest otherwise.
func reportFailure(_ message: String, at site: CallSite) {
    #if canImport(Testing)
    if Test.current != nil {
        // Recorded as an error, so the message is the issue's headline (`Caught error: <message>`) as a
        // failed `#expect` shows its expression; a comment shows under the headline `Issue recorded`.
        Issue.record(ContractFailure(message: message), sourceLocation: sourceLocation(of: site))
        return
    }
    #endif
    #if canImport(XCTest)
    XCTFail(message, file: site.filePath, line: site.line)
    #else
    print("\(site.filePath):\(site.line): error: \(message)")
    #endif
}

/// Reports information that is not a failure (a contract gap outside strict mode): a warning issue under
/// Swift Testing 6.3 or later, which does not fail the test, else a `note:` line on standard output.
func reportNote(_ message: String, at site: CallSite) {
    #if canImport(Testing) && compiler(>=6.3)
    if Test.current != nil {
        Issue.record(Comment(rawValue: message), severity: .warning, sourceLocation: sourceLocation(of: site))
        return
    }
    #endif
    print("\(site.fileID):\(site.line): note: \(message)")
}

#if canImport(Testing)
private func sourceLocation(of site: CallSite) -> SourceLocation {
    SourceLocation(
        fileID: String(describing: site.fileID),
        filePath: String(describing: site.filePath),
        line: Int(site.line),
        column: Int(site.column)
    )
}
#endif
