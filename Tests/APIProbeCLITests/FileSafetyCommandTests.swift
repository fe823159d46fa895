import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `import har` never writes outside its folder; `--report KIND=PATH` never replaces what is not a regular file.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct FileSafetyCommandTests {
    static func har(method: String, url: String) -> String {
        """
        {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
          {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": 1,
           "request": {"method": \(String(decoding: JSONValue.string(method).serialized(), as: UTF8.self)),
                       "url": "\(url)", "httpVersion": "HTTP/1.1", "headers": []},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
                        "content": {"size": 2, "mimeType": "application/json", "text": "{}"}}}]}}
        """
    }

    @Test(arguments: [
        (["get/../../../../escaped/owned"], #"string "get/../../../../escaped/owned""#),
        (["get/../../../../escaped/owned", "--into", "out"], #"string "get/../../../../escaped/owned""#),
        ([""], "an empty string"),
        ([String(repeating: "X", count: 4_000)], "string \"\(String(repeating: "X", count: 80))\""),
    ])
    func anAbsurdMethodIsBadInputAndNothingIsWritten(arguments: [String], found: String) async throws {
        let folder = try TemporaryFolder.make("har-method")
        let project = folder.appendingPathComponent("a/b/c/project", isDirectory: true)
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("s.har")
        try Data(Self.har(method: arguments[0], url: "http://api.example.com/x").utf8).write(to: file)
        let result = try await CommandLineRunner.run(["import", "har", file.path] + arguments.dropFirst(), in: project)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError
                == "Error: \(file.path): /log/entries/0/request/method: expected an HTTP method (a token such as GET "
                + "or POST), found \(found)\n",
            "\(result)")
        #expect(ImportHARTests.files(in: folder).keys.sorted() == ["s.har"])
    }

    @Test(arguments: ["..", "%2e%2e", "%2E%2E"])
    func aHostOfDotsStaysInsideStubs(host: String) async throws {
        let folder = try TemporaryFolder.make("har-host")
        let file = folder.appendingPathComponent("s.har")
        try Data(Self.har(method: "GET", url: "http://\(host)/x").utf8).write(to: file)
        let project = folder.appendingPathComponent("project", isDirectory: true)
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        let result = try await CommandLineRunner.run(["import", "har", file.path], in: project)
        #expect(result.status == 0, "\(result)")
        #expect(ImportHARTests.files(in: folder).keys.sorted() == ["project/Stubs/unknown-host/get-x.json", "s.har"])
    }

    // MARK: --report destinations

    /// Nothing listens on the discard port: the probe fails at once as refused (exit 1), with a report to write.
    static let config = """
        api: recipes
        baseURL: http://127.0.0.1:9
        endpoints:
          - name: health
            path: /api/health

        """

    private func run(_ reports: [String], in folder: URL) async throws -> CommandResult {
        try Data(Self.config.utf8).write(to: folder.appendingPathComponent("apiprobe.yml"))
        return try await CommandLineRunner.run(["run"] + reports.flatMap { ["--report", $0] }, in: folder)
    }

    @Test func reportDestinationsThatAreNotRegularFiles() async throws {
        let folder = try TemporaryFolder.make("report-paths")

        // `-` is standard output.
        let dash = try await run(["json=-"], in: folder)
        #expect(dash.status == 1, "\(dash)")
        #expect(dash.standardOutput.hasPrefix("{\n"), "\(dash)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("-").path))

        // A link to /dev/stdout (a pipe here) is written through, not "not writable", and stays a link. (A link
        // of the test's own, not /dev/stdout itself: code that replaces it must not replace the system's.)
        let stdoutLink = folder.appendingPathComponent("stdout.json")
        try FileManager.default.createSymbolicLink(
            at: stdoutLink, withDestinationURL: URL(fileURLWithPath: "/dev/stdout"))
        let device = try await run(["json=stdout.json"], in: folder)
        #expect(device.status == 1, "\(device)")
        #expect(device.standardOutput.hasPrefix("{\n"), "\(device)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: stdoutLink.path) == "/dev/stdout")

        // A link stays a link; the file it points to gets the report, with its permission bits kept.
        let real = folder.appendingPathComponent("real.json")
        try Data("old".utf8).write(to: real)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: real.path)
        let link = folder.appendingPathComponent("report.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let linked = try await run(["json=report.json"], in: folder)
        #expect(linked.status == 1, "\(linked)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try String(contentsOf: real, encoding: .utf8).hasPrefix("{\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: real.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        // A folder is refused with a message, exit 2.
        let refused = try await run(["json=\(folder.path)"], in: folder)
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.standardError == "Error: \(folder.path): expected a file, found a folder\n", "\(refused)")

        // A name too long says so.
        let long = String(repeating: "r", count: 300)
        let tooLong = try await run(["json=\(long)"], in: folder)
        #expect(tooLong.status == 2, "\(tooLong)")
        #expect(
            tooLong.standardError
                == "Error: \(long): expected a file name of at most 255 bytes, found a name of 300 bytes (too long)\n",
            "\(tooLong)")
    }

    @Test func snapshotUpdateDoesNotWriteThroughALinkPlantedInSnapshots() async throws {
        let folder = try TemporaryFolder.make("snapshot-link")
        let exchange = Exchange(
            request: RecordedRequest(url: "http://127.0.0.1/search"),
            response: RecordedResponse(body: .json(.object([("count", .number("1"))]))))
        try exchange.write(to: folder.appendingPathComponent("Stubs/recipes/search.json"))
        let outside = folder.appendingPathComponent("outside.txt")
        try Data("keep".utf8).write(to: outside)
        let snapshots = folder.appendingPathComponent("Snapshots/recipes", isDirectory: true)
        try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: snapshots.appendingPathComponent("search.schema.json"), withDestinationURL: outside)
        let result = try await CommandLineRunner.run(["snapshot", "update"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError
                == "Error: Snapshots/recipes/search.schema.json: expected a path inside "
                + "\(folder.appendingPathComponent("Snapshots").path), found a symbolic link to "
                + "\(outside.resolvingSymlinksInPath().path), outside it\n", "\(result)")
        #expect(try String(contentsOf: outside, encoding: .utf8) == "keep")
    }
}
