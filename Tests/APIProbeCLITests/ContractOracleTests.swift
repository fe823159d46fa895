import APIProbeShared
import APIProbeTestSupport
import ConsumerContracts
import Foundation
import HTTPFixtures
import JSONShape
import Testing

/// `contract export` and `contract verify` beside an independent Pact verifier: PyPI's pact-python (4.x, on the
/// Rust `pact_ffi` core) verifies the exported Pact files against the same loopback provider, `apiprobe serve`
/// answering from fixtures that drift in chosen ways (a read member removed or retyped, an unread one removed, a
/// member added, the status changed). For every interaction, its verdict and apiprobe's agree.
@Suite(.tags(.commandLine, .outsideTools, .realMaterial), .hangGuard, .temporaryFolder, .serialized)
struct ContractOracleTests {
    static let oracle = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Contracts/pact_verify.py")

    enum Drift: CaseIterable {
        case none, removeRead, retypeRead, revalueRead, removeUnread, addMember, status

        /// Whether a consumer that reads what the contract says still decodes the answer.
        var keepsContract: Bool { [.none, .revalueRead, .removeUnread, .addMember].contains(self) }
    }

    /// The Python with pact-python, when `.ci/run` made it.
    static var python: URL? {
        guard let python = RealCollectionTests.python else { return nil }
        let folder = python.deletingLastPathComponent().deletingLastPathComponent()
        let found =
            (try? FileManager.default.subpathsOfDirectory(atPath: folder.appendingPathComponent("lib").path))?
            .contains { $0.hasSuffix("site-packages/pact/verifier.py") } ?? false
        return found ? python : nil
    }

    @Test(.offThePool) func pactVerifierAgreesOnEveryInteraction() async throws {
        guard let curl = ServeSecurityTests.curl else {
            TestEnvironment.recordMissing("curl is not installed (apt-get install -y curl; .ci/run does)")
            return
        }
        guard let python = Self.python else {
            TestEnvironment.recordMissing("pact-python is missing from the tests' Python environment: run .ci/run")
            return
        }
        let folder = try TemporaryFolder.make("contract-oracle")
        let stubs = folder.appendingPathComponent("Stubs")
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: OpenAPICommandTests.repository.appendingPathComponent("Stubs/recipes"),
            to: stubs.appendingPathComponent("recipes"))
        var providers = ["recipes"]
        if RealCollections.folder == nil {
            withKnownIssue("the vendors' files are not here: put them in shared/real-collections beside the checkout") {
                Issue.record("no real collections")
            }
        }
        for vendor in RealCollections.vendors {
            guard let collection = vendor.collection else { continue }
            var arguments = ["import", "postman", collection.path, "--into", "Stubs/\(vendor.name)", "--quiet"]
            if let environment = vendor.environment { arguments += ["--environment", environment.path] }
            let imported = try await CommandLineRunner.run(arguments, in: folder)
            try #require(imported.status == 0, "\(imported)")
            providers.append(vendor.name)
        }

        // What the consumer reads: every member but one top-level member of each endpoint (so that some are unread).
        var generator = SeededGenerator(seed: 39)
        let store = FixtureStore(directory: stubs)
        var manifests: [String: UsageManifest] = [:]
        for provider in providers {
            for endpoint in try store.endpoints(in: provider) where !endpoint.samples.isEmpty {
                let shape = try SchemaSnapshot(samples: endpoint.samples.map { ($0.json, $0.file) }, previous: nil)
                    .shape
                let whole = ContractBuilder.wholeReading(of: shape)
                let topLevel = shape.orderedPropertyNames
                let unread =
                    topLevel.count > 1 ? "/" + JSONPointer.escape(topLevel.randomElement(using: &generator)!) : nil
                let kept = whole.paths.filter { path in unread.map { path != $0 && !path.hasPrefix($0 + "/") } ?? true }
                let manifest = UsageManifest(paths: kept, optionalPaths: whole.optionalPaths)
                manifests[endpoint.name] = manifest
                let url = folder.appendingPathComponent("Snapshots/\(endpoint.name).usage.json")
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manifest.encoded().write(to: url)
            }
        }

