import Foundation
import HTTPFixtures

/// Responses, errors, retries and rate-limited samples per endpoint, summed over every run that shares a history
/// file (kept beside it: `history.totals.json`), or over the rounds of one process without one: the values of the
/// Prometheus counters, which must never go back when cron starts a new process.
package struct RunningTotals: Sendable, Hashable {
    package struct Endpoint: Sendable, Hashable {
        var statusCodes: [Int: Int] = [:]
        var errors = 0
        var retries = 0
        var rateLimited = 0
    }

    /// By endpoint name.
    package private(set) var endpoints: [String: Endpoint] = [:]

    package init() {}

    /// The totals file beside a history file: `history.jsonl` → `history.totals.json`.
    static func url(besideHistory history: URL) -> URL { StateFile.url("totals", besideHistory: history) }

    /// `{"endpoints": {"search": {"codes": {"200": 10}, "errors": 0, "rateLimited": 0, "retries": 1}}, "version": 1}`.
    func encoded() -> Data {
        let members: [(key: String, value: JSONValue)] = endpoints.keys.sorted().map { name in
            let totals = endpoints[name] ?? Endpoint()
            let codes: [(key: String, value: JSONValue)] = totals.statusCodes.keys.sorted().map {
                (String($0), .number(String(totals.statusCodes[$0] ?? 0)))
            }
            return (
                name,
                .object([
                    ("codes", .object(codes)), ("errors", .number(String(totals.errors))),
                    ("rateLimited", .number(String(totals.rateLimited))), ("retries", .number(String(totals.retries))),
                ])
            )
        }
        return JSONValue.object([("endpoints", .object(members)), ("version", .number("1"))]).serialized()
            + Data("\n".utf8)
    }

    /// Reads what ``encoded()`` writes; `nil` for anything else.
    init?(decoding data: Data) {
        guard let document = try? JSONValue(parsing: data), case .object(let members)? = document["endpoints"]
        else { return nil }
        func count(_ value: JSONValue?) -> Int? {
            guard case .number(let literal)? = value, let number = Int(literal), number >= 0 else { return nil }
            return number
        }
        for (name, value) in members {
            guard case .object(let codes)? = value["codes"], let errors = count(value["errors"]),
                let retries = count(value["retries"]), let rateLimited = count(value["rateLimited"])
            else { return nil }
            var totals = Endpoint(errors: errors, retries: retries, rateLimited: rateLimited)
            for (code, number) in codes {
                guard let status = Int(code), let number = count(number) else { return nil }
                totals.statusCodes[status] = number
            }
            endpoints[name] = totals
        }
    }

    /// Adds a round's counts.
    package mutating func add(_ result: ProbeRunResult) {
        for endpoint in result.endpoints {
            var totals = endpoints[endpoint.name] ?? Endpoint()
            totals.statusCodes.merge(endpoint.statusCodes) { $0 + $1 }
            totals.errors += endpoint.errors
            totals.retries += endpoint.retries
            totals.rateLimited += endpoint.rateLimited
            endpoints[endpoint.name] = totals
        }
    }
}
