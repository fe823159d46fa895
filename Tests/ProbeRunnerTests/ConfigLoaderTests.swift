import Foundation
import HTTPFixtures
import Testing

@testable import ProbeRunner

@Suite("Config loading")
struct ConfigLoaderTests {
    static let full = """
        api: recipes
        baseURL: http://127.0.0.1:${RECIPES_PORT:-8080}
        concurrency: 4
        rateLimit: 50
        deadline: 60s
        downAfter: 2
        regression: {window: 5, factor: 2, minimumRuns: 2}
        redact: [password]
        defaults:
          headers: {Accept: application/json}
          samples: 3
          timeout: 5s
          retries: 1
          expect:
            status: 2xx
            latency: [p95 < 1s]
        endpoints:
          - name: search
            path: /api/search
            query: {q: chicken, page: 1}
            headers: {X-Api-Key: "${RECIPES_API_KEY:-}"}
            samples: 5
            timeout: 1.5s
            expect:
              status: [200, 204]
              headers:
                Content-Type: application/json
                X-Trace: {matches: "^[a-z]+$"}
                Date: {exists: true}
              body:
                - /count > 0
                - /recipes length >= 1
                - /recipes/0/title exists
                - /recipes/0/recipe_id matches ^[0-9]+$
                - /recipes/0/publisher == "Closet Cooking"
              schema: true
              latency: [p50 < 100ms, p95 < 300ms]
          - name: create
            method: post
            url: https://example.test/api/create
            body: {title: Soup, rank: 1.50}
            expect:
              schema: {snapshot: Custom/create.json, failOn: warning}
        history: {keep: 30d, maxSize: 50MB}

        """

    func parse(_ text: String, environment: [String: String] = [:]) throws -> ProbeConfig {
        try ProbeConfig.parse(Data(text.utf8), environment: environment, file: "apiprobe.yml")
    }

