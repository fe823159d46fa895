public import Foundation

/// When snapshot and usage-manifest assertions write files.
///
/// Resolved from the assertion's `record:` argument, then the innermost ``withContractTesting(record:live:decoder:operation:)``
/// scope (or the `.contractTesting(record:)` trait), then `APIPROBE_RECORD`; the default is ``missing``, or
/// ``never`` when `CI` is set.
///
/// ```swift
/// expectUsageManifest(for: "recipes/search", models: .decoding(SearchResponse.self), record: .failed)
/// ```
/// ```
/// APIPROBE_RECORD=all swift test     # re-record every snapshot
/// ```
public struct RecordMode: Sendable, Hashable, CustomStringConvertible {
    /// Writes a snapshot that does not exist yet and reports it; a mismatch fails.
    public static let missing = RecordMode(storage: .missing)
    /// Like ``missing``, and rewrites a snapshot that does not match (the test still fails).
    public static let failed = RecordMode(storage: .failed)
    /// Rewrites every snapshot; a test fails only when a file's content changed.
    public static let all = RecordMode(storage: .all)
    /// Writes nothing: a missing snapshot is a failure.
    ///
    /// The default when `CI` is set.
    public static let never = RecordMode(storage: .never)

    private enum Storage: String, Sendable, Hashable { case missing, failed, all, never }
    private let storage: Storage

    private init(storage: Storage) { self.storage = storage }

    /// The mode an `APIPROBE_RECORD` value names (`missing`, `failed`, `all`, `never`; any case), or `nil`.
    public init?(environmentValue value: String) {
        guard let storage = Storage(rawValue: value.trimmingCharacters(in: .whitespaces).lowercased()) else {
            return nil
        }
        self.storage = storage
    }

    public var description: String { storage.rawValue }

    var writesMissing: Bool { storage != .never }
    var rewritesMismatches: Bool { storage == .failed || storage == .all }
    var rewritesAll: Bool { storage == .all }

    /// The mode in force: `argument`, else `scope`, else `APIPROBE_RECORD` in `environment`, else
    /// ``never`` when `CI` is set and ``missing`` otherwise.
    ///
    /// - Throws: ``ContractConfigurationError`` when `APIPROBE_RECORD` names no mode.
    public static func resolve(
        argument: RecordMode? = nil,
        scope: RecordMode? = ContractTestingConfiguration.current.record,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ContractConfigurationError) -> RecordMode {
        if let argument { return argument }
        if let scope { return scope }
        if let value = environment["APIPROBE_RECORD"], !value.isEmpty {
            guard let mode = RecordMode(environmentValue: value) else {
                throw ContractConfigurationError(
                    variable: "APIPROBE_RECORD", expected: "one of missing, failed, all, never", found: "\"\(value)\"")
            }
            return mode
        }
        return environment["CI"].map { !$0.isEmpty } == true ? .never : .missing
    }
}

/// An environment variable that apiprobe cannot read.
///
/// ```
/// APIPROBE_RECORD: expected one of missing, failed, all, never, found "sometimes"
/// ```
public struct ContractConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var variable: String
    public var expected: String
    public var found: String

    public init(variable: String, expected: String, found: String) {
        self.variable = variable
        self.expected = expected
        self.found = found
    }

    public var description: String { "\(variable): expected \(expected), found \(found)" }
}

/// Contract-testing settings for a scope.
///
/// A record mode and live mode; `nil` leaves the setting to the enclosing scope and then the environment.
public struct ContractTestingConfiguration: Sendable, Hashable {
    public var record: RecordMode?
    public var live: Bool?
    /// The decoder of every assertion in the scope that is given none, set once for a suite or a whole run
    /// instead of `decoder:` on every call (`nil`: the enclosing scope's, else a plain `JSONDecoder()`).
    public var decoder: JSONDecoder?

    public init(record: RecordMode? = nil, live: Bool? = nil, decoder: JSONDecoder? = nil) {
        self.record = record
        self.live = live
        self.decoder = decoder
    }

    /// The configuration of the current task, set by ``withContractTesting(record:live:decoder:operation:)``
    /// or the ``ContractTestingTrait``.
    @TaskLocal public static var current = ContractTestingConfiguration()

    /// The decoder an assertion uses: the one it was given, else the scope's, else `JSONDecoder()`.
    static func decoder(_ given: JSONDecoder?) -> JSONDecoder {
        given ?? current.decoder ?? JSONDecoder()
    }

    func merged(over outer: ContractTestingConfiguration) -> ContractTestingConfiguration {
        ContractTestingConfiguration(
            record: record ?? outer.record, live: live ?? outer.live, decoder: decoder ?? outer.decoder)
    }

    /// Equal when the modes are equal and the decoders are the same object.
    public static func == (lhs: ContractTestingConfiguration, rhs: ContractTestingConfiguration) -> Bool {
        lhs.record == rhs.record && lhs.live == rhs.live && lhs.decoder === rhs.decoder
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(record)
        hasher.combine(live)
        hasher.combine(decoder.map(ObjectIdentifier.init))
    }
}

/// Runs `operation` with a record mode, live mode and/or decoder for every contract assertion inside it.
///
/// ```swift
/// let decoder = JSONDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// withContractTesting(decoder: decoder) {
///     expectDecoding(Repository.self, from: .everyFixture(of: "github/repo"))  // decoded with `decoder`
/// }
/// withContractTesting(record: .all) {
///     expectUsageManifest(for: "recipes/search", models: .decoding(SearchResponse.self))
/// }
/// ```
public func withContractTesting<R>(
    record: RecordMode? = nil,
    live: Bool? = nil,
    decoder: JSONDecoder? = nil,
    operation: () throws -> R
) rethrows -> R {
    let configuration = ContractTestingConfiguration(record: record, live: live, decoder: decoder)
        .merged(over: .current)
    return try ContractTestingConfiguration.$current.withValue(configuration, operation: operation)
}

/// Runs async `operation` with a record mode and/or live mode for every contract assertion inside it.
public func withContractTesting<R>(
    record: RecordMode? = nil,
    live: Bool? = nil,
    decoder: JSONDecoder? = nil,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
) async rethrows -> R {
    let configuration = ContractTestingConfiguration(record: record, live: live, decoder: decoder)
        .merged(over: .current)
    return try await ContractTestingConfiguration.$current.withValue(
        configuration, operation: operation, isolation: isolation)
}
