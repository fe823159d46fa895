import APIProbeEchoServer
import APIProbeTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import ProbeTestSupport
#endif

/// Planted secrets go to a server that echoes every one of them back (headers, JSON, HTML, multipart, JSON
/// nested past the reader's limit) and hands out its own; then through every report kind, the history, the
/// step summary, a push to the real Pushgateway, `record` and `import har`. Not one byte of them may reach a
/// file the tool writes, its standard output or its standard error.
@Suite(.tags(.outsideTools), .hangGuard, .temporaryFolder)
struct SecretsEndToEndTests {
    static let token = "envtoken-PLANT-1111"
    static let apiKey = "envapikey-PLANT-2222"
    static let subscriptionKey = "subkey-PLANT-3333"
    static let cookie = "cookie-PLANT-4444"
    static let password = "bodypass-PLANT-5555"
    static let serverToken = "servertoken-PLANT-6666"
    static let serverCookie = "servercookie-PLANT-7777"
    static let gatewayPassword = "pgpass-PLANT-8888"
    static let literalKey = "literal-PLANT-9999"
    static let urlPassword = "urlpass-PLANT-AAAA"
    static let fragmentToken = "fragtoken-PLANT-BBBB"
    static let harPassword = "harpass-PLANT-CCCC"
    static let plants = [
        token, apiKey, subscriptionKey, cookie, password, serverToken, serverCookie, gatewayPassword, literalKey,
        urlPassword, fragmentToken, harPassword,
    ]

    /// Secrets from the environment, and one written in the file (`X-Auth-Key`). Checks that fail print what
    /// they found: the echoed credentials.
    static let config = """
        api: echo
        baseURL: http://127.0.0.1:${ECHO_PORT}
        redact: [session_hint]
        defaults:
          timeout: 60s                  # the echo server shares the test's threads with every other suite
          headers:
            Authorization: Bearer ${TOKEN}
            Ocp-Apim-Subscription-Key: ${SUB_KEY}
            Cookie: sid=${COOKIE}
            X-Auth-Key: literal-PLANT-9999
        endpoints:
          - name: json
            path: /json/echo
            query: {api_key: "${API_KEY}", q: soup}
            expect:
              headers:
                Set-Cookie: nope
                X-Echo-Authorization: nope
              body:
                - /headers/Authorization == "Bearer ${TOKEN}"
                - /headers/Authorization == "nope"
                - /refresh_token == "nope"
                - /url == "nope"
          - name: html
            path: /html/page
            query: {api_key: "${API_KEY}"}
            expect:
              status: 201
              body:
                - /title exists
          - name: multipart
            method: POST
            path: /multipart/form
            body: {user: ann, Password: "${BODY_PASSWORD}"}
          - name: deep
            path: /deep/nest
          - name: userinfo
            url: http://probe:${URL_PASS}@127.0.0.1:${ECHO_PORT}/json/userinfo
            expect:
              body:
                - /headers/authorization == "nope"

        """

    /// Entries with user-info, a fragment, credentials in headers, an HTML echo, a multipart form body and a
    /// JSON body nested past the reader's limit.
    static func har(port: Int) -> String {
        func entry(_ method: String, _ url: String, requestBody: String?, mime: String, responseBody: String) -> String
        {
            let post =
                requestBody.map {
                    #", "postData": {"mimeType": "\#(mime)", "text": \#(jsonString($0))}"#
                } ?? ""
            return """
                {"startedDateTime": "2026-11-22T18:00:00.000Z", "time": 5,
                 "request": {"method": "\(method)", "url": \(jsonString(url)), "httpVersion": "HTTP/1.1",
                   "headers": [{"name": "Authorization", "value": "Bearer \(token)"},
                               {"name": "Cookie", "value": "sid=\(cookie)"},
                               {"name": "Content-Type", "value": \(jsonString(mime))}]\(post)},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                   "headers": [{"name": "Content-Type", "value": \(jsonString(mime))},
                               {"name": "Set-Cookie", "value": "session=\(serverCookie); HttpOnly"}],
                   "content": {"size": 1, "mimeType": \(jsonString(mime)), "text": \(jsonString(responseBody))}}}
                """
        }
        let deep =
            String(repeating: "{\"a\":", count: 600) + "{\"token\": \"\(serverToken)\"}"
            + String(repeating: "}", count: 600)
        let multipart =
            "--b1\r\nContent-Disposition: form-data; name=\"client_secret\"\r\n\r\n\(harPassword)\r\n--b1--\r\n"
        let entries = [
            entry(
                "GET", "http://probe:\(urlPassword)@127.0.0.1:\(port)/html/page#access_token=\(fragmentToken)&x=1",
                requestBody: nil, mime: "text/html",
                responseBody: "<p>Bearer \(token) \(fragmentToken) \(urlPassword)</p>"),
            entry(
                "POST", "http://127.0.0.1:\(port)/multipart/form?api_key=\(apiKey)", requestBody: multipart,
                mime: "multipart/form-data; boundary=b1", responseBody: "<p>\(harPassword)</p>"),
            entry(
                "GET", "http://127.0.0.1:\(port)/deep/nest", requestBody: nil, mime: "application/json",
                responseBody: deep),
        ]
        return #"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": ["#
            + entries.joined(separator: ",\n") + "]}}"
    }

    static func jsonString(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }

    @Test func noPlantedSecretReachesAnyFileOrOutput() async throws {
        guard let binary = ExternalTools.pushgateway else {
            ExternalTools.recordMissing("prometheus-pushgateway", package: "prometheus-pushgateway")
            return
        }
        try await EchoServer.with(serverToken: Self.serverToken, serverCookie: Self.serverCookie) { server in
            try await PushgatewayProcess.with(binary) { gateway in
                try await check(server: server, gateway: gateway)
            }
        }
    }

