import APIProbeShared
import ArgumentParser
import Dispatch
import Foundation
import HTTPFixtures
import OpenAPISupport
import ProbeReports
import ProbeRunner
import RecipesServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `apiprobe demo`: the whole flow on the embedded recipes API. `apiprobe demo --serve`: the API alone.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The whole flow on the embedded recipes API: record, contract-check, probe, show a drift.",
        discussion: """
            Starts the recipes API on 127.0.0.1, records fixtures and schema snapshots into a new temporary \
            folder, checks the snapshots, probes the live API, then switches the API to its drifted variant and \
            shows the drift being caught. Exit status 0 when the drift was caught, as designed. The folder is \
            kept (its path is printed) unless --no-keep is given.

            With --serve, runs the recipes API in the foreground until interrupted (SIGINT or SIGTERM), so \
            apiprobe.yml can be tried by hand: RECIPES_PORT=<port> swift run apiprobe run.
            """
    )

    @Flag(name: .long, help: "Run the recipes API in the foreground until interrupted.")
    var serve = false

    @Flag(name: .long, help: "With --serve: serve the drifted variant of the API.")
    var drifted = false

    @Option(
        name: .long, parsing: .unconditional, help: "With --serve: latency added to every response (50ms, 1s).",
        transform: DurationArgument.parse)
    var latency: Duration?

    @Option(name: .long, help: "With --serve: the share of requests (0 to 1) answered 503 with Retry-After.")
    var failureRate: Double = 0

    @Option(name: .long, help: "With --serve: the port on 127.0.0.1 (default: one the system picks).")
    var port: Int?

    @Flag(inversion: .prefixedNo, help: "Keep the demo's folder afterwards (the default) and print its path.")
    var keep = true

    func validate() throws {
        guard (0...1).contains(failureRate) else {
            throw ValidationError("--failure-rate: expected a number from 0 to 1, found \(failureRate)")
        }
        if let port, !(1...65_535).contains(port) {
            throw ValidationError("--port: expected a port from 1 to 65535, found \(port)")
        }
        if !serve, drifted || latency != nil || failureRate > 0 || port != nil {
            throw ValidationError("--drifted, --latency, --failure-rate and --port go with --serve")
        }
    }

    func run() async throws {
        if serve {
            try await runServer()
        } else {
            var demo = try DemoRun(out: .standardOutput, keepsFolder: keep)
            let caught = try await demo.run()
            if !keep { try? FileManager.default.removeItem(at: demo.folder) }
            if !caught { throw ChecksFailed() }
        }
    }

    // MARK: --serve

    private func runServer() async throws {
        var configuration = RecipesServer.Configuration(failureRate: failureRate, isDrifted: drifted, port: port ?? 0)
        if let latency { configuration.latency = .fixed(latency) }
        let server: RecipesServer
        do {
            server = try await RecipesServer.start(configuration)
        } catch let error as RecipesServerError where error.isAddressInUse {
            throw ValidationError(
                "--port \(configuration.port): 127.0.0.1:\(configuration.port) is already in use; "
                    + "choose another port, or leave --port out for one the system picks")
        }
        let out = Terminal.standardOutput
        out.write(
            out.styled("Recipes API", .bold) + " on \(server.baseURL.absoluteString)"
                + (drifted ? " (drifted variant)" : "") + "\n"
                + "  try: curl '\(server.baseURL.absoluteString)/api/search?q=chicken'\n"
                + "  probe it: RECIPES_PORT=\(server.port) swift run apiprobe run\n"
                + "Stop with Ctrl-C.\n")
        let stop = StopSignal()
        await stop.wait()
        await server.stop()
        out.write("Stopped (\(stop.received == SIGINT ? "SIGINT" : "SIGTERM")).\n")
    }
}

/// One run of the demo: each step prints under its own heading.
struct DemoRun {
    let out: Terminal
    /// The demo's folder: `apiprobe.yml`, `Stubs/`, `Snapshots/`.
    let folder: URL
    /// Whether the folder stays afterwards (`--keep`, the default).
    let keepsFolder: Bool

    init(out: Terminal, keepsFolder: Bool = true) throws {
        self.out = out
        self.keepsFolder = keepsFolder
        folder =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("apiprobe-demo-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
            .standardizedFileURL
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw InputError(
                file: folder.path, position: .file, expected: "a folder that can be created", found: "\(error)")
        }
    }

