import Foundation
import HTTPFixtures
import HTTPStubs
import HTTPTypes
import Hummingbird
import NIOCore

/// The control a UI test has over `apiprobe serve`, under the reserved prefix `/__apiprobe/` (never matched against
/// the fixtures):
///
/// - `GET /__apiprobe/requests`: what the server received since the fixtures were last read (at the start, on a
///   reset, or when a changed file was read again), in order: `{"requests": [{"method", "url", "fixture",
///   "status"}], "dropped": 0}` (`fixture` and `status` `null` for a miss, `fixture` `null` and the status for an
///   injected fault; credentials in URLs masked).
/// - `POST /__apiprobe/faults` with `{"method": "GET", "path": "/api/search", "status": 503, "times": 1}`: the next
///   `times` requests with that method and path are answered `status` with `{"error": "injected by apiprobe"}`.
/// - `POST /__apiprobe/reset`: the fixtures read again, their sequences started over, the log and the faults
///   cleared; 409 with the reason (file and place) when the fixtures on disk do not load, and nothing reset.
enum AdminAPI {
    static let prefix = "/__apiprobe/"

    /// One injected failure.
    struct Fault: Sendable, Hashable {
        var method: String
        var path: String
        var status: Int
        var remaining: Int
    }

    static func respond(to request: Request, body: ByteBuffer, library: FixtureLibrary) -> Response {
        let path = request.uri.path
        let redactor = Redactor()
        switch (request.method, path) {
        case (.get, prefix + "requests"):
            let entries = library.current().log.map { entry -> JSONValue in
                let target = entry.request.url.path + (entry.request.url.query.map { "?" + $0 } ?? "")
                return .object([
                    ("method", .string(entry.request.method)),
                    ("url", .string(redactor.redactURL(target))),
                    ("fixture", entry.stub.map { .string($0.name) } ?? .null),
                    ("status", entry.status.map { .number(String($0)) } ?? .null),
                ])
            }
            return FixtureResponder.json(
                status: .ok,
                .object([
                    ("requests", .array(entries)),
                    ("dropped", .number(String(library.current().droppedRequestCount))),
                ]))
        case (.post, prefix + "reset"):
            do {
                try library.reset()
            } catch {
                // Said, not swallowed: the fixtures on disk do not load, so nothing was reset.
                return FixtureResponder.json(status: .conflict, .object([("error", .string("not reset: \(error)"))]))
            }
            return FixtureResponder.json(status: .ok, .object([("reset", .bool(true))]))
        case (.post, prefix + "faults"):
            let expected =
                #"a JSON object {"method": "GET", "path": "/api/search", "status": 503, "times": 1}"#
                + " (status 200-599)"
            guard let value = try? JSONValue(parsing: Data(body.readableBytesView)),
                case .object(let members) = value,
                case .string(let faultPath)? = members.first(where: { $0.key == "path" })?.value,
                faultPath.hasPrefix("/"),
                case .number(let statusText)? = members.first(where: { $0.key == "status" })?.value,
                let status = Int(statusText), (200...599).contains(status)
            else {
                return FixtureResponder.json(status: .badRequest, .object([("error", .string("expected \(expected)"))]))
            }
            var method = "GET"
            if case .string(let given)? = members.first(where: { $0.key == "method" })?.value { method = given }
            var times = 1
            if case .number(let text)? = members.first(where: { $0.key == "times" })?.value {
                guard let count = Int(text), (1...1_000_000).contains(count) else {
                    return FixtureResponder.json(
                        status: .badRequest, .object([("error", .string("expected times from 1 to 1000000"))]))
                }
                times = count
            }
            library.addFault(Fault(method: method.uppercased(), path: faultPath, status: status, remaining: times))
            return FixtureResponder.json(status: .created, .object([("faults", .number(String(library.faultCount)))]))
        default:
            return FixtureResponder.json(
                status: .notFound,
                .object([
                    ("error", .string("not an admin endpoint")),
                    (
                        "endpoints",
                        .array(
                            ["GET \(prefix)requests", "POST \(prefix)faults", "POST \(prefix)reset"].map(
                                JSONValue.string))
                    ),
                ]))
        }
    }
}
