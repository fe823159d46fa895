import Foundation
import HTTPFixtures

/// The documents a `$ref` or `$schema` may name by URI, looked up without any network: the bundled metaschemas,
/// documents added by the caller (an OpenAPI description's components, a test suite's remotes), and optionally
/// a loader (the files beside a snapshot).
package struct SchemaRegistry: Sendable {
    private var documents: [String: JSONValue]
    private let loader: (@Sendable (String) -> JSONValue?)?

    /// A registry holding the bundled metaschemas of draft-04, -06, -07, 2019-09 and 2020-12.
    ///
    /// - Parameter loader: called with an absolute URI (without fragment) that no added document has; returns the
    ///   document, or `nil` when there is none. Never called for the bundled metaschemas.
    init(loader: (@Sendable (String) -> JSONValue?)? = nil) {
        self.documents = BundledMetaschemas.byURI
        self.loader = loader
    }

    /// Adds a document under `uri` (an absolute URI; a fragment is ignored).
    mutating func add(_ document: JSONValue, uri: String) {
        documents[Self.key(uri)] = document
    }

    /// The document at `uri` (without fragment), if there is one.
    func document(at uri: String) -> JSONValue? {
        let key = Self.key(uri)
        if let document = documents[key] { return document }
        return loader?(key)
    }

    /// The registry's key for a URI: no fragment, no empty fragment.
    static func key(_ uri: String) -> String {
        guard let hash = uri.firstIndex(of: "#") else { return uri }
        return String(uri[..<hash])
    }
}

/// The metaschemas, parsed once per process.
enum BundledMetaschemas {
    static let byURI: [String: JSONValue] = {
        var result: [String: JSONValue] = [:]
        for text in documents {
            // The documents are the published metaschemas; a parse failure here is a broken build, not input.
            guard let document = try? JSONValue(parsing: Data(text.utf8)) else { continue }
            guard let id = document["$id"]?.stringValue ?? document["id"]?.stringValue else { continue }
            result[SchemaRegistry.key(id)] = document
        }
        return result
    }()
}

extension JSONValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
