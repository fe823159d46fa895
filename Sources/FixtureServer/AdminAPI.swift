import Foundation
import HTTPFixtures
import HTTPStubs
import HTTPTypes
import Hummingbird
import NIOCore

/// The control a UI test has over `apiprobe serve`, under the reserved prefix `/__apiprobe/` (never matched against
/// the fixtures). A path in a body may be a template (`/api/recipes/{id}`); it never has a query.
///
/// - `GET /__apiprobe/requests`: what the server received since it started or was last reset, in order:
///   `{"requests": [{"method", "url", "fixture", "status", "source"}], "dropped": 0}`. `source` says what
///   answered: `fixture`, `fault`, `example` (the description's), `proxy` (the live API; `fixture` names the
///   recording), `invalid` (a 400 of `--validate-requests`) or `miss` (`status` `null`). Credentials in URLs are
///   masked; the latest 10,000 are kept, `dropped` counts the others.
/// - `POST /__apiprobe/verify` with `{"method": "GET", "path": "/api/search", "count": 1}`: 200 with the requests
///   that match when exactly `count` were received (`"atLeast": 1` instead: that many or more), else 417 with the
///   count found and those requests. `"headers": {"X-Client": "ios"}`, `"query": {"q": "soup"}` (at least these
///   items) and `"body": {"qty": 1}` (a JSON body holding at least this) narrow the requests counted; a body over
///   64 KiB is not kept in the log, and such a request is counted as `unverifiable`, never as a match.
/// - `POST /__apiprobe/faults` with `{"method": "GET", "path": "/api/search", "status": 503, "delayMs": 0,
///   "times": 1}`: the next `times` requests with that method and path wait `delayMs`, then are answered `status`
///   with `{"error": "injected by apiprobe"}`; without a status, they are answered as usual after the delay.
/// - `GET /__apiprobe/scenarios`: `{"active": "outage", "scenarios": ["empty", "outage"]}`;
///   `POST /__apiprobe/scenario` with `{"name": "outage"}` (or `null` for none): that scenario's fixtures answer
///   over the others from the next request on, every sequence starting over; 404 naming the scenarios there are.
/// - `POST /__apiprobe/reset`: the fixtures read again, their sequences started over, the scenario of the start
///   active, every state machine in its initial state, the log and the faults cleared; 409 with the reason (file
///   and place) when the fixtures on disk do not load, and nothing reset.
/// - `POST /__apiprobe/reload`: the folder read again now, not up to 200 ms later: `{"fixtures": 22, "changed":
///   ["cart"]}`. Only the sequences whose fixtures changed start over; the log, the faults, the scenario and the
///   state machines stay. 409 with the reason when the folder does not load (the last good fixtures are served).
/// - `GET /__apiprobe/state`: `{"states": {"cart": "one item"}}`, each state machine a fixture moved;
///   `POST /__apiprobe/state` with `{"name": "cart", "state": "one item"}` puts one in a state.
enum AdminAPI {
    static let prefix = "/__apiprobe/"

    static let endpoints = [
        "GET \(prefix)requests", "POST \(prefix)verify", "POST \(prefix)faults", "GET \(prefix)scenarios",
        "POST \(prefix)scenario", "POST \(prefix)reset", "POST \(prefix)reload", "GET \(prefix)state",
        "POST \(prefix)state",
    ]

    /// One injected failure or delay.
    struct Fault: Sendable, Hashable {
        var method: String
        /// A path or a path template.
        var path: String
        /// `nil`: answered as usual, after ``delay``.
        var status: Int?
        var delay: Duration
        var remaining: Int

        func matches(path actual: String) -> Bool { AdminAPI.path(actual, fits: path) }
    }

    /// Whether a request's path is `pattern`, or fits it as a template (`/api/recipes/{id}`): segment by segment,
    /// each decoded, as fixtures match (`/api/%63art` is `/api/cart`; `/café` is `/caf%C3%A9`).
    static func path(_ actual: String, fits pattern: String) -> Bool {
        if actual == pattern { return true }
        let segments = decodedSegments(actual)
        if pattern.contains("{") { return PathTemplate.match(template: pattern, segments: segments) != nil }
        return segments == decodedSegments(pattern)
    }

    /// A path's segments, each percent-decoded (a `%2F` stays inside its segment).
    static func decodedSegments(_ path: String) -> [String] {
        PathTemplate.segments(path).map { $0.removingPercentEncoding ?? $0 }
    }

