import APIProbeShared
import Foundation
import HTTPFixtures
import JSONSchemaValidation
import JSONShape
import ProbeClient

/// A response kept only while its endpoint's checks are evaluated.
struct ReceivedResponse {
    var status: Int
    var headers: HeaderFields
    var body: Data
}

/// Turns an endpoint's samples into checks: `reachable`, `status …`, each header, each body condition,
/// `schema <path>`, each latency budget.
///
/// Rate limiting: a sample whose last answer was 429, or 503 with `Retry-After` (after the runner waited
/// and retried), is rate limited. When every sample with an unexpected status was rate limited, the
/// status check fails with category `rate-limited`, not `http-status`: the API answered, it asked us to
/// slow down; it is not an outage (see ``ProbeRunner`` for how it counts towards `downAfter`).
struct ExpectationEvaluator {
    var endpoint: EndpointConfig
    var directory: URL

    /// - Parameters:
    ///   - tls: for an `https` endpoint, what its handshakes showed (`.some(nil)`: none completed); `nil` for `http`.
    ///   - now: the time certificate expiry is judged at.
    func checks(
        samples: [Sample], responses: [ReceivedResponse?], tls: TLSReport?? = nil, now: Date = Date()
    ) -> (checks: [CheckResult], changes: [SchemaChange]) {
        let expect = endpoint.expectations
        var checks: [CheckResult] = []
        checks.append(reachable(samples))
        if case .some(let report) = tls { checks += tlsChecks(report, samples: samples, now: now) }
        if endpoint.kind != .http {
            if endpoint.kind == .dns { checks += dnsChecks(samples) }
            checks += latencyChecks(samples)
            return (checks, [])
        }

        let answered = samples.filter { $0.status != nil }
        let unexpected = answered.filter { !expect.status.accepts($0.status ?? 0) }
        let statusName = "status \(expect.status)"
        if answered.isEmpty {
            checks.append(CheckResult(name: statusName, passed: false, message: "no response", category: .httpStatus))
        } else if unexpected.isEmpty {
            checks.append(CheckResult(name: statusName, passed: true))
        } else {
            let counts = Dictionary(grouping: unexpected.compactMap(\.status), by: { $0 }).sorted { $0.key < $1.key }
            let list = counts.map { "\($0.key) × \($0.value.count)" }.joined(separator: ", ")
            let limited = unexpected.allSatisfy(\.wasRateLimited)
            checks.append(
                CheckResult(
                    name: statusName, passed: false,
                    message: "got \(list) of \(samples.count) samples" + (limited ? " (rate limited)" : ""),
                    category: limited ? .rateLimited : .httpStatus))
        }

        // Headers, body and schema are judged on the responses whose status was accepted.
        let accepted = responses.enumerated().compactMap { item -> (Int, ReceivedResponse)? in
            guard let response = item.element, expect.status.accepts(response.status) else { return nil }
            return (item.offset + 1, response)
        }
        let noAccepted = "not checked: no response with an accepted status"
        for header in expect.headers {
            let name = headerCheckName(header)
            guard !accepted.isEmpty else {
                checks.append(CheckResult(name: name, passed: false, message: noAccepted, category: .header))
                continue
            }
            checks.append(headerCheck(header, name: name, accepted))
        }
        var parsed: [(Int, JSONValue?)] = []
        if expect.body.contains(where: { $0.subject == .json }) {
            parsed = accepted.map { ($0.0, try? JSONValue(parsing: $0.1.body)) }
        }
        for condition in expect.body {
            guard !accepted.isEmpty else {
                checks.append(
                    CheckResult(name: condition.source, passed: false, message: noAccepted, category: .bodyCondition))
                continue
            }
            if condition.subject == .json {
                checks.append(bodyCheck(condition, parsed))
            } else {
                checks.append(rawBodyCheck(condition, accepted.map { ($0.0, $0.1.body) }))
            }
        }
        var changes: [SchemaChange] = []
        if let schema = expect.schema {
            let (check, found) = schemaCheck(schema, accepted.map { ($0.0, $0.1.body) })
            checks.append(check)
            changes = found
        }
        checks += latencyChecks(samples)
        return (checks, changes)
    }

