public import Foundation

/// Checks that a model decodes from every document of `source`, recording a readable failure for each
/// one that does not, and goes on.
///
/// A failure names the fixture file, the JSON Pointer of the failing value, what the model expected
/// and what the JSON holds, with the decoder's strategies honoured:
///
/// ```swift
/// expectDecoding(SearchResponse.self, from: .everyFixture(of: "recipes/search"))
/// expectDecoding(RecipeDetail.self, from: .fixture("recipes/get"), at: "/recipe")
/// ```
/// ```
/// Stubs/recipes/search.json: /recipes/3/social_rank: expected Double, found string "99.9"
/// ```
///
/// - Parameters:
///   - type: the model.
///   - source: the fixture(s) or bytes to decode.
///   - pointer: a JSON Pointer to the part of the body the model stands for (`""`: the whole body).
///   - decoder: the decoder the app uses, with its strategies.
///   - fileID: the caller's file ID, where Swift Testing records a failure; leave the default, `#fileID`.
///   - filePath: the caller's file path: where a failure is recorded, and where fixture names are resolved
///     from (the nearest `Stubs/` above it); leave the default, `#filePath`.
///   - line: the caller's line, where a failure is recorded; leave the default, `#line`.
///   - column: the caller's column, where Swift Testing records a failure; leave the default, `#column`.
/// - Returns: the decoded values, one per document that decoded.
@discardableResult
public func expectDecoding<T: Decodable>(
    _ type: T.Type,
    from source: ContractSource,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) -> [T] {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    let samples: [Sample]
    do {
        samples = try source.samples(filePath: filePath)
    } catch {
        reportFailure(error.message, at: site)
        return []
    }
    var values: [T] = []
    for sample in samples {
        for decoded in decodeEach(type, from: sample, at: pointer, decoder: decoder, recording: false) {
            switch decoded.result {
            case .success(let value): values.append(value)
            case .failure(let failure): reportFailure(failure.description, at: site)
            }
        }
    }
    return values
}

/// Decodes a model from a single document of `source`, throwing a readable error when it does not decode.
///
/// ```swift
/// let page = try requireDecoding(SearchResponse.self, from: .fixture("recipes/search"))
/// #expect(page.recipes.count == 30)
/// ```
///
/// - Throws: `InputError` (HTTPFixtures) (file, pointer, expected, found); ``ContractSourceError`` when the
///   fixture cannot be read, is not JSON, or `source` holds more or fewer than one document.
public func requireDecoding<T: Decodable>(
    _ type: T.Type,
    from source: ContractSource,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    filePath: StaticString = #filePath
) throws -> T {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let samples: [Sample]
    do {
        samples = try source.samples(filePath: filePath)
    } catch {
        throw ContractSourceError(message: error.message)
    }
    guard samples.count == 1, let sample = samples.first else {
        throw ContractSourceError(
            message:
                "expected one document to decode \(T.self) from, found \(samples.count) (\(samples.map(\.file).joined(separator: ", "))); use expectDecoding for many"
        )
    }
    let decoded = decodeEach(type, from: sample, at: pointer, decoder: decoder, recording: false)
    guard decoded.count == 1, let only = decoded.first else {
        throw ContractSourceError(
            message:
                "\(sample.file): \(pointer): expected one value to decode \(T.self) from, found \(decoded.count); use expectDecoding for many"
        )
    }
    return try only.result.get()
}

/// Decodes a model from raw JSON bytes, throwing a readable error when it does not decode.
///
/// The core of every decoding assertion: the bytes of a stubbed or live response, a fixture's body.
///
/// ```swift
/// let (body, _) = try await session.data(for: request)
/// let page = try requireDecoding(SearchResponse.self, from: body, named: "GET /api/search")
/// ```
public func requireDecoding<T: Decodable>(
    _ type: T.Type,
    from data: Data,
    named name: String = "response body",
    at pointer: String = "",
    decoder: JSONDecoder? = nil
) throws -> T {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    return try requireDecoding(type, from: .data(data, named: name), at: pointer, decoder: decoder)
}

/// The pure verifier behind ``expectDecoding(_:from:at:decoder:fileID:filePath:line:column:)``: one failure
/// per document that does not decode.
public func verifyDecoding<T: Decodable>(
    _ type: T.Type,
    from source: ContractSource,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    filePath: StaticString = #filePath
) -> ContractVerification {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let samples: [Sample]
    do {
        samples = try source.samples(filePath: filePath)
    } catch {
        return ContractVerification(failure: error.message)
    }
    return ContractVerification(
        failures: samples.flatMap { sample in
            decodeEach(type, from: sample, at: pointer, decoder: decoder, recording: false).compactMap { decoded in
                if case .failure(let failure) = decoded.result { return failure.description }
                return nil
            }
        })
}

/// A source of documents that cannot be used: a fixture that cannot be read or is not JSON.
///
/// ```
/// Stubs/recipes/get.json: expected a readable fixture file, found no such file
/// ```
public struct ContractSourceError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
