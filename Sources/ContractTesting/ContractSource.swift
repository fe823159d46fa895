public import Foundation
public import HTTPFixtures

/// Where the JSON a model is decoded from comes from: a recorded fixture, every fixture of an endpoint,
/// an exchange in memory, or raw response bytes.
///
/// Fixture names are resolved in the nearest `Stubs/` folder above the calling test file (found through
/// `#filePath`) unless a store is given.
///
/// ```swift
/// expectDecoding(RecipeResponse.self, from: .fixture("recipes/get"))
/// expectDecoding(SearchResponse.self, from: .everyFixture(of: "recipes/search"))
/// expectDecoding([Recipe].self, from: .data(body, named: "GET /api/search"), at: "/recipes")
/// ```
public struct ContractSource: Sendable {
    enum Storage: Sendable {
        case fixture(String, FixtureStore?)
        case endpoint(String, FixtureStore?)
        case exchange(Exchange, String)
        case data(Data, String)
    }

    let storage: Storage

    /// One recorded fixture, `Stubs/<name>.json` (any status: an error body can be decoded too).
    public static func fixture(_ name: String, in store: FixtureStore? = nil) -> ContractSource {
        ContractSource(storage: .fixture(name, store))
    }

    /// Every fixture of an endpoint: `recipes/search` and its variants `recipes/search.<variant>`,
    /// keeping the 2xx responses with a JSON body.
    public static func everyFixture(of endpoint: String, in store: FixtureStore? = nil) -> ContractSource {
        ContractSource(storage: .endpoint(endpoint, store))
    }

    /// The response body of an exchange; `name` is used in messages.
    public static func exchange(_ exchange: Exchange, named name: String = "exchange") -> ContractSource {
        ContractSource(storage: .exchange(exchange, name))
    }

    /// Raw response bytes (for instance the body a stubbed or live request returned); `name` is used in messages.
    public static func data(_ data: Data, named name: String = "response body") -> ContractSource {
        ContractSource(storage: .data(data, name))
    }

    /// The name of the snapshot files this source belongs to (`recipes/search`), when it has one.
    var endpointName: String? {
        switch storage {
        case .fixture(let name, _): return FixtureStore.endpointName(ofFixture: name)
        case .endpoint(let name, _): return name
        case .exchange, .data: return nil
        }
    }
}

/// One JSON document to decode, and the name to show for it.
struct Sample {
    var file: String
    var document: JSONValue
    /// The document's bytes as its file holds them, when it was read from one.
    var json: Data? = nil

    /// The document as JSON bytes for inference: the file's own, else written out.
    var bytes: Data { json ?? document.serialized() }
}

/// A sample that could not be loaded: the message to report.
struct SampleLoadFailure: Error {
    var message: String
}

extension ContractSource {
    /// The documents this source stands for.
    func samples(filePath: StaticString) throws(SampleLoadFailure) -> [Sample] {
        func store(_ given: FixtureStore?) throws(SampleLoadFailure) -> FixtureStore {
            if let given { return given }
            do {
                return try FixtureStore(relativeTo: filePath)
            } catch {
                throw SampleLoadFailure(message: error.description)
            }
        }
        func load(_ name: String, from store: FixtureStore) throws(SampleLoadFailure) -> Exchange {
            do {
                return try store.exchange(named: name)
            } catch {
                throw SampleLoadFailure(message: error.description)
            }
        }

        switch storage {
        case .fixture(let name, let given):
            let store = try store(given)
            let exchange = try load(name, from: store)
            return [try Self.sample(of: exchange, file: store.displayPath(for: store.url(for: name)))]

        case .endpoint(let endpoint, let given):
            let store = try store(given)
            let group: FixtureEndpoint
            do {
                group = try store.endpoint(named: endpoint)
            } catch {
                throw SampleLoadFailure(message: error.description)
            }
            let samples = try group.samples.map { sample throws(SampleLoadFailure) in
                do {
                    return Sample(file: sample.file, document: try JSONValue(parsing: sample.json), json: sample.json)
                } catch {
                    // Not reached: the body was checked when the fixture was read.
                    throw SampleLoadFailure(message: "\(sample.file): /response/body: \(error)")
                }
            }
            let names = group.fixtureNames
            guard !samples.isEmpty else {
                let folder = store.displayPath(for: store.directory)
                throw SampleLoadFailure(
                    message:
                        "\(folder): expected a fixture \(endpoint).json or \(endpoint).<variant>.json with a 2xx JSON response, found "
                        + (names.isEmpty ? "none" : "only \(names.joined(separator: ", "))")
                )
            }
            return samples

        case .exchange(let exchange, let name):
            return [try Self.sample(of: exchange, file: name)]

        case .data(let data, let name):
            do {
                return [Sample(file: name, document: try JSONValue(parsing: data))]
            } catch {
                throw SampleLoadFailure(message: error.inFile(name).description)
            }
        }
    }

    private static func sample(of exchange: Exchange, file: String) throws(SampleLoadFailure) -> Sample {
        switch exchange.response.body {
        case .json(let document)?:
            return Sample(file: file, document: document)
        case .text(let text)?:
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw SampleLoadFailure(message: "\(file): /response/body: expected a JSON body, found text \"\(shown)\"")
        case .binary(let data)?:
            throw SampleLoadFailure(
                message: "\(file): /response/body: expected a JSON body, found \(data.count) bytes of binary data")
        case nil:
            throw SampleLoadFailure(
                message:
                    "\(file): /response/body: expected a JSON body, found none (status \(exchange.response.status))")
        }
    }
}
