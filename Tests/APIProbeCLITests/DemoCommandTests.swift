import APIProbeTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `apiprobe demo` and `apiprobe demo --serve`, run as the built binary.
@Suite(.timeLimit(.minutes(2)))
struct DemoCommandTests {
    @Test func theDemoCatchesTheDriftExitsZeroAndLeavesItsFilesWhereItSays() throws {
        let temporary = try CommandLineRunner.makeTemporaryDirectory("demo-command")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let result = try CommandLineRunner.run(["demo"], environment: ["TMPDIR": temporary.path])

        #expect(result.status == 0, "\(result)")
        let output = result.standardOutput
        #expect(output.contains("== 2. Record fixtures and snapshots"), "\(result)")
        #expect(output.contains("ok      Snapshots/recipes/search.schema.json (2 samples)"), "\(result)")
        #expect(output.contains("breaking /recipes/*/social_rank removed: was number"), "\(result)")
        #expect(output.contains("Drift caught by the probe: yes; by the snapshot check: yes"), "\(result)")
        #expect(output.contains("the drift was caught, as designed."), "\(result)")
        #expect(!output.contains("\u{1B}["), "NO_COLOR is set: no escape codes")

        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("The demo's files are in ") })
        let folder = URL(fileURLWithPath: String(line.dropFirst("The demo's files are in ".count)))
        #expect(folder.standardizedFileURL.path.hasPrefix(temporary.standardizedFileURL.path))
        for file in [
            "apiprobe.yml", "Stubs/recipes/search.json", "Stubs/recipes/search.empty.json", "Stubs/recipes/get.json",
            "Snapshots/recipes/search.schema.json", "Snapshots/recipes/get.schema.json",
        ] {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file).path), "\(file)")
        }
        #expect(
            output.contains("apiprobe snapshot check --stubs \(folder.path)/Stubs --snapshots \(folder.path)/Snapshots")
        )

        // The command it suggests works on the files it left: the drifted fixtures break the snapshots.
        let check = try CommandLineRunner.run(
            ["snapshot", "check", "--stubs", folder.path + "/Stubs", "--snapshots", folder.path + "/Snapshots"])
        #expect(check.status == 1, "\(check)")
        #expect(check.standardOutput.contains("breaking"), "\(check)")
    }

    @Test func noKeepRemovesTheDemoFolder() throws {
        let temporary = try CommandLineRunner.makeTemporaryDirectory("demo-command")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let result = try CommandLineRunner.run(["demo", "--no-keep"], environment: ["TMPDIR": temporary.path])
        #expect(result.status == 0, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test func serveAnswersOnItsPrintedPortAndExitsZeroOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = CommandLineRunner.executable
        process.arguments = ["demo", "--serve", "--drifted"]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        // The first line names the URL: "Recipes API on http://127.0.0.1:<port> (drifted variant)".
        var text = ""
        let deadline = ContinuousClock.now + .seconds(20)
        while !text.contains("Stop with Ctrl-C."), ContinuousClock.now < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let match = try #require(text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)/), "\(text)")
        let port = String(match.1)
        #expect(text.contains("RECIPES_PORT=\(port) swift run apiprobe run"), "\(text)")

        let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/get?rId=35382"))
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("\"cook_time_minutes\""), "the drifted variant")

        kill(process.processIdentifier, SIGTERM)
        let stopDeadline = ContinuousClock.now + .seconds(20)
        while process.isRunning, ContinuousClock.now < stopDeadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("Stopped (SIGTERM)."), "\(rest)")
    }
}