    /// The demo's `apiprobe.yml`: a search, a search with no match (a second sample of `search`), a recipe.
    /// The demo itself records and probes from this file, so the file left behind is known to work.
    static let configText = """
        # The demo's probe config. Try it against the embedded API:
        #   apiprobe demo --serve          (prints its port)
        #   RECIPES_PORT=<port> apiprobe run --config apiprobe.yml
        api: recipes
        baseURL: http://127.0.0.1:${RECIPES_PORT:-8080}
        endpoints:
          - name: search
            path: /api/search
            query:
              q: chicken
            samples: 5
            expect:
              status: 200
              body:
                - /count > 0
              schema: Snapshots/recipes/search.schema.json
              latency:
                - p95 < 500ms
          - name: search.empty
            path: /api/search
            query:
              q: zzzzqx
            samples: 3
            expect:
              status: 200
              body:
                - /count == 0
              schema: Snapshots/recipes/search.schema.json
          - name: get
            path: /api/get
            query:
              rId: "35382"
            samples: 5
            expect:
              status: 200
              body:
                - /recipe/title exists
              schema: Snapshots/recipes/get.schema.json
              latency:
                - p95 < 500ms

        """

    /// Runs every step; returns whether the drift was caught (the designed outcome).
    mutating func run() async throws -> Bool {
        let started = ContinuousClock.now

        heading("1. The recipes API")
        let server = try await RecipesServer.start()
        let caught: Bool
        do {
            caught = try await steps(server: server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()

        heading("7. Where things are")
        let seconds = (ContinuousClock.now - started).timeInterval
        let path = folder.path
        guard keepsFolder else {
            out.write(
                "The demo's folder \(path) is removed (--no-keep); run `apiprobe demo` to keep one to explore.\n"
                    + verdict(caught, seconds: seconds) + "\n")
            return caught
        }
        var text = "The demo's files are in \(path)\n"
        text += "  apiprobe.yml                     the probe config (baseURL from RECIPES_PORT)\n"
        text += "  Stubs/recipes/*.json             the fixtures, re-recorded from the drifted API\n"
        text += "  Snapshots/recipes/*.schema.json  the schemas recorded from the contract\n"
        text += "  openapi/recipes.yaml             the API's OpenAPI description\n"
        text += "  Contracts/RecipesApp/demo.json   the app's contract (pacts/: the same as a Pact file)\n"
        text += "Next, try:\n"
        text += "  apiprobe snapshot check --stubs \(path)/Stubs --snapshots \(path)/Snapshots\n"
        text += "  apiprobe openapi check \(path)/openapi/recipes.yaml --stubs \(path)/Stubs\n"
        text += "  apiprobe demo --serve                     (prints its port; --drifted for the drifted API)\n"
        text += "  apiprobe contract verify --provider http://127.0.0.1:<port> \(path)/Contracts\n"
        text += "  RECIPES_PORT=<port> apiprobe run --config \(path)/apiprobe.yml\n"
        text += "  apiprobe record --config \(path)/apiprobe.yml --snapshots   (with RECIPES_PORT set)\n"
        text += verdict(caught, seconds: seconds)
        out.write(text + "\n")
        return caught
    }

    private func verdict(_ caught: Bool, seconds: Double) -> String {
        String(format: "Done in %.1f s: ", seconds)
            + (caught
                ? out.styled("the drift was caught, as designed.", .green)
                : out.styled("the drift was NOT caught; this is a bug in apiprobe.", .red))
    }

    private func steps(server: RecipesServer) async throws -> Bool {
        out.write(
            "Serving the recipes API on \(server.baseURL.absoluteString) (in this process).\n"
                + "Working in \(folder.path)\n")
        let configURL = folder.appendingPathComponent("apiprobe.yml")
        try AtomicFile.write(Data(Self.configText.utf8), to: configURL, displayName: "apiprobe.yml")
        var environment = ProcessInfo.processInfo.environment
        environment["RECIPES_PORT"] = String(server.port)
        let config: ProbeConfig
        config = try ProbeConfig.load(contentsOf: configURL, environment: environment, file: "apiprobe.yml")
        var recorder = Recorder(config: config, directory: folder)
        recorder.displayRoot = folder  // paths as the demo's folder holds them: Stubs/recipes/search.json

        heading("2. Record fixtures and snapshots (apiprobe record --snapshots)")
        let recorded = try await recorder.record(snapshots: true)
        out.write(RecordCommand.diagnostics(for: recorded, on: out) + RecordCommand.text(for: recorded, on: out))
        guard !recorded.hasFailures else { return false }

        heading("3. Check the snapshots (apiprobe snapshot check)")
        let snapshotsHold = try snapshotCheck()

        heading("4. Probe the live API (apiprobe run)")
        let runner = ProbeRunner(config: config, directory: folder)
        let healthy = await runner.run()
        out.write(Report.render(healthy, as: .console, options: ReportOptions(usesColor: out.usesColor)))

        heading("5. The backend's side: the app's contract (apiprobe contract export, contract verify)")
        out.write(
            "What the app's models read (their usage manifests) and the requests it makes (the fixtures), as a "
                + "contract the backend's CI verifies:\n")
        let contract = try exportContract()
        let contractHolds = try await verifyContract(contract, against: server)

        heading("6. The API drifts: probe, verify the contract, re-record")
        server.setDrifted(true)
        out.write(
            "The server now renames social_rank to rank, sends recipe_id as a number and adds cook_time_minutes.\n\n"
        )
        let drifted = await runner.run()
        out.write(Report.render(drifted, as: .console, options: ReportOptions(usesColor: out.usesColor)))
        out.write("\n" + out.styled("Verifying the app's contract (apiprobe contract verify):", .bold) + "\n")
        let contractBroken = try await !verifyContract(contract, against: server)
        out.write("\n" + out.styled("Re-recording (apiprobe record):", .bold) + "\n")
        let rerecorded = try await recorder.record()
        out.write(RecordCommand.diagnostics(for: rerecorded, on: out) + RecordCommand.text(for: rerecorded, on: out))
        out.write("\n" + out.styled("Checking the re-recorded fixtures (apiprobe snapshot check):", .bold) + "\n")
        let driftHolds = try snapshotCheck()
        out.write(
            "\n" + out.styled("Checking them against the API's OpenAPI description (apiprobe openapi check):", .bold)
                + "\n")
        let specHolds = try await openAPICheck()

        let probeCaught = healthy.passed && !drifted.passed
        let checkCaught = snapshotsHold && !driftHolds
        let contractCaught = contractHolds && contractBroken
        let fixturesChanged = rerecorded.endpoints.contains { $0.outcome == .changed }
        out.write(
            "\nDrift caught by the probe: \(probeCaught ? "yes" : "no"); by the snapshot check: "
                + "\(checkCaught ? "yes" : "no"); by the OpenAPI check: \(specHolds ? "no" : "yes"); "
                + "by the app's contract: \(contractCaught ? "yes" : "no"); "
                + "re-recorded fixtures changed: \(fixturesChanged ? "yes" : "no").\n")
        return probeCaught && checkCaught && !specHolds && contractCaught && fixturesChanged
    }

    /// What `apiprobe openapi check openapi/recipes.yaml --stubs Stubs` does, on the demo's folder (the
    /// description written there first): the library's check, printed as the command prints it; `true` when it
    /// passed.
    private func openAPICheck() async throws -> Bool {
        let specURL = folder.appendingPathComponent("openapi/recipes.yaml")
        try AtomicFile.write(Data(Self.recipesSpec.utf8), to: specURL, displayName: "openapi/recipes.yaml")
        let store = OpenAPISpec.fixtures(of: "recipes", in: folder.appendingPathComponent("Stubs"))
        let root = folder
        let report = try await onLargeStack {
            try OpenAPISpec(contentsOf: specURL, displayName: "openapi/recipes.yaml")
                .check(store, redactor: Terminal.redactor, displayRoot: root)
        }
        out.write(OpenAPICheckCommand.text(for: report, on: out, limit: 4))
        return report.passed
    }

    /// What `apiprobe snapshot check` does, on the demo's folders: the library's check, printed as the command
    /// prints it; `true` when it passed.
    private func snapshotCheck() throws -> Bool {
        let workspace = try SnapshotWorkspace(
            stubs: folder.appendingPathComponent("Stubs").path,
            snapshots: folder.appendingPathComponent("Snapshots").path,
            snapshotsLabel: "Snapshots")
        let result = try workspace.check()
        out.write(
            SnapshotCheckCommand.diagnostics(for: result, on: out) + SnapshotCheckCommand.text(for: result, on: out))
        return !result.failed
    }

    private func heading(_ title: String) {
        out.write("\n" + out.styled("== \(title)", .bold) + "\n")
    }
}