    /// One check per latency budget, over the answered samples.
    private func latencyChecks(_ samples: [Sample]) -> [CheckResult] {
        var checks: [CheckResult] = []
        let timed = samples.filter(\.answered).map(\.latency.milliseconds).sorted()
        for budget in endpoint.expectations.latency {
            let name = budget.description
            guard !timed.isEmpty else {
                checks.append(
                    CheckResult(name: name, passed: false, message: "no response to time", category: .latencyBudget))
                continue
            }
            let value = LatencyStats.percentile(budget.percentile, ofSorted: timed)
            let label = budget.percentile == 100 ? "max" : "p\(budgetLabel(budget.percentile))"
            let message = "\(label) was \(String(format: "%.1f", value)) ms"
            let passed = value < budget.limit.milliseconds
            checks.append(
                CheckResult(name: name, passed: passed, message: message, category: passed ? nil : .latencyBudget))
        }
        return checks
    }

    /// A `dns://` endpoint's `rcode …` check and one `answer …` check per expected value, over the samples that
    /// got an answer: each must hold in every one of them (a round-robin answer missing a value once fails).
    private func dnsChecks(_ samples: [Sample]) -> [CheckResult] {
        let expect = endpoint.expectations
        let answers = samples.enumerated().compactMap { item in item.element.dns.map { (item.offset + 1, $0) } }
        var checks: [CheckResult] = []
        let rcodeName = "rcode " + expect.rcodes.map(\.description).joined(separator: ", ")
        if answers.isEmpty {
            checks.append(CheckResult(name: rcodeName, passed: false, message: "no answer", category: .dns))
        } else if let (index, answer) = answers.first(where: { !expect.rcodes.contains($0.1.rcode) }) {
            checks.append(
                CheckResult(
                    name: rcodeName, passed: false, message: "was \(answer.rcode) (sample \(index))", category: .dns))
        } else {
            checks.append(CheckResult(name: rcodeName, passed: true))
        }
        for value in expect.answers {
            let name = "answer \(value)"
            guard !answers.isEmpty else {
                checks.append(CheckResult(name: name, passed: false, message: "no answer", category: .dns))
                continue
            }
            if let (index, answer) = answers.first(where: { !$0.1.contains(value) }) {
                let found =
                    answer.records.isEmpty ? "no records" : answer.records.map(\.description).joined(separator: ", ")
                checks.append(
                    CheckResult(
                        name: name, passed: false, message: "not among \(found) (sample \(index))", category: .dns))
            } else {
                checks.append(CheckResult(name: name, passed: true))
            }
        }
        return checks
    }

    /// `tls` (the chain verified and the host name matched, or verification off with `insecure: true`) and, with
    /// `tls.expiresIn`, `tls expiresIn > 14d` on the presented chain's earliest notAfter (the leaf's, or an
    /// intermediate's that expires first, named in the message).
    private func tlsChecks(_ report: TLSReport?, samples: [Sample], now: Date) -> [CheckResult] {
        var checks: [CheckResult] = []
        let failure = samples.compactMap(\.failure).first { $0.category == .tls }
        if let failure {
            checks.append(CheckResult(name: "tls", passed: false, message: failure.message, category: .tls))
        } else if let report {
            let validity =
                "the certificate (\(report.expiringSubject)) expires \(DisplayText.timestamp(report.notAfter)), in "
                + "\(DisplayText.decimal(report.daysUntilExpiry(from: now))) days"
            let message =
                report.insecure
                ? "not verified (insecure: true); \(validity)" : "chain and host name verified; \(validity)"
            checks.append(CheckResult(name: "tls", passed: true, message: message))
        } else {
            checks.append(
                CheckResult(name: "tls", passed: false, message: "no TLS handshake completed", category: .tls))
        }
        if let minimum = endpoint.tls.minimumValidity {
            let name = "tls expiresIn \(endpoint.tls.expiresInText ?? formatDuration(minimum))"
            if let report {
                let left = report.notAfter.timeIntervalSince(now)
                let days = DisplayText.decimal(left / 86_400)
                let passed = left > minimum.timeInterval
                // The leaf is "the certificate"; an intermediate that expires first is named.
                let named = report.expiresFirst.map { " (\($0), in the chain)" } ?? ""
                let message =
                    left < 0
                    ? "the certificate\(named) expired \(DisplayText.timestamp(report.notAfter)) (\(days) days)"
                    : "the certificate\(named) expires \(DisplayText.timestamp(report.notAfter)), in \(days) days"
                checks.append(
                    CheckResult(
                        name: name, passed: passed, message: message, category: passed ? nil : .certificateExpiry))
            } else {
                checks.append(
                    CheckResult(
                        name: name, passed: false, message: "no certificate was seen", category: .certificateExpiry))
            }
        }
        return checks
    }