    func parseError(_ text: String, environment: [String: String] = [:]) -> InputError? {
        do {
            _ = try ProbeConfig.parse(Data(text.utf8), environment: environment, file: "apiprobe.yml")
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryKey() throws {
        let config = try parse(Self.full, environment: ["RECIPES_PORT": "9123"])
        #expect(config.api == "recipes")
        #expect(config.baseURL?.absoluteString == "http://127.0.0.1:9123")
        #expect(config.concurrency == 4)
        #expect(config.requestsPerSecondPerHost == 50)
        #expect(config.deadline == .seconds(60))
        #expect(config.downAfter == 2)
        #expect(config.regression == RegressionPolicy(window: 5, factor: 2, minimumRuns: 2))
        #expect(config.historyRetention == HistoryRetention(keep: .seconds(30 * 86_400), maxBytes: 50_000_000))
        #expect(config.redactBodyFields == ["password"])
        #expect(config.endpoints.count == 2)

        let search = config.endpoints[0]
        #expect(search.name == "search")
        #expect(search.method == "GET")
        #expect(search.query == [QueryItem(name: "q", value: "chicken"), QueryItem(name: "page", value: "1")])
        #expect(search.headers == ["Accept": "application/json", "X-Api-Key": ""])
        #expect(search.samples == 5)
        #expect(search.timeout == .milliseconds(1_500))
        #expect(search.retries == 1)
        #expect(search.position.line == 18)
        let expect = search.expectations
        #expect(expect.status.ranges == [200...200, 204...204])
        #expect(
            expect.headers == [
                HeaderExpectation(name: "Content-Type", rule: .equals("application/json")),
                HeaderExpectation(name: "X-Trace", rule: .matches("^[a-z]+$")),
                HeaderExpectation(name: "Date", rule: .exists),
            ])
        #expect(expect.body.map(\.op) == [.greater, .length, .exists, .matches, .equal])
        #expect(expect.body[1].lengthOperator == .greaterOrEqual)
        #expect(expect.body[4].operand == .string("Closet Cooking"))
        #expect(expect.schema == SchemaExpectation(snapshot: "Snapshots/recipes/search.schema.json"))
        #expect(
            expect.latency == [
                LatencyBudget(percentile: 50, limit: .milliseconds(100)),
                LatencyBudget(percentile: 95, limit: .milliseconds(300)),
            ])

        let create = config.endpoints[1]
        #expect(create.method == "POST")
        #expect(create.body == .json(.object([("title", .string("Soup")), ("rank", .number("1.50"))])))
        #expect(create.samples == 3)
        #expect(create.timeout == .seconds(5))
        // Keys the endpoint leaves out come from defaults.expect.
        #expect(create.expectations.status == .success)
        #expect(create.expectations.latency == [LatencyBudget(percentile: 95, limit: .seconds(1))])
        #expect(
            create.expectations.schema == SchemaExpectation(snapshot: "Custom/create.json", failOn: "warning"))
    }

    @Test func jsonConfigIsAccepted() throws {
        let config = try parse(
            #"{"api": "x", "baseURL": "http://127.0.0.1:1", "endpoints": [{"name": "a", "path": "/a", "samples": 2}]}"#
        )
        #expect(config.endpoints.map(\.name) == ["a"])
        #expect(config.endpoints[0].samples == 2)
    }

    @Test func errorsNameFileLineAndKeyPath() throws {
        let text = Self.full.replacingOccurrences(of: "p95 < 300ms]", with: "p95 < soon]")
        let error = try #require(parseError(text))
        #expect(error.file == "apiprobe.yml")
        #expect(error.position.line == 37)
        #expect(error.key == "endpoints.search.expect.latency[1]")
        #expect(error.description.hasPrefix("apiprobe.yml:37:30:"))
        #expect(error.description.contains("p95 < 300ms"))
    }

    @Test func unknownKeySuggestsTheClosest() throws {
        let error = try #require(
            parseError(
                """
                api: x
                baseURL: http://127.0.0.1:1
                endpoints:
                  - name: a
                    path: /a
                    sampels: 3
                """))
        #expect(error.position.line == 6)
        #expect(error.position.column == 5)
        #expect(error.key == "endpoints.a.sampels")
        #expect(error.expected.contains("did you mean \"samples\""))
    }

    @Test func missingVariableIsNamedWithItsLine() throws {
        let error = try #require(
            parseError(
                """
                api: x
                # ${NOT_READ_IN_COMMENTS}
                baseURL: http://127.0.0.1:${PORT}
                endpoints: [{name: a, path: /a}]
                """))
        #expect(error.position.line == 3)
        #expect(error.key == "${PORT}")
        #expect(error.description.contains("PORT"))
    }

    /// A trailing comment is not read (an unset variable there is no error), but a `#` inside quotes or
    /// in a block scalar is text, and variables after it are substituted.
    @Test func trailingCommentsAreNotReadButQuotedAndBlockTextIs() throws {
        let text = """
            api: x   # ${UNSET_IN_A_COMMENT}
            baseURL: http://127.0.0.1:${PORT:-7000}  # port: ${ALSO_UNSET}
            endpoints:
              - name: a
                path: "/a#frag ${TOKEN}"   # ${UNSET_AGAIN}
                headers: {X-Note: 'it''s # ${TOKEN}'}
                method: POST
                body: |
                  line # ${TOKEN}
                    # ${TOKEN} indented
                  end
              - name: b
                path: /b#${TOKEN}
            """
        let config = try parse(text, environment: ["TOKEN": "s3cret"])
        #expect(config.baseURL?.port == 7000)
        #expect(config.endpoints[0].path == "/a#frag s3cret")
        #expect(config.endpoints[0].headers["X-Note"] == "it's # s3cret")
        #expect(config.endpoints[0].body == .text("line # s3cret\n  # s3cret indented\nend\n"))
        #expect(config.endpoints[1].path == "/b#s3cret")
    }

    @Test func variablesUseDefaultsAndEnvironment() throws {
        let text = """
            api: x
            baseURL: http://127.0.0.1:${PORT:-7000}
            endpoints: [{name: a, path: "/a?token=${TOKEN}&lit=$${X}"}]
            """
        let config = try parse(text, environment: ["TOKEN": "s3cret"])
        #expect(config.baseURL?.port == 7000)
        #expect(config.endpoints[0].path == "/a?token=s3cret&lit=${X}")
    }

    @Test(arguments: [
        ("concurrency: 0", "concurrency", "a whole number from 1 to 1000"),
        ("deadline: soon", "deadline", "a duration like 300ms, 1.5s or 2m"),
        ("baseURL: ftp://x", "baseURL", "an absolute http(s) URL"),
        ("history: {keep: 10s}", "history.keep", "an age like 30d or 12h (at least 1m)"),
        ("history: {keep: forever}", "history.keep", "an age like 30d or 12h (at least 1m)"),
        ("history: {maxSize: 1KB}", "history.maxSize", "a size like 50MB or 1GiB (from 64KiB)"),
    ])
    func badTopLevelValues(line: String, key: String, expected: String) throws {
        let text = "api: x\n\(line)\nendpoints: [{name: a, url: \"http://127.0.0.1:1/a\"}]\n"
        let error = try #require(parseError(text))
        #expect(error.position.line == 2)
        #expect(error.key == key)
        #expect(error.expected == expected)
    }

    @Test func badExpectationsAreRejected() throws {
        func expectError(_ expect: String) -> InputError? {
            parseError(
                "api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - name: a\n    path: /a\n    expect: \(expect)\n")
        }
        #expect(expectError("{status: 2zz}")?.key == "endpoints.a.expect.status")
        #expect(expectError("{body: [/count ~ 3]}")?.key == "endpoints.a.expect.body[0]")
        #expect(expectError("{body: [count > 3]}")?.key == "endpoints.a.expect.body[0]")
        #expect(expectError("{body: [/count > many]}")?.expected == "a number after >")
        #expect(expectError("{schema: {failOn: never}}")?.key == "endpoints.a.expect.schema.failOn")
        #expect(expectError("{headers: {X: {matches: \"(\"}}}")?.key == "endpoints.a.expect.headers.X.matches")
        #expect(expectError("{statuss: 200}")?.expected.contains("did you mean \"status\"") == true)
    }

    @Test func duplicateNamesAndMissingPathsAreErrors() throws {
        let duplicate = try #require(
            parseError(
                "api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - {name: a, path: /a}\n  - {name: a, path: /b}\n"))
        #expect(duplicate.position.line == 5)
        #expect(duplicate.expected == "a unique name")
        let noPath = try #require(parseError("api: x\nbaseURL: http://127.0.0.1:1\nendpoints:\n  - name: a\n"))
        #expect(noPath.key == "endpoints.a.path")
        let noBase = try #require(parseError("api: x\nendpoints:\n  - {name: a, path: /a}\n"))
        #expect(noBase.key == "endpoints.a.path")
        #expect(noBase.position.line == 3)
    }

    @Test func yamlSyntaxErrorsHaveLineAndColumn() throws {
        let error = try #require(parseError("api: x\nendpoints: [\n  {name: a\n"))
        // The flow mapping opened on line 3 is still open where the input ends: line 4, column 1.
        #expect(error.position.line == 4)
        #expect(error.position.column == 1)
        // The key where the broken part began is named (issue 38, item 11), not only the line.
        #expect(error.key == "endpoints (syntax)")
        #expect(
            error.description
                == "apiprobe.yml:4:1: endpoints (syntax): expected valid YAML or JSON, found no ',' or '}' where one was expected, while parsing a flow mapping"
        )
        // libyaml's own words start with their verb: put after ours they read "found found character" (issue 37).
        let character = try #require(parseError("api: x\nendpoints:\n  - name: a\n    path: `/x\n"))
        #expect(
            character.description
                == "apiprobe.yml:4:11: endpoints.a.path (syntax): expected valid YAML or JSON, found a character that cannot start any token (\"`\"), while scanning for the next token"
        )
        #expect(!character.description.contains("found found"))
        let nested = try #require(
            parseError("api: x\nendpoints:\n  - name: search\n    url: http://h/x\n    expect: {status: [200\n"))
        #expect(nested.key == "endpoints.search.expect.status (syntax)", "\(nested)")
        let item = try #require(
            parseError("api: x\nendpoints:\n  - {name: orders, url: \"http://h:1/x\", expect: {status: [200}\n"))
        #expect(item.key == "endpoints.orders.expect.status (syntax)", "\(item)")
        // A list written at its key's own column, and an item that is not the first.
        let column = try #require(
            parseError(
                "api: x\nendpoints:\n- name: a\n  url: http://h/a\n- name: b\n  url: http://h/b\n  expect:\n    body: [/a == 1\n"
            ))
        #expect(column.key == "endpoints.b.expect.body (syntax)", "\(column)")
    }

    @Test func durationsParse() {
        #expect(ConfigReader.parseDuration("300ms") == .milliseconds(300))
        #expect(ConfigReader.parseDuration("1.5s") == .milliseconds(1_500))
        #expect(ConfigReader.parseDuration("2m") == .seconds(120))
        #expect(ConfigReader.parseDuration("30d") == .seconds(30 * 86_400))
        #expect(ConfigReader.parseDuration("5") == nil)
        #expect(ConfigReader.parseDuration("-1s") == nil)
    }

    @Test func loadingAMissingFileNamesIt() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/apiprobe.yml")
        #expect(throws: InputError.self) { try ProbeConfig.load(contentsOf: url) }
    }
}
