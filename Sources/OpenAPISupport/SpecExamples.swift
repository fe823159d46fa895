import APIProbeShared
import Foundation
package import HTTPFixtures

/// What a description says an operation answers, from its own examples: the answer of `apiprobe serve --spec` to
/// a request no fixture matches (Prism's behaviour), or why it has none.
package enum SpecExampleAnswer: Sendable, Hashable {
    /// The first success status with a JSON example: the media type's `example`, else the first of its `examples`
    /// (its `value`, through a `$ref` into `components/examples`), else the schema's own `example`.
    case example(status: Int, body: JSONValue, operation: String, pointer: String)
    /// The operation has no success response with a JSON example (with a preference: none of that status, or no
    /// example of that name; `reason` says which).
    case noExample(operation: String, reason: String? = nil)
    /// No operation takes the request's method and path.
    case noOperation
}

/// Which example a client asks for, Prism's convention: `Prefer: code=404, example=notFound`.
package struct ExamplePreference: Sendable, Hashable {
    /// The response status (`404`), instead of the first success.
    var code: Int?
    /// The name of an example among a media type's `examples`.
    var example: String?

    init(code: Int? = nil, example: String? = nil) {
        self.code = code
        self.example = example
    }

    /// The preference of a `Prefer` header's value (RFC 7240: comma-separated `token=value` pairs, a value
    /// possibly quoted); `nil` when it names neither `code` nor `example`.
    /// - Throws: a message when `code` is not a status from 100 to 599.
    package init?(header: String) throws(InputError) {
        var preference = ExamplePreference()
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            let value =
                pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"")
                ? String(pair[1].dropFirst().dropLast()) : pair[1]
            switch pair[0].lowercased() {
            case "code":
                guard let code = Int(value), (100...599).contains(code) else {
                    throw InputError(
                        file: "the Prefer header", position: .jsonPointer("/code"),
                        expected: "a status from 100 to 599", found: "\"\(value)\"")
                }
                preference.code = code
            case "example": preference.example = value
            default: continue
            }
        }
        guard preference.code != nil || preference.example != nil else { return nil }
        self = preference
    }
}

extension OpenAPISpec {
    /// The example answer to `method` on `url`, or why there is none: the first success status's, or the one
    /// `preference` asks for.
    package func exampleAnswer(
        method: String, url: String, preference: ExamplePreference? = nil
    ) -> SpecExampleAnswer {
        guard let (operation, _) = self.operation(method: method.uppercased(), url: url) else { return .noOperation }
        let converter = ShapeConverter(root: root, file: file)
        var candidates = operation.responses.filter(\.isSuccess).sorted {
            (Int($0.status) ?? 299) < (Int($1.status) ?? 299)
        }
        if let code = preference?.code {
            // The exact status, else its class (`4XX`), else `default`.
            let exact = operation.responses.filter { $0.status == String(code) }
            let range = operation.responses.filter { $0.status.uppercased() == "\(code / 100)XX" }
            let fallback = operation.responses.filter { $0.status == "default" }
            candidates = !exact.isEmpty ? exact : !range.isEmpty ? range : fallback
            if candidates.isEmpty {
                return .noExample(
                    operation: operation.name,
                    reason: "Prefer: code=\(code), and \(operation.name) declares no \(code) response")
            }
        }
        for response in candidates {
            let pointer = operation.pointer + "/responses/" + JSONPointer.escape(response.status)
            guard let raw = root.value(at: pointer),
                let (resolved, here) = try? converter.resolvingReference(raw, at: pointer),
                let media = OperationReader.jsonMedia(resolved["content"])
            else { continue }
            let mediaPointer = here + "/content/" + JSONPointer.escape(media.key)
            let status = preference?.code ?? Int(response.status) ?? 200
            if let wanted = preference?.example {
                guard let examples = media.value["examples"]?.members,
                    let chosen = examples.first(where: { $0.key == wanted }),
                    let (named, namedPointer) = try? converter.resolvingReference(
                        chosen.value, at: mediaPointer + "/examples/" + JSONPointer.escape(wanted)),
                    let value = named["value"]
                else {
                    let names = media.value["examples"]?.members?.map(\.key) ?? []
                    return .noExample(
                        operation: operation.name,
                        reason: "Prefer: example=\(wanted), and the \(response.status) response of \(operation.name) "
                            + (names.isEmpty ? "has no named examples" : "has " + names.joined(separator: ", ")))
                }
                return .example(
                    status: status, body: value, operation: operation.name, pointer: namedPointer + "/value")
            }
            if let example = media.value["example"] {
                return .example(
                    status: status, body: example, operation: operation.name, pointer: mediaPointer + "/example")
            }
            if let examples = media.value["examples"]?.members, let (name, first) = examples.first,
                let (named, namedPointer) = try? converter.resolvingReference(
                    first, at: mediaPointer + "/examples/" + JSONPointer.escape(name)),
                let value = named["value"]
            {
                return .example(
                    status: status, body: value, operation: operation.name, pointer: namedPointer + "/value")
            }
            if let schema = media.value["schema"],
                let (resolvedSchema, schemaPointer) = try? converter.resolvingReference(
                    schema, at: mediaPointer + "/schema"),
                let example = resolvedSchema["example"]
            {
                return .example(
                    status: status, body: example, operation: operation.name, pointer: schemaPointer + "/example")
            }
        }
        return .noExample(operation: operation.name)
    }
}
