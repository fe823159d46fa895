import APIProbeTestSupport
import Foundation
import Testing

/// Every error type in `Sources/` says the exit status it ends a command with (`ExitStatusReporting`, conformed in
/// the type's own file), or is listed here as one that never reaches a command, with where it stops: a new error
/// type cannot fall into "internal error" (3) by omission (issue 36).
struct ExitStatusTests {
    /// Error types a command never lets out, each with where it is caught or what it is for.
    static let neverReachACommand: [String: String] = {
        let parser = "wrapped into ECMARegexError by ECMARegex.init"
        let contract = "ContractTesting is a library for users' tests; the tool does not link it"
        let stubs = "an API for users' tests; serve answers from StubSet.answer, which returns outcomes"
        let transport =
            "classified into a probe's result; record wraps it in RecordError, alerts and pushes in a warning"
        return [
            "APIProbeShared/Regex/ECMARegexParser.swift ECMARegexSyntaxError": parser,
            "APIProbeShared/Regex/ECMARegexTranslator.swift Unsupported": parser,
            "ContractTesting/ContractSource.swift SampleLoadFailure": contract,
            "ContractTesting/ExpectDecoding.swift ContractSourceError": contract,
            "ContractTesting/Internal/ReportFailure.swift ContractFailure": contract,
            "ContractTesting/LiveMode.swift RequestFailure": contract,
            "ContractTesting/RecordMode.swift ContractConfigurationError": contract,
            "HTTPStubs/FixtureServerClient.swift FixtureServerClientError": stubs,
            "HTTPStubs/StubDiagnostics.swift StubVerificationError": stubs,
            "HTTPStubs/StubSet.swift StubInstallationError": stubs,
            "ProbeClient/DNSMessage.swift MalformedDNSMessage":
                "a DNS parse error, made a ProbeClientError by the client",
            "ProbeClient/ProbeClientError.swift ProbeClientError": transport,
            "ProbeRunner/Config/BodyConditionParser.swift Failure":
                "turned into an InputError at its place in the config",
            "ProbeRunner/History/History.swift LineProblem": "a damaged history line, skipped and counted",
            "ProbeRunner/Metrics/Pushgateway.swift PushgatewayError": "a push that failed is a warning of the round",
            "ProbeRunner/Recording/LiveForwarder.swift Failure": "serve --proxy answers it as a 502",
            "RecipesAPI/NetworkError.swift NetworkError": "the sample app's client; the tool does not link it",
            "RecipesServer/LoopbackLaunch.swift Failure": "wrapped into FixtureServer.Failure and RecipesServerError",
            "RecipesServer/RecipesServer.swift APIError": "the recipes server answers it as an HTTP error",
        ]
    }()

    /// `Module/…/File.swift Name` for every type whose inheritance list names `Error` (or a protocol refining it
    /// here), and whether it reports its status.
    static func errorTypes() throws -> [(key: String, reports: Bool)] {
        let sources = OpenAPICommandTests.repository.appendingPathComponent("Sources")
        let declaration = try Regex(
            #"(?m)^\s*(?:public |package |private |fileprivate |internal )?(?:final )?(?:struct|enum|class|actor)\s+(\w+)[^{\n]*?:\s*([^{\n]*)\{"#
        )
        let conformance = try Regex(#"(?m)^\s*extension\s+([\w.]+)\s*:\s*([^{\n]*)\{"#)
        var found: [(String, Bool)] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let path = String(url.path.dropFirst(sources.path.count + 1))
            var reporting: Set<String> = []
            for match in text.matches(of: conformance) {
                let inherits = String(text[match.output[2].range!])
                if inherits.contains("ExitStatusReporting") {
                    reporting.insert(String(String(text[match.output[1].range!]).split(separator: ".").last!))
                }
            }
            for match in text.matches(of: declaration) {
                let name = String(text[match.output[1].range!])
                let inherits = String(text[match.output[2].range!]).split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard inherits.contains("Error") || inherits.contains("ExitStatusReporting") else { continue }
                found.append(("\(path) \(name)", inherits.contains("ExitStatusReporting") || reporting.contains(name)))
            }
        }
        return found.sorted { $0.0 < $1.0 }
    }

    @Test func everyErrorTypeSaysItsExitStatusOrNeverReachesACommand() throws {
        let types = try Self.errorTypes()
        #expect(types.count > 20, "the scan found \(types.count) error types")
        let silent = types.filter { !$0.reports && Self.neverReachACommand[$0.key] == nil }.map(\.key)
        #expect(silent.isEmpty, "error types with no exit status and not listed as never reaching a command: \(silent)")
        let stale = Self.neverReachACommand.keys.filter { key in !types.contains { $0.key == key && !$0.reports } }
        #expect(stale.isEmpty, "listed but no longer an error type without a status: \(stale.sorted())")
    }
}
