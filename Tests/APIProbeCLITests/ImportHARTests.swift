import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

@Suite(.tags(.commandLine), .temporaryFolder)
struct ImportHARTests {
    static let secrets = [
        "sk-live-HEADER-4242", "cookie-SECRET-9876", "query-SECRET-1357", "token-SECRET-2468", "password-SECRET-1122",
        "setcookie-SECRET-3344", "body-SECRET-5566", "referer-SECRET-7788",
    ]

    /// A HAR with every kind of secret in it.
    static let har = """
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
          {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": 10,
           "request": {"method": "GET", "url": "https://api.example.com/api/search?q=chicken&key=query-SECRET-1357", "httpVersion": "HTTP/2",
             "headers": [{"name": ":authority", "value": "api.example.com"}, {"name": "X-API-Key", "value": "sk-live-HEADER-4242"},
                         {"name": "Cookie", "value": "sid=cookie-SECRET-9876"}, {"name": "Referer", "value": "https://app.example.com/?access_token=referer-SECRET-7788"}],
             "queryString": [{"name": "q", "value": "chicken"}, {"name": "key", "value": "query-SECRET-1357"}], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2",
             "headers": [{"name": "content-type", "value": "application/json"}, {"name": "set-cookie", "value": "s=setcookie-SECRET-3344"}],
             "cookies": [], "content": {"size": 30, "mimeType": "application/json", "text": "{\\"count\\": 1, \\"recipes\\": [{\\"title\\": \\"Tacos\\"}]}"},
             "redirectURL": "", "headersSize": -1, "bodySize": -1}, "cache": {}, "timings": {"wait": 9}},
          {"startedDateTime": "2026-11-22T18:00:01.000Z", "time": 10,
           "request": {"method": "POST", "url": "https://api.example.com/oauth/token", "httpVersion": "HTTP/2",
             "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Authorization", "value": "Basic token-SECRET-2468"}],
             "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 40,
             "postData": {"mimeType": "application/json", "text": "{\\"username\\": \\"ann\\", \\"password\\": \\"password-SECRET-1122\\"}"}},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "headers": [{"name": "Content-Type", "value": "application/json"}],
             "cookies": [], "content": {"size": 40, "mimeType": "application/json", "encoding": "base64",
               "text": "\(Data(#"{"access_token": "body-SECRET-5566", "expires_in": 3600}"#.utf8).base64EncodedString())"},
             "redirectURL": "", "headersSize": -1, "bodySize": -1}, "cache": {}, "timings": {"wait": 9}},
          {"startedDateTime": "2026-11-22T18:00:02.000Z", "time": 10,
           "request": {"method": "GET", "url": "https://api.example.com/api/search?q=soup", "httpVersion": "HTTP/2", "headers": [], "queryString": [],
             "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "headers": [], "cookies": [],
             "content": {"size": 2, "mimeType": "application/json", "text": "{\\"count\\": 0, \\"recipes\\": []}"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
           "cache": {}, "timings": {"wait": 9}}
        ]}}
        """