    static func respond(to request: Request, body: ByteBuffer, library: FixtureLibrary) -> Response {
        let path = request.uri.path
        switch (request.method, path) {
        case (.get, prefix + "requests"):
            let (entries, dropped) = library.served
            return FixtureResponder.json(
                status: .ok,
                .object([("requests", .array(entries.map(describe))), ("dropped", .number(String(dropped)))]))
        case (.post, prefix + "reset"):
            do {
                try library.reset()
            } catch {
                // Said, not swallowed: the fixtures on disk do not load, so nothing was reset.
                return FixtureResponder.json(status: .conflict, .object([("error", .string("not reset: \(error)"))]))
            }
            return FixtureResponder.json(status: .ok, .object([("reset", .bool(true))]))
        case (.post, prefix + "reload"):
            do {
                let reloaded = try library.reload()
                return FixtureResponder.json(
                    status: .ok,
                    .object([
                        ("fixtures", .number(String(reloaded.fixtureCount))),
                        ("changed", .array(reloaded.changed.map(JSONValue.string))),
                    ]))
            } catch {
                return FixtureResponder.json(
                    status: .conflict, .object([("error", .string("not reloaded: \(error)"))]))
            }
        case (.get, prefix + "state"):
            let states = library.current().machineStates
            return FixtureResponder.json(
                status: .ok,
                .object([
                    ("states", .object(states.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
                ]))
        case (.post, prefix + "state"):
            guard let members = object(body),
                case .string(let name)? = members.first(where: { $0.key == "name" })?.value,
                case .string(let value)? = members.first(where: { $0.key == "state" })?.value, !name.isEmpty,
                !value.isEmpty
            else { return badRequest(#"a JSON object {"name": "cart", "state": "one item"}"#) }
            library.current().setState(of: name, to: value)
            return FixtureResponder.json(status: .ok, .object([("name", .string(name)), ("state", .string(value))]))
        case (.post, prefix + "faults"):
            return addFault(body, library: library)
        case (.post, prefix + "verify"):
            return verify(body, library: library)
        case (.get, prefix + "scenarios"):
            let (active, all) = library.scenarios
            return FixtureResponder.json(
                status: .ok,
                .object([
                    ("active", active.map(JSONValue.string) ?? .null), ("scenarios", .array(all.map(JSONValue.string))),
                ]))
        case (.post, prefix + "scenario"):
            guard let members = object(body), let name = members.first(where: { $0.key == "name" })?.value else {
                return badRequest(#"a JSON object {"name": "outage"}, or {"name": null} for none"#)
            }
            let scenario: String?
            switch name {
            case .string(let text): scenario = text
            case .null: scenario = nil
            default: return badRequest(#"a JSON object {"name": "outage"}, or {"name": null} for none"#)
            }
            do {
                try library.activate(scenario)
            } catch {
                return FixtureResponder.json(status: .notFound, .object([("error", .string(error.description))]))
            }
            return FixtureResponder.json(status: .ok, .object([("active", scenario.map(JSONValue.string) ?? .null)]))
        default:
            return FixtureResponder.json(
                status: .notFound,
                .object([
                    ("error", .string("not an admin endpoint")),
                    ("endpoints", .array(endpoints.map(JSONValue.string))),
                ]))
        }
    }

    /// One entry of the log as the admin API shows it (credentials in the URL masked).
    static func describe(_ entry: ServedEntry) -> JSONValue {
        .object([
            ("method", .string(entry.method)),
            ("url", .string(Redactor().redactURL(entry.target))),
            ("fixture", entry.fixture.map { .string($0) } ?? .null),
            ("status", entry.status.map { .number(String($0)) } ?? .null),
            ("source", .string(entry.source.rawValue)),
        ])
    }

    static func object(_ body: ByteBuffer) -> [(key: String, value: JSONValue)]? {
        guard let value = try? JSONValue(parsing: Data(body.readableBytesView)), case .object(let members) = value
        else { return nil }
        return members
    }

    static func badRequest(_ expected: String) -> Response {
        FixtureResponder.json(status: .badRequest, .object([("error", .string("expected \(expected)"))]))
    }

    /// The method (default `GET`, upper case) and path of a body; `nil` for a path that does not start with `/`.
    static func route(_ members: [(key: String, value: JSONValue)]) -> (method: String, path: String)? {
        guard case .string(let path)? = members.first(where: { $0.key == "path" })?.value, path.hasPrefix("/"),
            !path.contains("?")
        else { return nil }
        var method = "GET"
        if case .string(let given)? = members.first(where: { $0.key == "method" })?.value { method = given }
        return (method.uppercased(), path)
    }

    /// A whole number in `range` at `key`: `.some(nil)` when absent, `nil` when it is not such a number.
    static func integer(
        _ key: String, in members: [(key: String, value: JSONValue)], _ range: ClosedRange<Int>
    ) -> Int?? {
        guard let value = members.first(where: { $0.key == key })?.value else { return .some(nil) }
        guard case .number(let text) = value, let number = Int(text), range.contains(number) else { return nil }
        return .some(number)
    }

    /// The most faults waiting at once: each request is compared with every pending one.
    static let maximumFaults = 1_000

    static func addFault(_ body: ByteBuffer, library: FixtureLibrary) -> Response {
        let expected =
            #"a JSON object {"method": "GET", "path": "/api/search", "status": 503, "delayMs": 0, "times": 1}"#
            + " (a path without a query; status 200-599 or delayMs 1-600000, or both; times 1-1000000)"
        guard let members = object(body), let (method, path) = route(members),
            let status = integer("status", in: members, 200...599),
            let delay = integer("delayMs", in: members, 0...600_000),
            let times = integer("times", in: members, 1...1_000_000),
            status != nil || (delay ?? 0) > 0
        else { return badRequest(expected) }
        guard library.faultCount < maximumFaults else {
            return FixtureResponder.json(
                status: .tooManyRequests,
                .object([
                    (
                        "error",
                        .string(
                            "expected at most \(maximumFaults) pending faults, found \(library.faultCount) (reset them "
                                + "with POST \(prefix)reset)")
                    )
                ]))
        }
        library.addFault(
            Fault(
                method: method, path: path, status: status, delay: .milliseconds(delay ?? 0), remaining: times ?? 1))
        return FixtureResponder.json(status: .created, .object([("faults", .number(String(library.faultCount)))]))
    }

    /// The keys a verification may hold: a misspelt one is a 400, never a condition silently left out.
    static let verifyKeys: Set<String> = ["method", "path", "count", "atLeast", "headers", "query", "body"]

    static func verify(_ body: ByteBuffer, library: FixtureLibrary) -> Response {
        let expected =
            #"a JSON object {"method": "GET", "path": "/api/search", "count": 1} (or "atLeast": 1 instead of "count"; "#
            + #"optionally "headers": {"Accept": "application/json"}, "query": {"q": "soup"} and "body": a JSON value "#
            + "the request's JSON body holds)"
        guard let members = object(body), let (method, path) = route(members),
            let count = integer("count", in: members, 0...Int.max),
            let atLeast = integer("atLeast", in: members, 0...Int.max),
            (count == nil) != (atLeast == nil)
        else { return badRequest(expected) }
        if let unknown = members.first(where: { !verifyKeys.contains($0.key) }) {
            return badRequest("\(expected); found the key \"\(unknown.key)\"")
        }
        // The other conditions, as the stubs' matcher reads them (names of headers in any case, a query or a body
        // holding at least these).
        var matcher = RequestMatcher()
        for key in ["headers", "query"] {
            guard let value = members.first(where: { $0.key == key })?.value else { continue }
            guard case .object(let pairs) = value else { return badRequest("\(expected); \"\(key)\" is not an object") }
            var strings: [String: String] = [:]
            for pair in pairs {
                guard case .string(let text) = pair.value else {
                    return badRequest("\(expected); \"\(key)/\(pair.key)\" is not a string")
                }
                strings[pair.key] = text
            }
            if key == "headers" {
                for (name, text) in strings.sorted(by: { $0.key < $1.key }) { matcher = matcher.header(name, text) }
            } else {
                matcher = matcher.query(strings)
            }
        }
        let bodyCondition = members.first(where: { $0.key == "body" })?.value
        if let bodyCondition { matcher = matcher.jsonBody(bodyCondition, subset: true) }
        let (entries, dropped) = library.served
        var unverifiable = 0
        let matching = entries.filter { entry in
            guard entry.method == method, Self.path(entry.path, fits: path) else { return false }
            if bodyCondition != nil, entry.bodyOmitted {
                unverifiable += 1
                return false
            }
            guard !matcher.conditions.isEmpty else { return true }
            let request = entry.stubRequest
            return matcher.conditions.allSatisfy { $0.evaluate(request) == nil }
        }
        let holds = count.map { matching.count == $0 } ?? (matching.count >= atLeast ?? 0)
        var answer: [(key: String, value: JSONValue)] = [
            ("count", .number(String(matching.count))), ("requests", .array(matching.map(describe))),
        ]
        if unverifiable > 0 { answer.append(("unverifiable", .number(String(unverifiable)))) }
        guard holds else {
            let wanted = count.map { "exactly \($0)" } ?? "at least \(atLeast ?? 0)"
            let conditions = matcher.conditions.isEmpty ? "" : " with \(matcher.description)"
            var message = "expected \(wanted) \(method) \(path)\(conditions), found \(matching.count)"
            if dropped > 0 { message += " (\(dropped) older requests are no longer in the log)" }
            if unverifiable > 0 {
                message += " (\(unverifiable) whose body was over \(ServedEntry.bodyLimit) bytes could not be compared)"
            }
            if matching.isEmpty, !entries.isEmpty {
                let others = entries.suffix(5).map { "\($0.method) \(Redactor().redactURL($0.target))" }
                message += "; the latest requests: " + others.joined(separator: ", ")
            }
            answer.insert(("error", .string(Redactor().redact(text: message))), at: 0)
            return FixtureResponder.json(status: .expectationFailed, .object(answer))
        }
        return FixtureResponder.json(status: .ok, .object(answer))
    }
}
