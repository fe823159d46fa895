import APIProbeShared
import ArgumentParser
import ConsumerContracts
import Foundation
import HTTPFixtures
import JSONShape
import OpenAPISupport
import ProbeClient
import ProbeReports
import ProbeRunner

extension ContractReport.Format: ExpressibleByArgument {}

/// `apiprobe contract`: the backend's side of the contract.
struct ContractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contract",
        abstract: "Export what the app reads as consumer contracts (apiprobe's and Pact v4), and verify providers.",
        subcommands: [ContractExportCommand.self, ContractVerifyCommand.self]
    )
}

/// `apiprobe contract export`
struct ContractExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the app's contract with one provider: each fixture's request, and what the app reads.",
        discussion: """
            An interaction for each fixture of an endpoint that has a usage manifest (Snapshots/<api>/<name>.usage.json, \
            written by expectUsageManifest): the request, the status, and a JSON Schema of the members the app's \
            models read (required, or optional where every model reads them with decodeIfPresent), typed by the \
            endpoint's samples. Writes <output>/<consumer>/<version>.json and, with --pact, <folder>/<consumer>-<provider>.json \
            (Pact specification v4). Endpoints without a manifest, fault and template fixtures are left out, and \
            what Pact cannot say (optional members, null, several types) is approximated: each is a note on \
            standard error and counted in the summary line; --strict makes them an error (exit 2, nothing written).
            """
    )

    @OptionGroup var diagnostics: DiagnosticOptions

    @Option(name: .long, help: "The folder of fixtures.")
    var stubs = "Stubs"

    @Option(name: .long, help: "The folder of snapshots and usage manifests.")
    var snapshots = "Snapshots"

    @Option(name: .long, help: "The provider: a folder of --stubs (needed when there are several).")
    var provider: String?

    @Option(name: .long, help: "The consumer's name (default: the git repository's folder name).")
    var consumer: String?

    @Option(name: .customLong("consumer-version"), help: "The consumer's version (default: git's HEAD commit).")
    var consumerVersion: String?

    @Option(name: .long, help: "Where contracts are written: <output>/<consumer>/<version>.json.")
    var output = "Contracts"

    @Option(name: .long, help: "Also write the Pact v4 file into this folder.")
    var pact: String?

    @Flag(
        name: .customLong("reads-everything"),
        help: "Take an endpoint without a usage manifest as read whole, instead of leaving it out.")
    var readsEverything = false

    @Flag(name: .long, help: "Fail (exit status 2, nothing written) when anything is left out or approximated.")
    var strict = false

    func run() async throws {
        let store = FixtureStore(directory: URL(fileURLWithPath: stubs, isDirectory: true))
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: stubs, isDirectory: &isFolder), isFolder.boolValue else {
            throw InputError(file: stubs, position: .file, expected: "a folder of fixtures", found: "no such folder")
        }
        let apis = Set(
            store.names().compactMap {
                $0.split(separator: "/").count > 1 ? $0.split(separator: "/").first.map(String.init) : nil
            })
        let api: String
        if let provider {
            guard apis.contains(provider) else {
                throw InputError(
                    file: stubs, position: .file,
                    expected: "a provider folder (--provider): \(apis.sorted().joined(separator: ", "))",
                    found: provider)
            }
            api = provider
        } else if apis.count == 1, let only = apis.first {
            api = only
        } else {
            throw ValidationError(
                apis.isEmpty
                    ? "\(stubs) has no provider folder of fixtures"
                    : "give --provider: \(stubs) has \(apis.count) (\(apis.sorted().joined(separator: ", ")))")
        }
        let git = GitDescription(folder: FileManager.default.currentDirectoryPath)
        guard let consumerName = consumer ?? git.repositoryName else {
            throw ValidationError("give --consumer: the current folder is not in a git repository")
        }
        guard let version = consumerVersion ?? git.headCommit else {
            throw ValidationError("give --consumer-version: the current folder is not in a git repository")
        }
        for (label, value) in [("--consumer", consumerName), ("--consumer-version", version)]
        where SafePath.fileName(value, fallback: "") != value || value.hasPrefix(".") {
            throw ValidationError("\(label) \(value): expected a name without '/', '..' or a leading '.'")
        }
        let snapshotsFolder = URL(fileURLWithPath: snapshots, isDirectory: true)
        let snapshotsLabel = snapshots.hasSuffix("/") ? String(snapshots.dropLast()) : snapshots
        var builder = ContractBuilder(store: store) { (key: String) throws(InputError) -> UsageManifest? in
            try UsageManifest.inFolder(snapshotsFolder, label: snapshotsLabel, endpoint: key)
        }
        if readsEverything { builder = builder.readingEverything() }
        let contract = try builder.contract(consumer: consumerName, version: version, api: api)
        builder.noteManifests(withoutFixtures: Self.usageManifests(in: snapshotsFolder, api: api))
        let pactFile = pact.map { _ in PactFile(contract) }
        let notes = builder.notes.map { "note: \($0)" } + (pactFile?.approximations ?? []).map { "note: Pact: \($0)" }
        if strict, !notes.isEmpty {
            Terminal.standardError.write(notes.joined(separator: "\n") + "\n")
            throw InputError(
                file: stubs, position: .file, expected: "a contract with nothing left out or approximated (--strict)",
                found: "\(notes.count) note(s) above")
        }
        if contract.interactions.isEmpty {
            diagnostics.emit(notes.joined(separator: "\n") + (notes.isEmpty ? "" : "\n"))
            throw InputError(
                file: "\(snapshotsLabel)/\(api)", position: .file,
                expected:
                    "a usage manifest for at least one endpoint (expectUsageManifest writes them), or --reads-everything",
                found: "none")
        }
        let outputFolder = URL(fileURLWithPath: output, isDirectory: true)
        let contractURL = outputFolder.appendingPathComponent(consumerName).appendingPathComponent(version + ".json")
        let outputLabel = output.hasSuffix("/") ? String(output.dropLast()) : output
        let contractPath = outputLabel + "/" + consumerName + "/" + version + ".json"
        try AtomicFile.write(contract.encoded(), to: contractURL, displayName: contractPath, inside: outputFolder)
        var written = [contractPath]
        if let pact, let pactFile {
            let name = PactFile.fileName(for: contract)
            let folder = URL(fileURLWithPath: pact, isDirectory: true)
            let path = "\(pact.hasSuffix("/") ? String(pact.dropLast()) : pact)/\(name)"
            try AtomicFile.write(
                pactFile.data, to: folder.appendingPathComponent(name), displayName: path, inside: folder)
            written.append(path)
        }
        diagnostics.emit(notes.joined(separator: "\n") + (notes.isEmpty ? "" : "\n"))
        Terminal.standardOutput.write(
            Self.summary(
                contract, written: written, leftOut: builder.notes.count,
                approximations: pactFile?.approximations.count))
    }

    /// The endpoints that have a usage manifest in `snapshots/<api>`: `recipes/search` for
    /// `Snapshots/recipes/search.usage.json`.
    static func usageManifests(in snapshots: URL, api: String) -> [String] {
        let folder = snapshots.appendingPathComponent(api, isDirectory: true).standardizedFileURL
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        var names: [String] = []
        for case let url as URL in enumerator where url.lastPathComponent.hasSuffix(".usage.json") {
            let path = url.standardizedFileURL.path
            guard path.hasPrefix(folder.path + "/") else { continue }
            names.append(api + "/" + path.dropFirst(folder.path.count + 1).dropLast(".usage.json".count))
        }
        return names
    }

    /// The summary line: what was exported, where, and how much was left out or approximated.
    static func summary(_ contract: ConsumerContract, written: [String], leftOut: Int, approximations: Int?) -> String {
        "Exported \(contract.interactions.count) interactions of \(contract.consumer) \(contract.consumerVersion) "
            + "with \(contract.provider): " + written.joined(separator: ", ") + "; \(leftOut) left out"
            + (approximations.map { "; \($0) Pact approximations" } ?? "") + "\n"
    }
}