    /// Every regular file below `folder`, by path.
    static func files(in folder: URL) -> [String: Data] {
        var result: [String: Data] = [:]
        guard
            let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return result }
        for case let url as URL in enumerator {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true,
                let data = try? Data(contentsOf: url)
            {
                result[String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))] = data
            }
        }
        return result
    }

    @Test func importWritesOneRedactedFixturePerEntryUnderStubsHost() async throws {
        let folder = try TemporaryFolder.make()
        try Data(Self.har.utf8).write(to: folder.appendingPathComponent("session.har"))

        let result = try await CommandLineRunner.run(["import", "har", "session.har"], in: folder)
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("wrote Stubs/api.example.com/get-api-search.json  GET 200"), "\(result)")
        #expect(
            result.standardOutput.hasSuffix(
                "session.har: 3 entries, 3 fixtures (3 written, 0 unchanged), 0 skipped, 0 warnings\n"), "\(result)")

        let written = Self.files(in: folder.appendingPathComponent("Stubs"))
        #expect(
            written.keys.sorted() == [
                "api.example.com/get-api-search.2.json", "api.example.com/get-api-search.json",
                "api.example.com/post-oauth-token.json",
            ])
        let search = try Exchange.load(from: folder.appendingPathComponent("Stubs/api.example.com/get-api-search.json"))
        #expect(search.metadata.source == "har")
        #expect(
            search.response.body
                == .json(
                    .object([("count", .number("1")), ("recipes", .array([.object([("title", .string("Tacos"))])]))])))
        #expect(search.metadata.redactions.contains("request.headers.X-API-Key"))
        let token = try Exchange.load(
            from: folder.appendingPathComponent("Stubs/api.example.com/post-oauth-token.json"))
        #expect(
            token.metadata.redactions == [
                "request.headers.Authorization", "request.body/password", "response.body/access_token",
            ])

        // Importing again changes no byte.
        let again = try await CommandLineRunner.run(["import", "har", "session.har"], in: folder)
        #expect(again.status == 0)
        #expect(again.standardOutput.contains("0 written, 3 unchanged"), "\(again)")
        #expect(Self.files(in: folder.appendingPathComponent("Stubs")) == written)
    }

    @Test func noKnownSecretAppearsInAnyWrittenByte() async throws {
        let folder = try TemporaryFolder.make()
        try Data(Self.har.utf8).write(to: folder.appendingPathComponent("session.har"))
        let result = try await CommandLineRunner.run(["import", "har", "session.har", "--into", "out"], in: folder)
        #expect(result.status == 0, "\(result)")

        let written = Self.files(in: folder.appendingPathComponent("out"))
        #expect(written.count == 3)
        for (path, data) in written {
            for secret in Self.secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(secret) in \(path)")
                #expect(
                    data.range(of: Data(Data(secret.utf8).base64EncodedString().utf8)) == nil,
                    "\(secret) as base64 in \(path)")
            }
        }
        for secret in Self.secrets {
            #expect(!result.standardOutput.contains(secret) && !result.standardError.contains(secret))
        }
    }

    @Test func malformedHARExitsTwoNamingTheEntryAndField() async throws {
        let folder = try TemporaryFolder.make()
        let bad = Self.har.replacingOccurrences(
            of: #""status": 200, "statusText": "OK", "httpVersion": "HTTP/2", "headers": [], "cookies": []"#,
            with: #""status": "x", "headers": []"#)
        #expect(bad != Self.har)
        try Data(bad.utf8).write(to: folder.appendingPathComponent("session.har"))

        let result = try await CommandLineRunner.run(["import", "har", "session.har"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError.contains(
                #"session.har: /log/entries/2/response/status: expected an integer, found string "x""#), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("Stubs").path))
    }

    @Test func invalidJSONAndMissingFilesExitTwo() async throws {
        let folder = try TemporaryFolder.make()
        try Data("{\"log\": [".utf8).write(to: folder.appendingPathComponent("broken.har"))
        let broken = try await CommandLineRunner.run(["import", "har", "broken.har"], in: folder)
        #expect(broken.status == 2, "\(broken)")
        #expect(broken.standardError.contains("broken.har:1:10: expected"), "\(broken)")

        let missing = try await CommandLineRunner.run(["import", "har", "nope.har"], in: folder)
        #expect(missing.status == 2, "\(missing)")
        #expect(
            missing.standardError.contains("nope.har: expected a readable HAR file, found no such file"), "\(missing)")
    }

    @Test func unwritableFolderGivesAClearErrorAndWritesNothing() async throws {
        let folder = try TemporaryFolder.make()
        try Data(Self.har.utf8).write(to: folder.appendingPathComponent("session.har"))
        // A regular file where a folder should be: no folder can be made below it, even as root
        // (which ignores permission bits).
        try Data("not a folder\n".utf8).write(to: folder.appendingPathComponent("blocked"))

        let result = try await CommandLineRunner.run(
            ["import", "har", "session.har", "--into", "blocked/stubs"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(
            result.standardError.contains("get-api-search.json: expected a folder that can be created"), "\(result)")
        #expect(result.standardOutput.isEmpty, "\(result)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["blocked", "session.har"])
        #expect(try String(contentsOf: folder.appendingPathComponent("blocked"), encoding: .utf8) == "not a folder\n")
    }

    @Test func aFailureHalfwayRestoresTheFilesAlreadyWritten() async throws {
        let folder = try TemporaryFolder.make()
        try Data(Self.har.utf8).write(to: folder.appendingPathComponent("session.har"))
        // A folder where the second fixture's file should go makes its rename fail.
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(
            at: out.appendingPathComponent("post-oauth-token.json"), withIntermediateDirectories: true)
        try Data("old\n".utf8).write(to: out.appendingPathComponent("get-api-search.json"))

        let result = try await CommandLineRunner.run(["import", "har", "session.har", "--into", "out"], in: folder)
        #expect(result.status == 2, "\(result)")
        #expect(result.standardError.contains("post-oauth-token.json"), "\(result)")
        #expect(try String(contentsOf: out.appendingPathComponent("get-api-search.json"), encoding: .utf8) == "old\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == [
                "get-api-search.json", "post-oauth-token.json",
            ])
    }

    @Test func entriesOfSeveralHostsGetTheirOwnFoldersOrUniqueNamesInOne() async throws {
        let folder = try TemporaryFolder.make()
        let two = Self.har.replacingOccurrences(
            of: "https://api.example.com/api/search?q=soup", with: "http://localhost:8080/api/search")
        try Data(two.utf8).write(to: folder.appendingPathComponent("session.har"))

        let byHost = try await CommandLineRunner.run(["import", "har", "session.har"], in: folder)
        #expect(byHost.status == 0, "\(byHost)")
        #expect(
            Self.files(in: folder.appendingPathComponent("Stubs")).keys.sorted() == [
                "api.example.com/get-api-search.json", "api.example.com/post-oauth-token.json",
                "localhost_8080/get-api-search.json",
            ])

        let together = try await CommandLineRunner.run(["import", "har", "session.har", "--into", "all"], in: folder)
        #expect(together.status == 0, "\(together)")
        #expect(
            Self.files(in: folder.appendingPathComponent("all")).keys.sorted() == [
                "get-api-search-2.json", "get-api-search.json", "post-oauth-token.json",
            ])
    }

    @Test func helpDocumentsTheDefaultFolder() async throws {
        let result = try await CommandLineRunner.run(["import", "har", "--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput.contains("Stubs/<host>/"))
    }
}