        // The contracts and Pact files, one per provider.
        var contracts: [String: ConsumerContract] = [:]
        for provider in providers {
            let export = try await CommandLineRunner.run(
                [
                    "contract", "export", "--provider", provider, "--consumer", "App", "--consumer-version", "1",
                    "--output", "Contracts/\(provider)", "--pact", "pacts", "--quiet",
                ], in: folder)
            try #require(export.status == 0, "\(export)")
            let file = folder.appendingPathComponent("Contracts/\(provider)/App/1.json")
            contracts[provider] = try ConsumerContract(decoding: Data(contentsOf: file), file: file.path)
        }

        // The drifted provider: each fixture of an interaction drifted one chosen way.
        var drifts: [String: Drift] = [:]
        for (provider, contract) in contracts.sorted(by: { $0.key < $1.key }) {
            for interaction in contract.interactions {
                var exchange = try store.exchange(named: interaction.name)
                let manifest = manifests[FixtureStore.endpointName(ofFixture: interaction.name)]
                var drift = Drift.allCases.randomElement(using: &generator)!
                if case .json(var body) = exchange.response.body, let manifest, interaction.reads != nil {
                    switch drift {
                    case .none: break
                    case .removeRead, .retypeRead, .revalueRead:
                        let candidates = Self.members(of: body).filter { pointer, value in
                            let general = Self.generalized(pointer)
                            return value != .null && manifest.paths.contains(general)
                                && !manifest.readsOptionally(general)
                        }
                        if let (pointer, value) = candidates.randomElement(using: &generator) {
                            let replacement: JSONValue? =
                                switch drift {
                                case .removeRead: nil
                                case .retypeRead: Self.retyped(value)
                                default: Self.revalued(value)
                                }
                            body = Self.replacing(pointer, in: body, with: replacement)
                        } else {
                            drift = .none
                        }
                    case .removeUnread:
                        let candidates = Self.members(of: body).filter { pointer, _ in
                            !pointer.dropFirst().contains("/") && !manifest.isRead(pointer)
                        }
                        if let (pointer, _) = candidates.randomElement(using: &generator) {
                            body = Self.replacing(pointer, in: body, with: nil)
                        } else {
                            drift = .none
                        }
                    case .addMember:
                        if case .object(var members) = body {
                            members.append(("apiprobe_added", .number("1")))
                            body = .object(members)
                        } else {
                            drift = .none
                        }
                    case .status:
                        exchange.response.status = exchange.response.status == 200 ? 202 : 200
                    }
                    exchange.response.body = .json(body)
                } else if drift == .status {
                    exchange.response.status = exchange.response.status == 200 ? 202 : 200
                } else {
                    drift = .none
                }
                drifts["\(provider) \(interaction.name)"] = drift
                let url = folder.appendingPathComponent("Drifted/\(interaction.name).json")
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try exchange.encoded().write(to: url)
            }
        }