/// `apiprobe contract verify`
struct ContractVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract:
            "Judge contracts against a running provider or a description; exit 1 when one breaks what a consumer reads.",
        discussion: """
            Each contract (a file, or a folder such as Contracts/ holding <consumer>/<version>.json) is replayed \
            interaction by interaction: the provider state set up first when --provider-states-url is given (a POST \
            of {"action":"setup","params":{},"state":NAME}), then the request sent to --provider, and the answer \
            judged: the status, and one JSON Schema validation of the body against what the consumer reads. A member \
            the consumer does not read may change freely. The verdict is per consumer version: whether this \
            provider can deploy without breaking it. With --spec instead of --provider, each interaction is \
            matched to the description's operation and what the consumer reads is compared with the declared \
            response schema: a read member removed, retyped, made optional or nullable breaks; an unread one may \
            change. Exit status: 0 every consumer version passes, 1 one would break, 2 a contract or description \
            that cannot be read.
            """
    )

    @Argument(help: "Contract files, or folders of them (Contracts/).")
    var contracts: [String]

    @Option(name: .long, help: "The provider's base URL (http://127.0.0.1:8080).")
    var provider: String?

    @Option(name: .long, help: "An OpenAPI description (JSON or YAML) to judge instead of a running provider.")
    var spec: String?

    @Option(
        name: .customLong("provider-states-url"), help: "Where provider states are set up (Pact's state-change URL).")
    var providerStatesURL: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "A header field for every request, replacing the recorded one (repeatable).", valueName: "name: value"))
    var headers: [String] = []

    @Option(name: .long, help: "How long one request may take.", transform: DurationArgument.positive)
    var timeout: Duration = .seconds(10)

    @Option(name: .long, help: "Output format: text, json or junit.")
    var format: ContractReport.Format = .text

    func validate() throws {
        if contracts.isEmpty { throw ValidationError("Give at least one contract file or folder.") }
        switch (provider, spec) {
        case (nil, nil):
            throw ValidationError("Give --provider URL (a running provider) or --spec FILE (a description).")
        case (.some, .some): throw ValidationError("Give --provider or --spec, not both.")
        case (nil, .some):
            if providerStatesURL != nil || !headers.isEmpty {
                throw ValidationError("--provider-states-url and --header go with --provider, not --spec.")
            }
        default: break
        }
        for url in (provider.map { [$0] } ?? []) + (providerStatesURL.map { [$0] } ?? []) {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
                parsed.host != nil
            else { throw ValidationError("\(url): expected an http or https URL") }
        }
        for header in headers where !header.contains(":") {
            throw ValidationError("--header \(header): expected 'name: value'")
        }
    }

    func run() async throws {
        var fields = HeaderFields()
        for header in headers {
            let colon = header.firstIndex(of: ":") ?? header.endIndex
            let name = header[..<colon].trimmingCharacters(in: .whitespaces)
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields.append(name: name, value: value)
        }
        // Credentials given here never reach a report.
        for field in fields { Terminal.redactor.learn(field.value) }
        var loaded: [(ConsumerContract, String)] = []
        for file in try SchemaInput.files(contracts, endingIn: [".json"], kind: "contract files (*.json)") {
            let data = try InputError.contents(of: URL(fileURLWithPath: file), displayName: file)
            loaded.append((try ConsumerContract(decoding: data, file: file), file))
        }
        if let spec {
            let description = try OpenAPISpec(contentsOf: URL(fileURLWithPath: spec), displayName: spec)
            let verifier = SpecVerifier(spec: description)
            var verdicts: [ContractVerdict] = []
            for (contract, file) in loaded { verdicts.append(try verifier.verify(contract, file: file)) }
            Terminal.standardOutput.write(ContractReport.render(verdicts, as: format, against: spec))
            if !verdicts.allSatisfy(\.passed) { throw ChecksFailed() }
            return
        }
        guard let provider, let providerURL = URL(string: provider) else {
            throw ValidationError("Give --provider URL or --spec FILE.")
        }
        let verifier = ProviderVerifier(
            provider: providerURL, stateChange: providerStatesURL.flatMap(URL.init(string:)), headers: fields,
            timeout: timeout)
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        var verdicts: [ContractVerdict] = []
        for (contract, file) in loaded {
            verdicts.append(try await verifier.verify(contract, file: file, loader: loader))
        }
        Terminal.standardOutput.write(ContractReport.render(verdicts, as: format, against: provider))
        if !verdicts.allSatisfy(\.passed) { throw ChecksFailed() }
    }
}

/// What git says of the folder the tool runs in: the repository's name and its HEAD commit (`+dirty` when the work
/// tree has changes), for a consumer's default name and version. `nil` outside a repository or without git.
struct GitDescription {
    var repositoryName: String?
    var headCommit: String?

    init(folder: String) {
        guard let top = Self.git(["rev-parse", "--show-toplevel"], in: folder) else { return }
        repositoryName = URL(fileURLWithPath: top).lastPathComponent
        guard let head = Self.git(["rev-parse", "--short=12", "HEAD"], in: folder) else { return }
        let dirty = !(Self.git(["status", "--porcelain", "--untracked-files=no"], in: folder) ?? "").isEmpty
        headCommit = head + (dirty ? "+dirty" : "")
    }

    private static func git(_ arguments: [String], in folder: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", folder] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
