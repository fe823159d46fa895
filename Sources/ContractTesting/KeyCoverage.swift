import APIProbeShared
public import Foundation
import HTTPFixtures

/// What a model read from the documents of a source, observed while it decoded them.
///
/// Paths are JSON Pointers with `*` for array items (`/recipes/*/title`), using the JSON's keys.
///
/// ```swift
/// let coverage = expectKeyCoverage(RecipeResponse.self, from: .everyFixture(of: "recipes/get"))
/// coverage?.unreadFields      // []; ["/recipe/ingredients"] for a model that ignored them
/// ```
public struct KeyCoverage: Sendable, Hashable, CustomStringConvertible {
    /// The model's type name.
    public var model: String
    /// How many documents were decoded.
    public var sampleCount: Int
    /// Every path the model read, sorted.
    public var readPaths: [String]
    /// JSON fields present in the documents that the model never read (the highest such path only).
    public var unreadFields: [String]
    /// Paths the model asked for with `decodeIfPresent` that no document ever filled (absent or null in all).
    public var unfilledOptionals: [String]

    /// Whether the model read every field and every optional was filled at least once.
    public var isComplete: Bool { unreadFields.isEmpty && unfilledOptionals.isEmpty }

    public var description: String {
        var parts: [String] = []
        if !unreadFields.isEmpty {
            parts.append("\(model) never reads \(unreadFields.joined(separator: ", "))")
        }
        if !unfilledOptionals.isEmpty {
            parts.append("no fixture fills the optional \(unfilledOptionals.joined(separator: ", ")) of \(model)")
        }
        if parts.isEmpty { return "\(model) reads every field of \(sampleCount) document(s)" }
        return parts.joined(separator: "; ") + " (\(sampleCount) document(s))"
    }
}

/// Accumulates what models read over many documents.
struct CoverageAccumulator {
    var read: Set<String> = []
    var present: Set<String> = []
    var probed: Set<String> = []
    var filled: Set<String> = []

    mutating func add(_ log: ReadLog, document: JSONValue, base: [PathToken]) {
        for path in log.read { read.insert(path.generalizedPointer) }
        for (path, found) in log.optionalProbes {
            probed.insert(path.generalizedPointer)
            if found { filled.insert(path.generalizedPointer) }
        }
        var value = document
        for token in base {
            switch (token, value) {
            case (.key(let key), .object): value = value[key] ?? .null
            case (.index(let index), .array(let items)) where items.indices.contains(index): value = items[index]
            default: return
            }
        }
        collectMembers(of: value, path: base, consumed: log.consumed)
    }

    private mutating func collectMembers(of value: JSONValue, path: [PathToken], consumed: Set<[PathToken]>) {
        if consumed.contains(path) { return }
        switch value {
        case .object(let members):
            for member in members {
                let child = path + [.key(member.key)]
                present.insert(child.generalizedPointer)
                collectMembers(of: member.value, path: child, consumed: consumed)
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                collectMembers(of: item, path: path + [.index(index)], consumed: consumed)
            }
        default:
            break
        }
    }

    func coverage(model: String, sampleCount: Int) -> KeyCoverage {
        let unread = present.subtracting(read)
        let highest = unread.filter { path in
            !unread.contains { other in other != path && path.hasPrefix(other + "/") }
        }
        return KeyCoverage(
            model: model,
            sampleCount: sampleCount,
            readPaths: read.filter { !$0.isEmpty }.sorted(),
            unreadFields: highest.sorted(),
            unfilledOptionals: probed.subtracting(filled).sorted()
        )
    }
}

/// Measures the key coverage of a model over every document of `source`.
///
/// Reports the JSON fields the model never reads and the optional properties no document fills.
/// A document that does not decode is a failure.
///
/// By default the gaps are information: printed as a note and returned, not failures. With
/// `strict: true` each gap is a failure. `ignoring` lists the known gaps as paths or glob patterns: `*` stands
/// for one path token or part of one (`/*/user`, `/**/*_url`), `**` for any number of tokens. The note of a
/// gap ends with a paste-ready `ignoring:` list.
///
/// ```swift
/// expectKeyCoverage(RecipeResponse.self, from: .everyFixture(of: "recipes/get"), strict: true)
/// ```
/// ```
/// Stubs/recipes/get.json: RecipeResponse never reads /recipe/ingredients (1 document(s))
/// ```
///
/// - Returns: the coverage, or `nil` when a document failed to decode or could not be loaded.
@discardableResult
public func expectKeyCoverage<T: Decodable>(
    _ type: T.Type,
    from source: ContractSource,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    strict: Bool = false,
    ignoring ignored: Set<String> = [],
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> KeyCoverage? {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let verification = verifyKeyCoverage(
        type, from: source, at: pointer, decoder: decoder, strict: strict, ignoring: ignored, filePath: filePath)
    report(verification, at: site)
    return verification.coverage
}

/// The pure verifier behind ``expectKeyCoverage(_:from:at:decoder:strict:ignoring:fileID:filePath:line:column:)``.
public func verifyKeyCoverage<T: Decodable>(
    _ type: T.Type,
    from source: ContractSource,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    strict: Bool = false,
    ignoring ignored: Set<String> = [],
    filePath: StaticString = #filePath
) -> ContractVerification {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let samples: [Sample]
    do {
        samples = try source.samples(filePath: filePath)
    } catch {
        return ContractVerification(failures: [error.message], coverage: nil)
    }
    var accumulator = CoverageAccumulator()
    var failures: [String] = []
    var undecodable: [String] = []
    var documents = 0
    for sample in samples {
        for decoded in decodeEach(type, from: sample, at: pointer, decoder: decoder, recording: true) {
            switch decoded.result {
            case .failure(let failure):
                // expectDecoding reports the whole failure; here one line says the coverage is not measured.
                undecodable.append(failure.headline)
            case .success:
                guard let log = decoded.log else {
                    failures.append(
                        "\(sample.file): \(T.self) decodes, but apiprobe could not observe its reading (a custom init(from:) that JSONDecoder accepts and the recording decoder does not); please report it"
                    )
                    continue
                }
                documents += 1
                accumulator.add(log, document: sample.document, base: decoded.base)
            }
        }
    }
    if !undecodable.isEmpty {
        failures.append(
            "key coverage of \(T.self) skipped: does not decode \(undecodable.joined(separator: "; ")) (expectDecoding says why)"
        )
    }
    guard failures.isEmpty else { return ContractVerification(failures: failures, coverage: nil) }
    var coverage = accumulator.coverage(model: String(describing: T.self), sampleCount: documents)
    let patterns = ignored.map { PointerPattern($0) }
    coverage.unreadFields.removeAll { path in patterns.contains { $0.matches(path) } }
    coverage.unfilledOptionals.removeAll { path in patterns.contains { $0.matches(path) } }
    guard !coverage.isComplete else { return ContractVerification(failures: [], coverage: coverage) }
    let files = samples.count == 1 ? samples[0].file : "\(samples[0].file) and \(samples.count - 1) more"
    let message = "\(files): \(coverage.description)"
    if strict { return ContractVerification(failures: [message], coverage: coverage) }
    // The note ends with the list to paste when the gaps are known and accepted.
    let gaps = (coverage.unreadFields + coverage.unfilledOptionals).sorted()
    let pasteable = "ignoring: [" + gaps.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    return ContractVerification(notes: [message + "\nTo accept these gaps, pass " + pasteable], coverage: coverage)
}
