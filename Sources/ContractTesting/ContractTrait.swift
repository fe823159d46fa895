// `TestScoping` came with Swift Testing 6.1: with a 6.0 toolchain (the package's tools version) the trait is left
// out and `withContractTesting(record:live:decoder:_:)` sets the same configuration for a scope.
#if canImport(Testing) && compiler(>=6.1)
public import Foundation
public import Testing

/// A Swift Testing trait that sets the record mode and/or live mode for a test or a whole suite.
///
/// Needs a Swift 6.1 toolchain or later (Swift Testing's `TestScoping`); with 6.0, use
/// `withContractTesting(record:live:decoder:_:)`.
///
/// ```swift
/// @Suite(.contractTesting(record: .never))
/// struct RecipesContractTests { … }
/// ```
public struct ContractTestingTrait: TestTrait, SuiteTrait, TestScoping {
    public var configuration: ContractTestingConfiguration

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let merged = configuration.merged(over: .current)
        try await ContractTestingConfiguration.$current.withValue(merged) {
            try await function()
        }
    }
}

extension Trait where Self == ContractTestingTrait {
    /// Sets the record mode, live mode and/or decoder of the contract assertions in a test or suite.
    ///
    /// ```swift
    /// let snakeCase: JSONDecoder = {
    ///     let decoder = JSONDecoder()
    ///     decoder.keyDecodingStrategy = .convertFromSnakeCase
    ///     return decoder
    /// }()
    ///
    /// @Suite(.contractTesting(decoder: snakeCase))   // every assertion in the suite decodes with it
    /// struct GitHubContractTests { … }
    /// ```
    public static func contractTesting(record: RecordMode? = nil, live: Bool? = nil, decoder: JSONDecoder? = nil)
        -> Self
    {
        ContractTestingTrait(
            configuration: ContractTestingConfiguration(record: record, live: live, decoder: decoder))
    }
}
#endif