        var compared = 0
        var agreed = 0
        var failing = 0
        var disagreements: [String] = []
        var unexpected: [String] = []
        for provider in providers {
            guard let contract = contracts[provider] else { continue }
            // One `serve` per provider (it serves one origin).
            let server = try RunningCommand(
                ["serve", "--stubs", folder.appendingPathComponent("Drifted/\(provider)").path])
            let started = try await server.waitForOutput(containing: "Stop with Ctrl-C.")
            let port = try #require(
                started.firstMatch(of: /on http:\/\/127\.0\.0\.1:(\d+)/), "serve: \(started) \(server.standardError)")
            let base = "http://127.0.0.1:\(port.1)"
            _ = try await CommandLineRunner.runProcess(
                curl, ["-s", "-X", "POST", "\(base)/__apiprobe/reset"])
            let ours = try await CommandLineRunner.run(
                ["contract", "verify", "--provider", base, "--format", "json", "Contracts/\(provider)"], in: folder)
            #expect(ours.status == 0 || ours.status == 1, "\(ours)")
            let report = try JSONDecoder().decode(OurReport.self, from: Data(ours.standardOutput.utf8))
            _ = try await CommandLineRunner.runProcess(
                curl, ["-s", "-X", "POST", "\(base)/__apiprobe/reset"])
            let theirs = try await CommandLineRunner.runProcess(
                python, [Self.oracle.path, base, folder.appendingPathComponent("pacts/App-\(provider).json").path])
            let pact = try JSONDecoder().decode(PactReport.self, from: Data(theirs.standardOutput.utf8))
            #expect(pact.interactions == contract.interactions.count)
            for interaction in report.contracts.flatMap(\.interactions) {
                compared += 1
                let pactPassed = !pact.failed.contains(interaction.name)
                if pactPassed == interaction.passed {
                    agreed += 1
                } else {
                    disagreements.append(
                        "\(provider) \(interaction.name) (\(drifts["\(provider) \(interaction.name)"].map { "\($0)" } ?? "?")): apiprobe \(interaction.passed ? "passes" : "fails: \(interaction.breaks.map(\.message))"), Pact \(pactPassed ? "passes" : "fails")"
                    )
                }
                if !interaction.passed { failing += 1 }
                if let drift = drifts["\(provider) \(interaction.name)"], drift.keepsContract != interaction.passed {
                    unexpected.append(
                        "\(provider) \(interaction.name) (\(drift)): \(interaction.breaks.map(\.message))")
                }
            }
            _ = try await server.stop()
        }
        #expect(disagreements.isEmpty, "\(agreed) of \(compared) agree:\n\(disagreements.joined(separator: "\n"))")
        #expect(compared >= (RealCollections.folder == nil ? 6 : 50), "\(compared) interactions")
        #expect(failing > 0 && failing < compared, "\(failing) of \(compared) interactions fail")
        // Each drift gave the verdict it should: the oracle agreeing with a verifier that judged nothing is not enough.
        #expect(
            unexpected.isEmpty,
            "\(unexpected.count) verdicts other than the drift's:\n\(unexpected.joined(separator: "\n"))")
        let kinds = Dictionary(grouping: drifts.values, by: { "\($0)" }).mapValues(\.count).sorted { $0.key < $1.key }
        print(
            "ContractOracleTests: \(agreed) of \(compared) interactions agree with pact-python; \(failing) fail; drifts "
                + kinds.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }

    struct OurReport: Decodable {
        struct Contract: Decodable { var interactions: [Interaction] }
        struct Interaction: Decodable {
            struct Break: Decodable {
                var member: String?
                var message: String
            }
            var name: String
            var passed: Bool
            var breaks: [Break]
        }
        var contracts: [Contract]
    }

    struct PactReport: Decodable {
        var failed: [String]
        var interactions: Int
    }

    // MARK: - Drifting a body

    /// Every member of objects in `value` (not array items themselves), with its pointer, in document order.
    static func members(of value: JSONValue, at pointer: String = "") -> [(String, JSONValue)] {
        switch value {
        case .object(let members):
            return members.flatMap { key, child in
                let path = pointer + "/" + JSONPointer.escape(key)
                return [(path, child)] + Self.members(of: child, at: path)
            }
        case .array(let items):
            return items.enumerated().flatMap { Self.members(of: $1, at: pointer + "/\($0)") }
        default:
            return []
        }
    }

    /// `/recipes/3/title` → `/recipes/*/title` (every number a `*`: the bodies drifted here have no numeric keys
    /// that matter, and a wrong guess only makes a candidate less likely).
    static func generalized(_ pointer: String) -> String {
        pointer.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) != nil ? "*" : String($0) }
            .joined(separator: "/")
    }

    /// Another value of the same type: a type-matching verifier lets it pass, one that compares values does not.
    static func revalued(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(text + " (changed)")
        case .number(let literal): .number(Int(literal) != nil ? "987654" : "98765.25")
        case .bool(let flag): .bool(!flag)
        case .array: .array([])
        default: value
        }
    }

    static func retyped(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string: .number("12345")
        default: .string("drifted")
        }
    }

    /// `value` with the member at `pointer` replaced (`nil`: removed).
    static func replacing(_ pointer: String, in value: JSONValue, with replacement: JSONValue?) -> JSONValue {
        let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            JSONPointer.unescape($0)
        }
        func go(_ value: JSONValue, _ rest: ArraySlice<String>) -> JSONValue? {
            guard let token = rest.first else { return replacement }
            switch value {
            case .object(let members):
                return .object(
                    members.compactMap { key, child in
                        guard key == token else { return (key, child) }
                        return go(child, rest.dropFirst()).map { (key, $0) }
                    })
            case .array(var items):
                guard let index = Int(token), items.indices.contains(index) else { return value }
                if let changed = go(items[index], rest.dropFirst()) {
                    items[index] = changed
                } else {
                    items.remove(at: index)
                }
                return .array(items)
            default:
                return value
            }
        }
        return go(value, tokens[...]) ?? value
    }
}
