import APIProbeShared
import Foundation
package import HTTPFixtures

/// What a description says an operation answers, from its own examples: the answer of `apiprobe serve --spec` to
/// a request no fixture matches (Prism's behaviour), or why it has none.
package enum SpecExampleAnswer: Sendable, Hashable {
    /// The first success status with a JSON example: the media type's `example`, else the first of its `examples`
    /// (its `value`, through a `$ref` into `components/examples`), else the schema's own `example`.
    case example(status: Int, body: JSONValue, operation: String, pointer: String)
    /// The operation has no success response with a JSON example.
    case noExample(operation: String)
    /// No operation takes the request's method and path.
    case noOperation
}

extension OpenAPISpec {
    /// The example answer to `method` on `url`, or why there is none.
    package func exampleAnswer(method: String, url: String) -> SpecExampleAnswer {
        guard let (operation, _) = self.operation(method: method.uppercased(), url: url) else { return .noOperation }
        let converter = ShapeConverter(root: root, file: file)
        let successes = operation.responses.filter(\.isSuccess).sorted {
            (Int($0.status) ?? 299) < (Int($1.status) ?? 299)
        }
        for response in successes {
            let pointer = operation.pointer + "/responses/" + JSONPointer.escape(response.status)
            guard let raw = root.value(at: pointer),
                let (resolved, here) = try? converter.resolvingReference(raw, at: pointer),
                let media = OperationReader.jsonMedia(resolved["content"])
            else { continue }
            let mediaPointer = here + "/content/" + JSONPointer.escape(media.key)
            let status = Int(response.status) ?? 200
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