    private func budgetLabel(_ p: Double) -> String { p == p.rounded() ? String(Int(p)) : String(p) }

    private func reachable(_ samples: [Sample]) -> CheckResult {
        let failed = samples.filter { $0.failure != nil }
        guard let first = failed.first?.failure else { return CheckResult(name: "reachable", passed: true) }
        return CheckResult(
            name: "reachable", passed: false,
            message: "\(failed.count) of \(samples.count) samples failed: \(first.message)", category: first.category)
    }

    private func headerCheckName(_ header: HeaderExpectation) -> String {
        switch header.rule {
        case .exists: return "header \(header.name) exists"
        case .equals(let value): return "header \(header.name): \(value)"
        case .matches(let pattern): return "header \(header.name) matches \(pattern)"
        }
    }

    private func headerCheck(_ header: HeaderExpectation, name: String, _ accepted: [(Int, ReceivedResponse)])
        -> CheckResult
    {
        for (index, response) in accepted {
            let value = response.headers[header.name]
            let problem: String?
            switch header.rule {
            case .exists:
                problem = value == nil ? "missing" : nil
            case .equals(let expected):
                problem = value == expected ? nil : value.map { "was \"\($0)\"" } ?? "missing"
            case .matches(let pattern):
                if let value {
                    problem = Self.matches(value, pattern) ? nil : "was \"\(value)\""
                } else {
                    problem = "missing"
                }
            }
            if let problem {
                return CheckResult(
                    name: name, passed: false, message: "\(header.name) \(problem) (sample \(index))",
                    category: .header)
            }
        }
        return CheckResult(name: name, passed: true)
    }

    /// A condition on the body as text or on its size, which holds for every accepted sample.
    private func rawBodyCheck(_ condition: BodyCondition, _ bodies: [(Int, Data)]) -> CheckResult {
        for (index, body) in bodies {
            if let problem = Self.evaluateRaw(condition, on: body) {
                return CheckResult(
                    name: condition.source, passed: false, message: "\(problem) (sample \(index))",
                    category: .bodyCondition)
            }
        }
        return CheckResult(name: condition.source, passed: true)
    }

    /// `nil` when a text or size condition holds on `body`; otherwise what was expected and found.
    static func evaluateRaw(_ condition: BodyCondition, on body: Data) -> String? {
        guard case .string(let operand)? = condition.operand ?? nil else {
            guard condition.subject == .size, case .number(let literal)? = condition.operand,
                let limit = Double(literal)
            else { return nil }
            let size = Double(body.count)
            return compare(size, condition.op, limit)
                ? nil : "expected a body of \(condition.op.rawValue) \(literal) bytes, found \(body.count) bytes"
        }
        let text = String(decoding: body, as: UTF8.self)
        switch condition.op {
        case .contains:
            return text.contains(operand)
                ? nil
                : "expected the body to contain \(JSONValue.string(operand).serializedText), found \(body.count) bytes without it"
        case .notContains:
            return text.contains(operand)
                ? "expected the body not to contain \(JSONValue.string(operand).serializedText), found it" : nil
        case .matches:
            guard let regex = try? NSRegularExpression(pattern: operand) else { return "an invalid regular expression" }
            let found = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            return found ? nil : "expected the body to match \(operand), found \(body.count) bytes that do not"
        default:
            return nil
        }
    }

    private func bodyCheck(_ condition: BodyCondition, _ parsed: [(Int, JSONValue?)]) -> CheckResult {
        for (index, body) in parsed {
            guard let body else {
                return CheckResult(
                    name: condition.source, passed: false, message: "the body is not JSON (sample \(index))",
                    category: .bodyCondition)
            }
            if let problem = Self.evaluate(condition, on: body) {
                return CheckResult(
                    name: condition.source, passed: false, message: "\(problem) (sample \(index))",
                    category: .bodyCondition)
            }
        }
        return CheckResult(name: condition.source, passed: true)
    }

