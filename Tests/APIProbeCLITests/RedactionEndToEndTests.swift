import APIProbeTestSupport
import Foundation
import HTTPFixtures
import RecipesServer
import Testing

/// Known secrets go through `apiprobe record` (against the recipes server, which checks the API key) and
/// through `apiprobe import har`; not one byte of them may reach any written file.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct RedactionEndToEndTests {
    static let apiKey = "sk-live-E2E-KEY-7777"
    static let bearer = "bearer-E2E-SECRET-3131"
    static let headerKey = "xapikey-E2E-SECRET-5151"
    static let bodyToken = "bodytoken-E2E-SECRET-9191"
    static let cookie = "cookie-E2E-SECRET-6161"
    /// Only in the URL of a response's paging `Link` header.
    static let linkToken = "link-E2E-SECRET-4242"
    static let secrets = [apiKey, bearer, headerKey, bodyToken, cookie, linkToken]

    /// Secrets come from the environment, so the config file itself holds none.
    static let config = """
        api: recipes
        baseURL: http://127.0.0.1:${RECIPES_PORT}
        redact:
          - session_token
        defaults:
          headers:
            Authorization: Bearer ${TOKEN}
            X-Api-Key: ${HEADER_KEY}
        endpoints:
          - name: search
            path: /api/search
            query:
              q: chicken
              key: ${API_KEY}
          - name: get
            path: /api/get
            query:
              rId: "35382"
              key: ${API_KEY}
          - name: login
            method: POST
            path: /api/search
            body:
              user: ann
              session_token: ${BODY_TOKEN}

        """

    /// A HAR with the same secrets: request headers, query, request and response bodies, Set-Cookie.
    static var har: String {
        let responseBody = Data(#"{"session_token": "\#(bodyToken)", "count": 0}"#.utf8).base64EncodedString()
        return """
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
              {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": 5,
               "request": {"method": "POST", "url": "http://127.0.0.1:8080/api/search?q=chicken&key=\(apiKey)",
                 "httpVersion": "HTTP/1.1",
                 "headers": [{"name": "Authorization", "value": "Bearer \(bearer)"},
                             {"name": "X-Api-Key", "value": "\(headerKey)"},
                             {"name": "Content-Type", "value": "application/json"}],
                 "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 60,
                 "postData": {"mimeType": "application/json",
                              "text": "{\\"user\\": \\"ann\\", \\"session_token\\": \\"\(bodyToken)\\"}"}},
               "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                 "headers": [{"name": "Content-Type", "value": "application/json"},
                             {"name": "Set-Cookie", "value": "sid=\(cookie); HttpOnly"},
                             {"name": "Link", "value": "<http://127.0.0.1:8080/api/search?page=2&access_token=\(linkToken)>; rel=\\"next\\""}],
                 "cookies": [], "content": {"size": 60, "mimeType": "application/json", "encoding": "base64",
                                            "text": "\(responseBody)"},
                 "redirectURL": "", "headersSize": -1, "bodySize": -1},
               "cache": {}, "timings": {"wait": 4}}
            ]}}
            """
    }

    @Test func noSecretReachesAnyFileWrittenByRecordOrImportHAR() async throws {
        try await RecipesServer.with(RecipesServer.Configuration(apiKey: Self.apiKey)) { server in
            try await check(server)
        }
    }

    private func check(_ server: RecipesServer) async throws {
        let folder = try TemporaryFolder.make("redaction-e2e")
        let project = folder.appendingPathComponent("project", isDirectory: true)
        let input = folder.appendingPathComponent("input", isDirectory: true)
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Data(Self.config.utf8).write(to: project.appendingPathComponent("apiprobe.yml"))
        try Data(Self.har.utf8).write(to: input.appendingPathComponent("session.har"))

        let environment = [
            "RECIPES_PORT": String(server.port), "API_KEY": Self.apiKey, "TOKEN": Self.bearer,
            "HEADER_KEY": Self.headerKey, "BODY_TOKEN": Self.bodyToken,
        ]
        let record = try await RecordCommandTests.run(
            ["record", "--config", "apiprobe.yml", "--snapshots"], environment: environment, in: project)
        #expect(record.status == 0, "\(record)")
        // The server checks the key: a 200 proves the secret was sent, not left out.
        #expect(record.standardOutput.contains("new       Stubs/recipes/search.json  200"), "\(record)")
        #expect(record.standardOutput.contains("new       Stubs/recipes/login.json  404"), "\(record)")

        let imported = try await RecordCommandTests.run(
            [
                "import", "har", input.appendingPathComponent("session.har").path, "--into", "Stubs/har",
                "--redact-key", "session_token",
            ],
            in: project)
        #expect(imported.status == 0, "\(imported)")

        let search = try Exchange.load(from: project.appendingPathComponent("Stubs/recipes/search.json"))
        #expect(
            search.metadata.redactions == [
                "request.query.key", "request.headers.Authorization", "request.headers.X-Api-Key",
            ])
        let login = try Exchange.load(from: project.appendingPathComponent("Stubs/recipes/login.json"))
        #expect(login.metadata.redactions.contains("request.body/session_token"), "\(login.metadata)")
        let har = try Exchange.load(from: project.appendingPathComponent("Stubs/har/post-api-search.json"))
        #expect(har.metadata.redactions.contains("response.headers.Set-Cookie"), "\(har.metadata)")
        #expect(har.metadata.redactions.contains("response.body/session_token"), "\(har.metadata)")

        let written = RecordCommandTests.contents(of: project)
        #expect(written.count == 7, "\(written.keys.sorted())")
        for (path, data) in written {
            for secret in Self.secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(path) holds the secret \(secret)")
            }
        }
        for output in [record.standardOutput, record.standardError, imported.standardOutput, imported.standardError] {
            for secret in Self.secrets { #expect(!output.contains(secret)) }
        }
    }
}
