import APIProbeShared
import Foundation
import HTTPFixtures
import JSONShape
import ProbeClient
import ProbeRunner

/// `--report json`: a stable format (part of the public API, README "Project status"); fields only ever get added.
///
/// ```json
/// {"passed": false, "startedAt": "2026-11-22T18:00:00Z", "endpoints": [{"name": "search", "passed": false,
///  "samples": 5, "errors": 0, "statusCodes": {"200": 5}, "latencyMs": {"min": 11.2, "p50": 12.0, ...},
///  "checks": [{"name": "latency p95 < 10ms", "passed": false, "message": "p95 was 15.0 ms"}]}]}
/// ```
///
/// Keys sorted, two-space indent, trailing newline; milliseconds rounded to 0.1. Additive fields: `durationMs`,
/// `configFile`, `hitDeadline`, `regressions`, `inMaintenance` (the endpoints a maintenance window left alone) at the top; per endpoint `method`, `url`, `timeToFirstByteMs`,
/// `retries`, `rateLimited`, `redirects`, `consecutiveFailures`, `down`, `failureCategory`, `schemaChanges`
/// (the change objects of `schema diff --format json`), `phasesMs` (statistics per phase: `dns`, `connect`, `tls`,
/// `processing`, `transfer`), `reusedConnections`, `tls` (the leaf certificate's `subject`, `issuer`, `notBefore`,
/// `notAfter` (the chain's earliest), `expiresFirst` (the subject of an intermediate that expires before the leaf, or
/// `null`), `expiresInDays`, `verified`, `insecure`, `failure`; `null` for http), `sampleDetails` (each sample's
/// `status`, `latencyMs`, `timeToFirstByteMs`, `phasesMs`, `connectionReused`, `redirects`, `failureCategory`,
/// `tlsFailure`, and for a `dns://` endpoint `dns`: its `rcode` and `records`, each `name`, `type`, `ttl`, `value`);
/// per check `category`. A `tcp://`, `tls://` or `dns://` endpoint's `method` is `TCP`, `TLS` or `DNS`.
enum JSONReport {
    static func render(_ result: ProbeRunResult) -> String {
        String(decoding: document(result).serialized(pretty: true, sortedKeys: true), as: UTF8.self) + "\n"
    }

    static func document(_ result: ProbeRunResult) -> JSONValue {
        .object([
            ("passed", .bool(result.passed)),
            ("startedAt", .string(DisplayText.timestamp(result.startedAt))),
            ("durationMs", milliseconds(result.duration.milliseconds)),
            ("configFile", .string(result.configFile)),
            ("hitDeadline", .bool(result.hitDeadline)),
            ("inMaintenance", .array(result.inMaintenance.map(JSONValue.string))),
            ("endpoints", .array(result.endpoints.map { endpoint($0, startedAt: result.startedAt) })),
            ("regressions", .array(result.regressions.map(regression))),
        ])
    }

