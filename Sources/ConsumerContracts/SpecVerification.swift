import APIProbeShared
import Foundation
package import HTTPFixtures
import JSONShape
package import OpenAPISupport

/// Judges contracts against an OpenAPI description instead of a running provider: can this description ship
/// without breaking a consumer?
///
/// Each interaction is matched to an operation by its method and path (the description's server base paths
/// stripped, templates matched, `OpenAPISpec.operation(method:url:)`); the status must be declared; and what the
/// consumer reads is compared with the declared response's schema by the drift rules of `SchemaDiff`, from the
/// consumer's reading to the description, with the reading as the usage manifest: a member read that the
/// description removes, retypes, makes optional (when read with `decode`) or nullable breaks; a member the
/// consumer does not read may change freely.
package struct SpecVerifier: Sendable {
    let spec: OpenAPISpec

    package init(spec: OpenAPISpec) {
        self.spec = spec
    }

    /// The verdict on `contract` (read from `file`).
    ///
    /// - Throws: ``InputError`` when an interaction's `reads` is not a schema apiprobe can compare.
    package func verify(_ contract: ConsumerContract, file: String) throws(InputError) -> ContractVerdict {
        var verdicts: [InteractionVerdict] = []
        for (index, interaction) in contract.interactions.enumerated() {
            let breaks = try judge(interaction, file: file, pointer: "/interactions/\(index)/response/reads")
            verdicts.append(InteractionVerdict(name: interaction.name, breaks: breaks))
        }
        return ContractVerdict(
            file: file, consumer: contract.consumer, consumerVersion: contract.consumerVersion,
            provider: contract.provider, interactions: verdicts)
    }

    private func judge(_ interaction: ContractInteraction, file: String, pointer: String) throws(InputError)
        -> [ContractBreak]
    {
        let method = interaction.request.method.uppercased()
        let path = PathTemplate.path(of: interaction.request.url)
        guard let (operation, _) = spec.operation(method: method, url: interaction.request.url) else {
            return [ContractBreak(message: "no operation for \(method) \(path) in \(spec.file)")]
        }
        guard let response = operation.response(for: interaction.status) else {
            return [
                ContractBreak(
                    message:
                        "status: \(operation.name) declares no response \(interaction.status) (declared: \(operation.responses.map(\.status).joined(separator: ", ")))"
                )
            ]
        }
        guard let reads = interaction.reads else { return [] }
        guard let declared = response.shape else {
            return [
                ContractBreak(
                    member: "",
                    message:
                        "\(operation.name) declares no JSON body for \(response.status); the consumer reads one")
            ]
        }
        let reading: ShapeNode
        do {
            var document = reads.serialized()
            document.append(UInt8(ascii: "\n"))
            reading = try SchemaSnapshot(decoding: document, file: file).shape
        } catch {
            var moved = error
            moved.file = file
            if case .jsonPointer(let inner) = error.position { moved.position = .jsonPointer(pointer + inner) }
            throw moved
        }
        // The reading is its own usage manifest: every member read, optional where it is not required.
        let diff = SchemaDiff(from: reading, to: declared, usage: ContractBuilder.wholeReading(of: reading))
        return diff.changes.filter { $0.severity == .breaking }.map { change in
            var summary = change.summary
            if summary.hasPrefix(change.path + " ") { summary.removeFirst(change.path.count + 1) }
            return ContractBreak(member: change.path, message: "\(operation.name) \(response.status): \(summary)")
        }
    }
}