    private func check(server: EchoServer, gateway: LoopbackServerProcess) async throws {
        let folder = try TemporaryFolder.make("secrets-e2e")
        let project = folder.appendingPathComponent("project", isDirectory: true)
        let input = folder.appendingPathComponent("input", isDirectory: true)
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Data(Self.config.utf8).write(to: input.appendingPathComponent("apiprobe.yml"))
        try Data(Self.har(port: server.port).utf8).write(to: input.appendingPathComponent("session.har"))
        let relative =
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "/api/x?api_key=\#(Self.apiKey)"}, "response": {"status": 200}}]}}"#
        try Data(relative.utf8).write(to: input.appendingPathComponent("relative.har"))

        let gatewayURL = gateway.baseURL.absoluteString.replacingOccurrences(
            of: "http://", with: "http://probe:\(Self.gatewayPassword)@")
        let unreachable = "http://probe:\(Self.gatewayPassword)@127.0.0.1:\(try ExternalTools.freeLoopbackPort())"
        let environment = [
            "ECHO_PORT": String(server.port), "TOKEN": Self.token, "API_KEY": Self.apiKey,
            "SUB_KEY": Self.subscriptionKey, "COOKIE": Self.cookie, "BODY_PASSWORD": Self.password,
            "URL_PASS": Self.urlPassword,
            "GITHUB_STEP_SUMMARY": project.appendingPathComponent("summary.md").path,
        ]
        let config = input.appendingPathComponent("apiprobe.yml").path
        var results: [String: CommandResult] = [:]
        results["run"] = try await CommandLineRunner.run(
            [
                "run", "--config", config, "--report", "console", "--report", "markdown=-",
                "--report", "json=report.json", "--report", "junit=report.xml", "--report", "markdown=report.md",
                "--report", "prometheus=report.prom", "--history", "history.jsonl", "--push-gateway", gatewayURL,
            ],
            environment: environment, in: project)
        results["run-unreachable-gateway"] = try await CommandLineRunner.run(
            ["run", "--config", config, "--report", "json", "--push-gateway", unreachable],
            environment: environment, in: project)
        results["record"] = try await CommandLineRunner.run(
            ["record", "--config", config, "--snapshots"], environment: environment, in: project)
        results["import"] = try await CommandLineRunner.run(
            ["import", "har", input.appendingPathComponent("session.har").path, "--into", "Stubs/har"],
            in: project)
        results["import-relative"] = try await CommandLineRunner.run(
            ["import", "har", input.appendingPathComponent("relative.har").path], in: project)

        // The runs did what they were asked: secrets were sent and echoed, checks failed, files were written.
        let run = try #require(results["run"])
        #expect(run.status == 1, "\(run)")
        let json = try String(contentsOf: project.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(json.contains(#"/headers/Authorization == \"Bearer ${TOKEN}\""#), "\(json)")
        #expect(json.contains(#"found \"Bearer ${TOKEN}\""#), "\(json)")
        #expect(json.contains("?api_key=REDACTED"), "\(json)")
        #expect(json.contains("http://REDACTED@127.0.0.1"), "\(json)")
        #expect(
            results["run-unreachable-gateway"]?.standardError.contains(
                "could not push to the Pushgateway at http://REDACTED@127.0.0.1") == true)
        #expect(results["record"]?.status == 0, "\(results["record"]!)")
        #expect(results["import"]?.status == 0, "\(results["import"]!)")
        let relativeRun = try #require(results["import-relative"])
        #expect(relativeRun.status == 2)
        #expect(relativeRun.standardError.contains(#"found string "/api/x?api_key=REDACTED""#), "\(relativeRun)")
        let metrics = try await gateway.get("/metrics").0
        // The push is grouped by api and instance, so those labels come first in the gateway's exposition.
        #expect(metrics.contains(#"check="/headers/Authorization == \"Bearer ${TOKEN}\"""#), "\(metrics)")

        // Every file the tool wrote, wherever: reports, history and summary in the project, fixtures and
        // snapshots beside the config.
        let inputs = ["apiprobe.yml", "session.har", "relative.har"].map { input.appendingPathComponent($0).path }
        var written = [String: Data]()
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard !inputs.contains(url.path), let data = try? Data(contentsOf: url) else { continue }
            written[String(url.path.dropFirst(folder.path.count))] = data
        }
        #expect(
            Set(written.keys) == [
                "/project/report.json", "/project/report.xml", "/project/report.md", "/project/report.prom",
                "/project/history.jsonl", "/project/history.totals.json", "/project/history.totals.json.lock",
                "/project/summary.md", "/project/Stubs/har/get-html-page.json",
                "/project/Stubs/har/post-multipart-form.json", "/project/Stubs/har/get-deep-nest.json",
                "/input/Stubs/echo/json.json", "/input/Stubs/echo/html.json", "/input/Stubs/echo/multipart.json",
                "/input/Stubs/echo/deep.json", "/input/Stubs/echo/userinfo.json",
                "/input/Snapshots/echo/json.schema.json",
                "/input/Snapshots/echo/userinfo.schema.json",
            ], "\(written.keys.sorted())")
        written["pushgateway /metrics"] = Data(metrics.utf8)
        for (name, result) in results {
            written["\(name) standard output"] = Data(result.standardOutput.utf8)
            written["\(name) standard error"] = Data(result.standardError.utf8)
        }
        for (place, data) in written.sorted(by: { $0.key < $1.key }) {
            for plant in Self.plants {
                #expect(data.range(of: Data(plant.utf8)) == nil, "\(place) holds \(plant)")
            }
        }
    }
}