    /// `nil` when the condition holds; otherwise what was expected and found, naming the pointer.
    ///
    /// A `*` in the pointer stands for every item of the array there (as in `apiprobe.yml`'s `/recipes/*/title exists`, README): the
    /// condition must hold for each, and a failure names the first item that breaks it and how many do.
    /// An empty array passes; pair such a condition with `length >= 1`.
    static func evaluate(_ condition: BodyCondition, on body: JSONValue) -> String? {
        guard condition.pointer.split(separator: "/").contains("*") else {
            return evaluate(condition, pointer: condition.pointer, value: body.value(at: condition.pointer))
        }
        switch expand(condition.pointer, in: body) {
        case .notAnArray(let prefix, let found):
            if condition.op == .notExists && found == nil { return nil }
            let shown = found.map(\.serializedText) ?? "nothing"
            return "\(prefix.isEmpty ? "(root)" : prefix): expected an array for * to range over, found \(shown)"
        case .items(let items):
            let failures = items.compactMap { evaluate(condition, pointer: $0.pointer, value: $0.value) }
            guard let first = failures.first else { return nil }
            return failures.count == 1 && items.count == 1
                ? first : "\(first) (\(failures.count) of \(items.count) items fail)"
        }
    }

    private enum Expansion {
        case items([(pointer: String, value: JSONValue?)])
        /// A `*` met something other than an array at `prefix`.
        case notAnArray(prefix: String, found: JSONValue?)
    }