    private static func endpoint(_ endpoint: EndpointResult, startedAt: Date) -> JSONValue {
        let codes = endpoint.statusCodes.sorted { $0.key < $1.key }
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(endpoint.name)),
            ("passed", .bool(endpoint.passed)),
            ("samples", integer(endpoint.samples.count)),
            ("errors", integer(endpoint.errors)),
            ("statusCodes", .object(codes.map { (String($0.key), integer($0.value)) })),
            ("latencyMs", endpoint.latency.map(stats) ?? .null),
            ("checks", .array(endpoint.checks.map(check))),
            ("method", .string(endpoint.method)),
            ("url", .string(endpoint.url)),
            ("timeToFirstByteMs", endpoint.timeToFirstByte.map(stats) ?? .null),
            ("retries", integer(endpoint.retries)),
            ("rateLimited", integer(endpoint.rateLimited)),
            ("redirects", integer(endpoint.redirects)),
            ("consecutiveFailures", integer(endpoint.consecutiveFailures)),
            ("down", .bool(endpoint.isDown)),
            ("failureCategory", endpoint.failureCategory.map { .string($0.rawValue) } ?? .null),
            ("schemaChanges", .array(endpoint.schemaChanges.map(change))),
        ]
        members.append(("phasesMs", endpoint.phases.map(phaseStats) ?? .null))
        members.append(("reusedConnections", integer(endpoint.phases?.reusedConnections ?? 0)))
        members.append(("tls", endpoint.tls.map { tls($0, at: startedAt) } ?? .null))
        members.append(("sampleDetails", .array(endpoint.samples.map(sample))))
        return .object(members)
    }

    private static func phaseStats(_ phases: PhaseStats) -> JSONValue {
        .object(
            PhaseTimings.names.map { name -> (key: String, value: JSONValue) in
                (name, phases.phases[name].map(stats) ?? .null)
            })
    }

    private static func phaseTimings(_ phases: PhaseTimings) -> JSONValue {
        .object(
            phases.named.map { phase -> (key: String, value: JSONValue) in
                (phase.name, milliseconds(phase.duration.milliseconds))
            })
    }

    private static func tls(_ tls: TLSReport, at now: Date) -> JSONValue {
        .object([
            ("subject", .string(tls.subject)),
            ("issuer", .string(tls.issuer)),
            ("notBefore", .string(DisplayText.timestamp(tls.notBefore))),
            ("notAfter", .string(DisplayText.timestamp(tls.notAfter))),
            ("expiresFirst", tls.expiresFirst.map(JSONValue.string) ?? .null),
            ("expiresInDays", .number(DisplayText.decimal(tls.daysUntilExpiry(from: now)))),
            ("verified", .bool(tls.verified)),
            ("insecure", .bool(tls.insecure)),
            ("failure", tls.failure.map { .string($0.rawValue) } ?? .null),
        ])
    }

    private static func sample(_ sample: Sample) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        members.append(("status", sample.status.map(integer) ?? .null))
        members.append(("latencyMs", milliseconds(sample.latency.milliseconds)))
        members.append(("timeToFirstByteMs", sample.timeToFirstByte.map { milliseconds($0.milliseconds) } ?? .null))
        members.append(("phasesMs", sample.phases.map(phaseTimings) ?? .null))
        members.append(("connectionReused", .bool(sample.phases?.connectionReused ?? false)))
        members.append(("redirects", .array(sample.redirects.map(JSONValue.string))))
        members.append(("failureCategory", sample.failure.map { .string($0.category.rawValue) } ?? .null))
        members.append(("tlsFailure", sample.failure?.tlsReason.map { .string($0.rawValue) } ?? .null))
        if let answer = sample.dns {
            let records = answer.records.map { record -> JSONValue in
                .object([
                    ("name", .string(record.name)), ("type", .string(record.type.description)),
                    ("ttl", integer(Int(record.ttl))), ("value", .string(record.value)),
                ])
            }
            members.append(
                ("dns", .object([("rcode", .string(answer.rcode.description)), ("records", .array(records))])))
        }
        return .object(members)
    }

    private static func stats(_ stats: LatencyStats) -> JSONValue {
        .object([
            ("min", milliseconds(stats.min)), ("p50", milliseconds(stats.p50)), ("p90", milliseconds(stats.p90)),
            ("p95", milliseconds(stats.p95)), ("p99", milliseconds(stats.p99)), ("max", milliseconds(stats.max)),
            ("mean", milliseconds(stats.mean)),
        ])
    }

    private static func check(_ check: CheckResult) -> JSONValue {
        .object([
            ("name", .string(check.name)),
            ("passed", .bool(check.passed)),
            ("message", check.message.map(JSONValue.string) ?? .null),
            ("category", check.category.map { .string($0.rawValue) } ?? .null),
        ])
    }

    private static func change(_ change: SchemaChange) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("path", .string(change.path)),
            ("kind", .string(change.kind.rawValue)),
            ("severity", .string(change.severity.rawValue)),
            ("before", change.before.map(JSONValue.string) ?? .null),
            ("after", change.after.map(JSONValue.string) ?? .null),
        ]
        if let file = change.file { members.append(("file", .string(file))) }
        return .object(members)
    }

    private static func regression(_ regression: Regression) -> JSONValue {
        .object([
            ("endpoint", .string(regression.endpoint)),
            ("p95Ms", milliseconds(regression.p95)),
            ("baselineMedianMs", milliseconds(regression.baselineMedian)),
            ("factor", .number(DisplayText.trimmed(regression.factor))),
            ("runs", integer(regression.runs)),
        ])
    }

    /// Milliseconds rounded to 0.1, always with one decimal (`12.0`); `null` if not finite.
    private static func milliseconds(_ value: Double) -> JSONValue {
        value.isFinite ? .number(DisplayText.decimal(value, places: 1)) : .null
    }

    private static func integer(_ value: Int) -> JSONValue { .number(String(value)) }
}
