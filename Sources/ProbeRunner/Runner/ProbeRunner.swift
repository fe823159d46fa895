import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONShape
import ProbeClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs the probes of a config: samples every endpoint, times them and checks the expectations.
///
/// - Concurrency: up to `config.concurrency` endpoints are probed at once; an endpoint's samples go one
///   after another, so they do not queue behind each other and distort their own latency.
/// - Timing: latency is measured on a monotonic clock from sending the request to the last body byte;
///   time to first byte is when the response head arrived.
/// - Timeouts: each request is cut after the endpoint's `timeout` (the whole request, a trickling body
///   included); the round is cut at `config.deadline`: samples not finished by then fail as `timeout`
///   and the result has `hitDeadline` set.
/// - Retries: after a transport error only (never after an HTTP status), up to `retries` times, with
///   exponential backoff (100 ms doubling, at most 2 s) and ±50% jitter.
/// - Rate limiting: a 429, or a 503 with `Retry-After`, is waited out (the header's delay, at most 30 s and
///   never past the deadline) and retried (up to `max(1, retries)` times). A sample still answered so is
///   rate limited; an endpoint whose only failures are rate limiting fails with category `rate-limited` and
///   does not count as an outage: its consecutive-failure count is carried over unchanged, so it never
///   becomes down by being throttled.
package struct ProbeRunner: Sendable {
    package var config: ProbeConfig
    /// The folder relative paths in the config (snapshots) resolve against: the config file's folder.
    package var directory: URL
    /// Masks the run's secrets (the config's, and those met in traffic) in the result.
    package var redactor: Redactor
    /// The date a round starts at and its checks are judged at (a certificate's days left): the wall clock by
    /// default; a test sets it instead of waiting. Latency is timed on the monotonic clock, never by this.
    package var now: @Sendable () -> Date = { Date() }

    package init(config: ProbeConfig, directory: URL) {
        self.config = config
        self.directory = directory
        self.redactor = config.makeRedactor()
    }

    /// One round over `only` (every endpoint when empty). Never throws for a failing endpoint: failures
    /// are results. `previous` carries consecutive-failure counts between rounds (`--every`, history).
    package func run(
        only: [String] = [], previousFailures: [String: Int] = [:], previousOutages: [String: Int] = [:]
    ) async -> ProbeRunResult {
        await HTTPLoader.warmUp()
        let startedAt = now()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + config.deadline
        let endpoints = only.isEmpty ? config.endpoints : config.endpoints.filter { only.contains($0.name) }
        let loader = HTTPLoader(maximumConnectionsPerHost: config.concurrency)
        defer { loader.close() }
        loader.prepare(
            endpoints.map { endpoint in
                (try? endpoint.url(baseURL: config.baseURL, file: config.file), endpoint.tls)
            })
        let limiter = config.requestsPerSecondPerHost.map { RateLimiter(requestsPerSecond: $0) }
        let context = Context(
            config: config, directory: directory, loader: loader, limiter: limiter, deadline: deadline,
            redactor: redactor, now: now)

        let probed = await endpoints.concurrentMap(limit: config.concurrency) { await context.probe($0) }
        let hitDeadline = probed.contains { $0.1 }
        let finished = probed.map { probe -> EndpointResult in
            var result = probe.0
            let previous = previousFailures[result.name] ?? 0
            let outages = previousOutages[result.name] ?? 0
            if result.passed {
                result.consecutiveFailures = 0
                result.consecutiveOutages = 0
            } else if result.onlyRateLimited {
                result.consecutiveFailures = previous
                result.consecutiveOutages = outages
            } else {
                result.consecutiveFailures = previous + 1
                result.consecutiveOutages = result.answered ? 0 : outages + 1
            }
            // Down is no answer (or a refused status) `downAfter` rounds in a row; a latency budget missed or a
            // certificate expiring soon is a failed check of an endpoint that is up (degraded).
            result.isDown = result.consecutiveOutages >= max(1, config.downAfter)
            return result
        }
        return ProbeRunResult(
            startedAt: startedAt, duration: clock.now - start, configFile: config.file, endpoints: finished,
            hitDeadline: hitDeadline
        ).redacted(by: redactor)
    }
}