    /// The concrete pointers and values a pointer with `*` names.
    private static func expand(_ pointer: String, in body: JSONValue) -> Expansion {
        var frontier: [(pointer: String, value: JSONValue?)] = [("", body)]
        for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if token == "*" {
                var next: [(pointer: String, value: JSONValue?)] = []
                for (prefix, value) in frontier {
                    guard case .array(let items)? = value else { return .notAnArray(prefix: prefix, found: value) }
                    for (index, item) in items.enumerated() { next.append(("\(prefix)/\(index)", item)) }
                }
                frontier = next
            } else {
                frontier = frontier.map { ("\($0.pointer)/\(token)", $0.value?.value(at: "/\(token)")) }
            }
        }
        return .items(frontier)
    }

    private static func evaluate(_ condition: BodyCondition, pointer: String, value: JSONValue?) -> String? {
        let pointer = pointer.isEmpty ? "(root)" : pointer
        let shown = value.map(\.serializedText) ?? "nothing"
        switch condition.op {
        case .contains, .notContains:
            return nil  // text conditions are evaluated on the raw body (evaluateRaw)
        case .exists:
            return value == nil ? "\(pointer): expected a value, found nothing" : nil
        case .notExists:
            return value == nil ? nil : "\(pointer): expected nothing, found \(shown)"
        case .equal, .notEqual:
            guard let operand = condition.operand else { return nil }
            let equal = value == operand
            if condition.op == .equal {
                return equal ? nil : "\(pointer): expected \(operand.serializedText), found \(shown)"
            }
            return equal ? "\(pointer): expected anything but \(operand.serializedText), found it" : nil
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .number(let limitText)? = condition.operand, let limit = Double(limitText) else { return nil }
            guard case .number(let text)? = value, let number = Double(text) else {
                return "\(pointer): expected a number \(condition.op.rawValue) \(limitText), found \(shown)"
            }
            return compare(number, condition.op, limit)
                ? nil : "\(pointer): expected \(condition.op.rawValue) \(limitText), found \(text)"
        case .matches:
            guard case .string(let pattern)? = condition.operand else { return nil }
            guard case .string(let text)? = value else {
                return "\(pointer): expected a string matching \(pattern), found \(shown)"
            }
            return matches(text, pattern) ? nil : "\(pointer): expected a match for \(pattern), found \(shown)"
        case .length:
            guard case .number(let limitText)? = condition.operand, let limit = Double(limitText),
                let lengthOp = condition.lengthOperator
            else { return nil }
            let length: Int
            switch value {
            case .array(let items)?: length = items.count
            case .object(let members)?: length = members.count
            case .string(let text)?: length = text.count
            default: return "\(pointer): expected an array, object or string, found \(shown)"
            }
            return compare(Double(length), lengthOp, limit)
                ? nil : "\(pointer): expected length \(lengthOp.rawValue) \(limitText), found length \(length)"
        }
    }

    static func compare(_ value: Double, _ op: BodyCondition.Operator, _ limit: Double) -> Bool {
        switch op {
        case .less: return value < limit
        case .lessOrEqual: return value <= limit
        case .greater: return value > limit
        case .greaterOrEqual: return value >= limit
        case .equal: return value == limit
        case .notEqual: return value != limit
        default: return false
        }
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    private func schemaCheck(_ schema: SchemaExpectation, _ bodies: [(Int, Data)]) -> (CheckResult, [SchemaChange]) {
        let name = "schema \(schema.snapshot)"
        let snapshotURL = resolve(schema.snapshot)
        let snapshot: SchemaSnapshot
        do {
            snapshot = try SchemaSnapshot(
                decoding: try Data(contentsOf: snapshotURL), file: schema.snapshot,
                folder: snapshotURL.deletingLastPathComponent())
        } catch let error as InputError {
            return (
                CheckResult(
                    name: name, passed: false, message: "the snapshot cannot be read: \(error)", category: .schemaDrift),
                []
            )
        } catch {
            return (
                CheckResult(
                    name: name, passed: false,
                    message: "no snapshot at \(schema.snapshot); record one with `apiprobe record`",
                    category: .schemaDrift),
                []
            )
        }
        var usage: UsageManifest?
        let usagePath =
            schema.usage
            ?? (schema.snapshot.hasSuffix(".schema.json")
                ? String(schema.snapshot.dropLast(".schema.json".count)) + ".usage.json" : nil)
        if let usagePath, let data = try? Data(contentsOf: resolve(usagePath)) {
            do {
                usage = try UsageManifest(decoding: data, file: usagePath)
            } catch {
                return (
                    CheckResult(
                        name: name, passed: false, message: "the usage manifest cannot be read: \(error)",
                        category: .schemaDrift),
                    []
                )
            }
        }
        guard !bodies.isEmpty else {
            return (
                CheckResult(
                    name: name, passed: false, message: "not checked: no response with an accepted status",
                    category: .schemaDrift),
                []
            )
        }
        let threshold = ChangeSeverity(rawValue: schema.failOn)
        var changes: [SchemaChange] = []
        var seen: Set<String> = []
        for (index, body) in bodies {
            do {
                let diff = try snapshot.conformance(of: body, usage: usage, file: "sample \(index)")
                for change in diff.changes where seen.insert("\(change.path) \(change.kind)").inserted {
                    changes.append(change)
                }
            } catch {
                return (
                    CheckResult(
                        name: name, passed: false, message: "sample \(index) is not JSON: \(error)",
                        category: .schemaDrift),
                    changes
                )
            }
        }
        // Every keyword a person added to the snapshot, enforced by the one JSON Schema validator (breaking).
        let violations: [SampleViolation]
        do {
            let compiled = try SchemaFile.compile(
                contentsOf: snapshotURL, displayName: schema.snapshot, inside: snapshotURL.deletingLastPathComponent())
            violations = try SchemaFile.violations(
                of: bodies.map { ($0.1, "sample \($0.0)") }, against: compiled, ignoring: SchemaSnapshot.writtenKeywords
            )
        } catch {
            return (
                CheckResult(name: name, passed: false, message: "not checked: \(error)", category: .schemaDrift),
                changes
            )
        }
        if let first = violations.first, threshold <= .breaking {
            let more = violations.count > 1 ? " (and \(violations.count - 1) more)" : ""
            return (
                CheckResult(
                    name: name, passed: false, message: "violation: \(first.sample): \(first)\(more)",
                    category: .schemaDrift),
                changes
            )
        }
        let failing = changes.filter { $0.severity >= threshold }
        if let first = failing.first {
            let more = failing.count > 1 ? " (and \(failing.count - 1) more)" : ""
            return (
                CheckResult(name: name, passed: false, message: "\(first)\(more)", category: .schemaDrift), changes
            )
        }
        let note = changes.isEmpty ? nil : "\(changes.count) change(s) below \(schema.failOn)"
        return (CheckResult(name: name, passed: true, message: note), changes)
    }

    private func resolve(_ path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }
}
