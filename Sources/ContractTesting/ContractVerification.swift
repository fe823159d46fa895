/// What a `verify…` function found: the result every contract check returns, and from which its `expect…` twin
/// is derived (each failure recorded as an issue, each note reported as information).
///
/// ```swift
/// let verification = verifyDecoding(Recipe.self, from: .everyFixture(of: "recipes/get"))
/// if !verification.passed { print(verification.failures.joined(separator: "\n")) }
/// ```
public struct ContractVerification: Sendable, Hashable, CustomStringConvertible {
    /// What did not hold, one message each (a document that does not decode, a snapshot that does not match).
    public var failures: [String]
    /// Information that is not a failure: gaps of key coverage outside strict mode, a snapshot written.
    public var notes: [String]
    /// The key coverage measured, for ``verifyKeyCoverage(_:from:at:decoder:strict:ignoring:filePath:)``; `nil`
    /// for the other checks, and when a document failed to decode or could not be loaded.
    public var coverage: KeyCoverage?

    public init(failures: [String] = [], notes: [String] = [], coverage: KeyCoverage? = nil) {
        self.failures = failures
        self.notes = notes
        self.coverage = coverage
    }

    /// Whether the check held: no failure (notes do not count).
    public var passed: Bool { failures.isEmpty }

    /// The failures, one a line, or `nil` when the check held: what an `expect…` records.
    public var message: String? { failures.isEmpty ? nil : failures.joined(separator: "\n") }

    public var description: String {
        passed ? (["passed"] + notes).joined(separator: "\n") : (failures + notes).joined(separator: "\n")
    }

    /// One failure, or a check that held (`nil`).
    init(failure: String?) {
        self.init(failures: failure.map { [$0] } ?? [])
    }
}

/// Records `verification` at `site`: each failure as an issue, each note as information.
func report(_ verification: ContractVerification, at site: CallSite) {
    for failure in verification.failures { reportFailure(failure, at: site) }
    for note in verification.notes { reportNote(note, at: site) }
}