/// What every endpoint probe shares within a round.
private struct Context: Sendable {
    var config: ProbeConfig
    var directory: URL
    var loader: HTTPLoader
    var limiter: RateLimiter?
    var deadline: ContinuousClock.Instant
    var redactor: Redactor
    var now: @Sendable () -> Date

    /// Bodies up to this size are read for credentials (`{"access_token": …}`) to mask in messages.
    static let largestBodyLearnedFrom = 4 << 20

    static let maximumRetryAfter: Duration = .seconds(30)

    func probe(_ endpoint: EndpointConfig) async -> (EndpointResult, Bool) {
        var request: URLRequest
        do {
            request = try endpoint.makeRequest(baseURL: config.baseURL, file: config.file)
            // The loader's backstop timeout (see HTTPLoader.send), set once here rather than on every attempt.
            request.timeoutInterval = (endpoint.timeout.timeInterval + 1).rounded(.up)
        } catch {
            let check = CheckResult(name: "reachable", passed: false, message: "\(error)", category: .other)
            return (
                EndpointResult(
                    name: endpoint.name, method: endpoint.method, url: endpoint.path, samples: [], latency: nil,
                    checks: [check]),
                false
            )
        }
        var url = request.url.map { redactor.redactURL($0.absoluteString) } ?? endpoint.path
        if let query = endpoint.dns { url += " \(query)" }
        var samples: [Sample] = []
        var responses: [ReceivedResponse?] = []
        var cut = false
        var tls: TLSReport?
        samples.reserveCapacity(endpoint.samples)
        for _ in 0..<endpoint.samples {
            let (sample, response, hitDeadline, report) = await takeSample(request, endpoint: endpoint, url: url)
            samples.append(sample)
            responses.append(response)
            cut = cut || hitDeadline
            if let report { tls = report }
        }
        if var report = tls, let reason = samples.compactMap({ $0.failure?.tlsReason }).first {
            // A server that wants a client certificate does not make its own chain unverified.
            if reason.concernsServerCertificate { report.verified = false }
            report.failure = reason
            tls = report
        }
        let evaluator = ExpectationEvaluator(endpoint: endpoint, directory: directory)
        let isTLS = ["https", "tls"].contains(request.url?.scheme?.lowercased() ?? "")
        let (checks, changes) = evaluator.checks(
            samples: samples, responses: responses, tls: isTLS ? .some(tls) : .none, now: now())
        let answered = samples.filter(\.answered)
        let result = EndpointResult(
            name: endpoint.name, method: endpoint.method, url: url, samples: samples,
            latency: LatencyStats(durations: answered.map(\.latency)),
            timeToFirstByte: LatencyStats(durations: answered.compactMap(\.timeToFirstByte)),
            checks: checks, schemaChanges: changes, phases: PhaseStats(answered.compactMap(\.phases)), tls: tls)
        return (result, cut)
    }

