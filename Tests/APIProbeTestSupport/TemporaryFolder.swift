public import Foundation
public import Testing

/// The tests' temporary folders: one scope for a test's files, so none is left behind and none is shared.
///
/// A suite or a test marked `.temporaryFolder` runs each test (each case of a parameterized one) with a new empty
/// folder of its own, removed with everything in it when the test ends, whether it passed, failed or threw:
///
/// ```swift
/// @Suite(.temporaryFolder) struct HistoryTests {
///     @Test func appendsALine() throws {
///         let folder = try TemporaryFolder.url
///         let stubs = try TemporaryFolder.make("stubs")   // a second folder, inside the first
///     }
/// }
/// ```
///
/// A helper whose folder outlives one test (certificates made once for a suite, a server shared by tests) calls
/// ``makeUnscoped(_:)`` and removes the folder itself.
public enum TemporaryFolder {
    @TaskLocal static var current: URL?

    /// The running test's folder; an error naming the missing trait when the test is not marked `.temporaryFolder`.
    public static var url: URL {
        get throws {
            guard let current else { throw NotInScope() }
            return current
        }
    }

    /// A new empty folder whose name starts with `prefix`, inside the running test's folder (removed with it); an
    /// error when the test is not marked `.temporaryFolder`, rather than a folder nobody removes.
    public static func make(_ prefix: String = "folder") throws -> URL {
        try create(prefix, in: try url)
    }

    /// A new empty folder in the system's temporary folder, whatever test is running: for what outlives one test.
    /// The caller removes it.
    public static func makeUnscoped(_ prefix: String = "apiprobe-test") throws -> URL {
        try create(prefix, in: FileManager.default.temporaryDirectory)
    }

    fileprivate static func create(_ prefix: String, in parent: URL) throws -> URL {
        let url = parent.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    struct NotInScope: Error, CustomStringConvertible {
        var description: String { "TemporaryFolder.url read by a test that is not marked .temporaryFolder" }
    }
}

#if compiler(>=6.1)
/// Gives each test a folder of its own (``TemporaryFolder``): `@Test(.temporaryFolder)`, `@Suite(.temporaryFolder)`.
public struct TemporaryFolderTrait: TestTrait, SuiteTrait, TestScoping {
    /// On a suite, every test in it (and in suites within it) gets a folder of its own.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let name = String(test.name.prefix { $0.isLetter || $0.isNumber }.prefix(40))
        let url = try TemporaryFolder.create("apiprobe-\(name)", in: FileManager.default.temporaryDirectory)
        defer { try? FileManager.default.removeItem(at: url) }
        try await TemporaryFolder.$current.withValue(url) { try await function() }
    }
}

extension Trait where Self == TemporaryFolderTrait {
    /// A new empty folder for each test, removed when it ends: ``TemporaryFolder/url``.
    public static var temporaryFolder: Self { Self() }
}
#endif
