import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONShape
import ProbeClient

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
    var config: ProbeConfig
    /// The folder relative paths in the config (snapshots) resolve against: the config file's folder.
    var directory: URL
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

    func probe(_ endpoint: EndpointConfig) async -> (EndpointResult, Bool) {
        let request: ProbeRequest
        do {
            request = try endpoint.probeRequest(baseURL: config.baseURL, file: config.file)
        } catch {
            let check = CheckResult(name: "reachable", passed: false, message: "\(error)", category: .other)
            return (
                EndpointResult(
                    name: endpoint.name, method: endpoint.method, url: endpoint.path, samples: [], latency: nil,
                    checks: [check]),
                false
            )
        }
        var url = redactor.redactURL(request.url.absoluteString)
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
        let isTLS = ["https", "tls"].contains(request.url.scheme?.lowercased() ?? "")
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

    /// One sample: the request sent by the one client, which retries and waits out rate limits by the request's
    /// ``RetryRule``.
    func takeSample(_ request: ProbeRequest, endpoint: EndpointConfig, url: String) async -> (
        Sample, ReceivedResponse?, Bool, TLSReport?
    ) {
        switch await loader.send(request, deadline: deadline, limiter: limiter) {
        case .failure(let error):
            let failure = FailureClassification.classify(error, url: url, timeout: endpoint.timeout)
            let sample = Sample(
                status: nil, latency: error.latency, timeToFirstByte: error.timeToFirstByte, retries: error.retries,
                wasRateLimited: error.wasRateLimited, failure: failure, phases: error.phases)
            return (sample, nil, [.cutByDeadline, .notSent].contains(error.code), error.tls)
        case .success(let response):
            guard let status = response.status else {
                // `tcp://` and `tls://`: the connection opened (its handshake made); `dns://`: the server answered.
                let sample = Sample(
                    status: nil, latency: response.latency, retries: response.retries, phases: response.phases,
                    dns: response.dns)
                return (sample, nil, false, response.tls)
            }
            redactor.learnHeaders(response.headers)
            if response.body.count <= Self.largestBodyLearnedFrom {
                redactor.learnBody(response.body, contentType: response.headers["Content-Type"])
            }
            // Only header expectations read the headers.
            let headers = endpoint.expectations.headers.isEmpty ? HeaderFields() : response.headers
            let redirects = response.redirects.map { redactor.redactURL($0.absoluteString) }
            let sample = Sample(
                status: status, latency: response.latency, timeToFirstByte: response.timeToFirstByte,
                bytes: response.body.count, retries: response.retries, redirects: redirects,
                wasRateLimited: response.rateLimited, phases: response.phases)
            return (
                sample, ReceivedResponse(status: status, headers: headers, body: response.body), false, response.tls
            )
        }
    }
}