    /// One sample: an attempt, retried after transport errors and waited out after rate limiting.
    func takeSample(_ request: URLRequest, endpoint: EndpointConfig, url: String) async -> (
        Sample, ReceivedResponse?, Bool, TLSReport?
    ) {
        var retries = 0
        var rateLimitRetries = 0
        var wasRateLimited = false
        let host = request.url?.host ?? ""
        while true {
            if ContinuousClock.now >= deadline {
                return deadlineSample(url: url, retries: retries, wasRateLimited: wasRateLimited)
            }
            if let limiter, await !limiter.acquire(host: host, deadline: deadline) {
                return deadlineSample(url: url, retries: retries, wasRateLimited: wasRateLimited)
            }
            let attempt: Attempt
            if let query = endpoint.dns, let server = request.url {
                attempt = await DNSProbe.ask(query, server: server, timeout: endpoint.timeout, deadline: deadline)
            } else {
                attempt = await loader.send(
                    request, timeout: endpoint.timeout, deadline: deadline,
                    maxBodySize: endpoint.maxBodySize ?? ProbeConfig.defaultRunBodyLimit,
                    followsRedirects: endpoint.followsRedirects, tls: endpoint.tls)
            }
            if let error = attempt.error {
                let failure = FailureClassification.classify(
                    error, timedOut: attempt.timedOut, byDeadline: attempt.cutByDeadline, url: url,
                    timeout: endpoint.timeout)
                // A body too large is the answer, not a transient error: retrying would read it again.
                if retries < endpoint.retries && !attempt.cutByDeadline && failure.category != .bodyTooLarge,
                    await sleep(backoff(retries), orGiveUpAt: deadline)
                {
                    retries += 1
                    continue
                }
                let sample = Sample(
                    status: nil, latency: attempt.latency, timeToFirstByte: attempt.timeToFirstByte,
                    retries: retries, wasRateLimited: wasRateLimited, failure: failure, phases: attempt.phases)
                return (sample, nil, attempt.cutByDeadline, attempt.tls)
            }
            guard let response = attempt.response else {
                if endpoint.kind != .http {
                    // The connection opened (its handshake made), or the DNS server answered.
                    let sample = Sample(
                        status: nil, latency: attempt.latency, retries: retries, phases: attempt.phases,
                        dns: attempt.dns)
                    return (sample, nil, false, attempt.tls)
                }
                let failure = ProbeFailure(category: .connection, message: "no HTTP response (\(url))")
                return (
                    Sample(status: nil, latency: attempt.latency, retries: retries, failure: failure), nil, false,
                    attempt.tls
                )
            }
            let status = response.statusCode
            let retryAfter = status == 429 || status == 503 ? Self.retryAfter(response) : nil
            let limited = status == 429 || (status == 503 && retryAfter != nil)
            if limited {
                wasRateLimited = true
                let wait = min(retryAfter ?? .seconds(1), Self.maximumRetryAfter)
                if rateLimitRetries < max(1, endpoint.retries), ContinuousClock.now + wait < deadline,
                    await sleep(wait, orGiveUpAt: deadline)
                {
                    rateLimitRetries += 1
                    continue
                }
            }
            redactor.learnHeaders(attempt.headers)
            if attempt.body.count <= Self.largestBodyLearnedFrom {
                redactor.learnBody(attempt.body, contentType: attempt.headers["Content-Type"])
            }
            // Only header expectations read the headers.
            let headers = endpoint.expectations.headers.isEmpty ? HeaderFields() : attempt.headers
            let redirects = attempt.redirects.map { redactor.redactURL($0.absoluteString) }
            let sample = Sample(
                status: status, latency: attempt.latency, timeToFirstByte: attempt.timeToFirstByte,
                bytes: attempt.body.count, retries: retries, redirects: redirects,
                wasRateLimited: limited, phases: attempt.phases)
            return (sample, ReceivedResponse(status: status, headers: headers, body: attempt.body), false, attempt.tls)
        }
    }

    private func deadlineSample(url: String, retries: Int, wasRateLimited: Bool) -> (
        Sample, ReceivedResponse?, Bool, TLSReport?
    ) {
        let failure = ProbeFailure(category: .timeout, message: "not sent: the run's deadline was reached (\(url))")
        return (
            Sample(status: nil, latency: .zero, retries: retries, wasRateLimited: wasRateLimited, failure: failure),
            nil, true, nil
        )
    }

    /// 100 ms doubling per retry, at most 2 s, with ±50% jitter.
    func backoff(_ retry: Int) -> Duration {
        let base = min(0.1 * pow(2, Double(retry)), 2)
        return .milliseconds(Int64(base * Double.random(in: 0.5...1.5) * 1_000))
    }

    /// Sleeps unless that would pass the deadline; `false` when it would.
    func sleep(_ duration: Duration, orGiveUpAt deadline: ContinuousClock.Instant) async -> Bool {
        guard ContinuousClock.now + duration < deadline else { return false }
        if duration > .zero { try? await Task.sleep(for: duration) }
        return true
    }

    /// `Retry-After` in seconds or as an HTTP date.
    static func retryAfter(_ response: HTTPURLResponse) -> Duration? {
        guard let text = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces)
        else { return nil }
        if let seconds = Double(text), seconds >= 0, seconds.isFinite {
            return .milliseconds(Int64(min(seconds, 86_400) * 1_000))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(Int64(max(0, min(date.timeIntervalSinceNow, 86_400)) * 1_000))
    }
}
