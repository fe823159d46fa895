package import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONShape
import ProbeClient

/// Records live responses of a config's endpoints as redacted fixtures (`apiprobe record`).
///
/// Every endpoint is called once; its exchange is redacted (``RedactionPolicy/default`` plus the config's
/// `redactBodyFields`) before anything is written, then stored as `<stubs>/<api>/<name>.json` with
/// ``FixtureStore``. Re-recording an unchanged response leaves the file byte-identical (its `recordedAt`
/// included); a changed one is rewritten and summarised. With `snapshots`, the schema of each endpoint
/// (`search`, with its variants `search.empty`, …) is inferred from its fixtures and written to
/// `<snapshots>/<api>/<endpoint>.schema.json`.
///
/// ```swift
/// let recorder = Recorder(config: config, directory: configFolder)
/// let result = try await recorder.record(snapshots: true)
/// for endpoint in result.endpoints { print(endpoint.outcome, endpoint.fixturePath) }
/// ```
package struct Recorder: Sendable {
    var config: ProbeConfig
    /// The folder relative paths in the config resolve against.
    var directory: URL

    /// Redacts every exchange before it is written, by name and by value (the config's secrets, and every
    /// credential met while recording).
    package var redactor: Redactor

    /// The folder that paths in results and messages are shown relative to; the current folder when `nil`.
    package var displayRoot: URL?

    /// The time a new fixture's `recordedAt` says (the wall clock by default; a test sets it instead of waiting).
    package var now: @Sendable () -> Date = { Date() }

    package init(config: ProbeConfig, directory: URL) {
        self.config = config
        self.directory = directory
        self.redactor = config.makeRedactor()
    }

    /// The policy applied to every exchange before it is written.
    var redactionPolicy: RedactionPolicy {
        redactor.policy
    }

    /// `<directory>/<stubs>`.
    var stubsDirectory: URL { resolve(config.stubsDirectory) }

    /// `<directory>/<snapshots>`.
    var snapshotsDirectory: URL { resolve(config.snapshotsDirectory) }

    /// Calls each endpoint once (those in `only`, or all) and writes its fixture; with `snapshots`, also the
    /// endpoint's schema snapshot. Up to `config.concurrency` endpoints are called at once, and
    /// `requestsPerSecondPerHost` spaces the requests (retries included) as it does for `run`; results
    /// come in the config's order.
    ///
    /// Requests go through the same loader as `run`, with the same limits: each is cut after the endpoint's
    /// `timeout` (a trickling body included), the whole recording at `config.deadline`, and a body larger
    /// than the endpoint's `maxBodySize` (default ``ProbeConfig/defaultRecordBodyLimit``) stops being read at
    /// the limit. An unreachable endpoint, one cut so, or one that answers with a status outside 100–599 is a
    /// result (``EndpointRecording/Outcome/failed``) and nothing is written for it; an HTTP error status is
    /// recorded with a warning; a body that is not JSON is recorded as text and its snapshot skipped with a note.
    ///
    /// - Throws: ``RecordError`` for a name in `only` that is not in the config, an endpoint whose URL cannot
    ///   be built, or a fixture or snapshot that cannot be written (the folder is named; no file is left
    ///   half-written).
    package func record(only: [String] = [], snapshots: Bool = false) async throws(RecordError) -> RecordingResult {
        let selected = try selectEndpoints(only)
        let endpoints = selected.filter { $0.kind == .http }
        let skipped = selected.filter { $0.kind != .http }.map(\.name)
        let loader = HTTPLoader(maximumConnectionsPerHost: config.concurrency)
        defer { loader.close() }
        let deadline = ContinuousClock.now + config.deadline
        let store = FixtureStore(directory: stubsDirectory)
        let limiter = config.requestsPerSecondPerHost.map { RateLimiter(requestsPerSecond: $0) }
        let recorder = self
        let outcomes = await endpoints.concurrentMap(limit: config.concurrency) {
            endpoint -> Result<EndpointRecording, RecordError> in
            do throws(RecordError) {
                return .success(
                    try await recorder.record(
                        endpoint, loader: loader, deadline: deadline, store: store, limiter: limiter))
            } catch {
                return .failure(error)
            }
        }
        var results: [EndpointRecording] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let recording): results.append(recording)
            case .failure(let error): throw error  // the first in the config's order
            }
        }
        if snapshots {
            try writeSnapshots(for: &results)
        }
        return RecordingResult(endpoints: results, skipped: skipped)
    }

    // MARK: One endpoint

    private func record(
        _ endpoint: EndpointConfig, loader: HTTPLoader, deadline: ContinuousClock.Instant, store: FixtureStore,
        limiter: RateLimiter?
    ) async throws(RecordError) -> EndpointRecording {
        let request: ProbeRequest
        do {
            request = try endpoint.probeRequest(
                baseURL: config.baseURL, file: config.file, defaultBodyLimit: ProbeConfig.defaultRecordBodyLimit)
        } catch {
            throw RecordError(message: error.description, underlying: error)
        }
        let fixtureName = "\(config.api)/\(endpoint.name)"
        let fixtureURL = store.url(for: fixtureName)
        let fixturePath = displayPath(fixtureURL, relativeTo: displayRoot)
        let shownURL = redactedURL(request.url.absoluteString)

        func failed(_ message: String) -> EndpointRecording {
            EndpointRecording(
                name: endpoint.name, url: shownURL, fixturePath: fixturePath, outcome: .failed,
                message: "\(endpoint.name): \(message)")
        }
        // Sent as `run` sends it: the same client and the same retry rule (RetryRule), spaced by the limiter.
        let response: ProbeResponse
        switch await loader.send(request, deadline: deadline, limiter: limiter) {
        case .success(let answer):
            response = answer
        case .failure(let error):
            switch error.code {
            case .bodyTooLarge(let limit):
                return failed(
                    "\(shownURL): the body is larger than maxBodySize \(formatSize(limit)); "
                        + "reading stopped there and nothing was written")
            case .cutByDeadline, .notSent:
                return failed(
                    "\(shownURL): cut off by the deadline (\(formatDuration(config.deadline))); nothing was written")
            case .timedOut:
                return failed(
                    "\(shownURL): no complete response within \(formatDuration(endpoint.timeout)); nothing was written")
            default:
                return failed("cannot reach \(shownURL): \(error)")
            }
        }
        guard let status = response.status else {
            return failed("\(shownURL) did not answer with an HTTP response")
        }
        // A fixture holds what the readers accept: a status outside 100–599 is bad data, not a response.
        guard (100...599).contains(status) else {
            return failed("\(shownURL): expected an HTTP status from 100 to 599, found \(status); nothing was written")
        }
        let recorded = redactor.redact(
            Self.exchange(
                request: request, status: status, headers: response.headers, body: response.body, recordedAt: now(),
                source: "record"))
        var result = EndpointRecording(
            name: endpoint.name, url: shownURL, fixturePath: fixturePath, outcome: .new, status: status,
            redactions: recorded.metadata.redactions)
        if !(200..<300).contains(status) {
            result.warnings.append(
                "HTTP status \(status) (recorded as it is"
                    + (response.rateLimited ? "; still rate limited after waiting out Retry-After)" : ")"))
        }
        if case .json = recorded.response.body {
        } else {
            result.isJSON = false
        }

        let previousData = try? Data(contentsOf: fixtureURL)
        let previous = previousData.flatMap { try? Exchange(decoding: $0, file: fixturePath) }
        if let previous {
            if previous.request == recorded.request, previous.response == recorded.response,
                previous.metadata.redactions == recorded.metadata.redactions
            {
                result.outcome = .unchanged
                return result
            }
            result.outcome = .changed
            result.changes = ExchangeChanges.summary(from: previous, to: recorded)
        } else if previousData != nil {
            result.outcome = .changed
            result.changes = ["the old fixture could not be read; replaced"]
        }
        do {
            try AtomicFile.write(
                redactor.secrets.mask(recorded.encoded()), to: fixtureURL, displayName: fixturePath,
                inside: stubsDirectory)
        } catch {
            throw RecordError(message: "\(endpoint.name): \(error)", underlying: error)
        }
        return result
    }

    /// A live exchange as a fixture stores it, before redaction: the request as sent (at `recordedURL` when
    /// given: the origin the fixtures answer for, not the one the request went to), the response without the
    /// headers of one transfer (``volatileHeaders``). The one rule of `record` and `serve --proxy`.
    static func exchange(
        request: ProbeRequest, status: Int, headers: HeaderFields, body: Data, recordedAt: Date, source: String,
        recordedURL: String? = nil
    ) -> Exchange {
        var requestBody: FixtureBody?
        if let sent = request.body, !sent.isEmpty {
            requestBody = FixtureBody(bytes: sent, contentType: request.headers["Content-Type"])
        }
        let responseHeaders = HeaderFields(headers.filter { !Self.volatileHeaders.contains($0.name.lowercased()) })
        let contentType = responseHeaders["Content-Type"]
        return Exchange(
            request: RecordedRequest(
                method: request.method, url: recordedURL ?? request.url.absoluteString, headers: request.headers,
                body: requestBody),
            response: RecordedResponse(
                status: status, headers: responseHeaders,
                body: body.isEmpty ? nil : FixtureBody(bytes: body, contentType: contentType)),
            metadata: FixtureMetadata(
                recordedAt: DisplayText.timestamp(recordedAt), apiprobeVersion: apiprobeVersion, source: source)
        )
    }

    /// Headers that describe one transfer rather than the resource; kept out of fixtures so that
    /// re-recording an unchanged response changes no byte.
    static let volatileHeaders: Set<String> = [
        "date", "age", "connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length",
        "server-timing", "x-request-id", "x-runtime",
    ]

    // MARK: Snapshots

    /// Writes one snapshot per endpoint recorded (its variants, `search.empty`, are samples of `search`),
    /// inferred from every 2xx JSON fixture of the endpoint in the stubs folder.
    private func writeSnapshots(for results: inout [EndpointRecording]) throws(RecordError) {
        let store = FixtureStore(directory: stubsDirectory)
        var done: [String: EndpointRecording.Outcome] = [:]
        for index in results.indices where results[index].outcome != .failed {
            let key = FixtureStore.endpointName(ofFixture: "\(config.api)/\(results[index].name)")
            if !results[index].isJSON {
                results[index].notes.append("snapshot skipped: the response is not JSON")
                continue
            }
            if let status = results[index].status, !(200..<300).contains(status) {
                results[index].notes.append("snapshot skipped: status \(status) is not a sample")
                continue
            }
            let snapshotURL = snapshotsDirectory.appendingPathComponent("\(key).schema.json")
            let snapshotPath = displayPath(snapshotURL, relativeTo: displayRoot)
            results[index].snapshotPath = snapshotPath
            if let outcome = done[key] {
                results[index].snapshotOutcome = outcome
                continue
            }
            // The same rules as `snapshot update` and ContractTesting: HTTPFixtures groups the samples,
            // JSONShape makes the snapshot over the one it replaces. An unreadable fixture is an error, as there.
            let snapshot: SchemaSnapshot
            let existing = try? Data(contentsOf: snapshotURL)
            let old = existing.flatMap {
                try? SchemaSnapshot(decoding: $0, folder: snapshotURL.deletingLastPathComponent())
            }
            do {
                let endpoint = try store.endpoint(named: key)
                guard !endpoint.samples.isEmpty else {
                    results[index].snapshotPath = nil
                    continue
                }
                snapshot = try SchemaSnapshot(
                    samples: endpoint.samples.map { ($0.json, $0.file) }, previous: old)
            } catch {
                throw RecordError(message: "\(results[index].name): \(error)", underlying: error)
            }
            let data = snapshot.encoded()
            if existing == data {
                results[index].snapshotOutcome = .unchanged
                done[key] = .unchanged
                continue
            }
            if existing != nil && old == nil {
                results[index].notes.append("replaced the unreadable snapshot \(snapshotPath)")
            }
            let outcome: EndpointRecording.Outcome = existing == nil ? .new : .changed
            results[index].snapshotOutcome = outcome
            done[key] = outcome
            do {
                try AtomicFile.write(
                    redactor.secrets.mask(data), to: snapshotURL, displayName: snapshotPath, inside: snapshotsDirectory)
            } catch {
                throw RecordError(message: "\(results[index].name): \(error)", underlying: error)
            }
        }
    }

    // MARK: Helpers

    private func selectEndpoints(_ only: [String]) throws(RecordError) -> [EndpointConfig] {
        guard !only.isEmpty else { return config.endpoints }
        let known = Set(config.endpoints.map(\.name))
        let unknown = only.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            throw RecordError(
                message:
                    "\(config.file): --only \(unknown.joined(separator: ", ")): expected an endpoint name of the config (\(config.endpoints.map(\.name).joined(separator: ", "))), found none by that name"
            )
        }
        return config.endpoints.filter { only.contains($0.name) }
    }

    private func resolve(_ path: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL }
        return directory.appendingPathComponent(path, isDirectory: true).standardizedFileURL
    }

    /// The URL with credentials in its query replaced, for messages.
    private func redactedURL(_ url: String) -> String {
        redactor.redactURL(url)
    }
}

/// What `apiprobe record` did.
package struct RecordingResult: Sendable, Hashable {
    package var endpoints: [EndpointRecording]
    /// The `tcp://`, `tls://` and `dns://` endpoints: they have no HTTP response to record.
    package var skipped: [String]

    init(endpoints: [EndpointRecording], skipped: [String] = []) {
        self.endpoints = endpoints
        self.skipped = skipped
    }

    /// Some endpoint could not be reached: nothing was written for it.
    package var hasFailures: Bool { endpoints.contains { $0.outcome == .failed } }
}

/// One endpoint's recording: where it went and what changed.
package struct EndpointRecording: Sendable, Hashable {
    /// What happened to the fixture.
    package enum Outcome: String, Sendable, Hashable {
        /// No fixture was there before.
        case new
        /// The response matched the fixture; the file was left as it was.
        case unchanged
        /// The fixture was rewritten; ``EndpointRecording/changes`` says how.
        case changed
        /// No response: nothing was written.
        case failed
    }

    package var name: String
    /// The URL called, with credentials in the query redacted.
    var url: String
    /// The fixture's path, relative to the current folder when below it.
    package var fixturePath: String
    package var outcome: Outcome
    /// The HTTP status (`nil` when the endpoint could not be reached).
    package var status: Int?
    /// Why it failed.
    package var message: String?
    /// What was redacted (the fixture's `metadata.redactions`).
    package var redactions: [String]
    /// Lines summarising a change: `status 200 → 404`, `breaking /recipes/*/social_rank removed`, `3 values changed`.
    package var changes: [String]
    /// Problems worth a look that did not stop the recording (an HTTP error status).
    package var warnings: [String]
    /// Notes: a snapshot skipped, and why.
    package var notes: [String]
    /// Whether the response body was JSON.
    var isJSON: Bool
    /// The endpoint's snapshot, when one was written or checked.
    package var snapshotPath: String?
    /// What happened to the snapshot (`nil` when none was written).
    package var snapshotOutcome: Outcome?

    init(
        name: String, url: String, fixturePath: String, outcome: Outcome, status: Int? = nil, message: String? = nil,
        redactions: [String] = [], changes: [String] = [], warnings: [String] = [], notes: [String] = [],
        isJSON: Bool = true, snapshotPath: String? = nil, snapshotOutcome: Outcome? = nil
    ) {
        self.name = name
        self.url = url
        self.fixturePath = fixturePath
        self.outcome = outcome
        self.status = status
        self.message = message
        self.redactions = redactions
        self.changes = changes
        self.warnings = warnings
        self.notes = notes
        self.isJSON = isJSON
        self.snapshotPath = snapshotPath
        self.snapshotOutcome = snapshotOutcome
    }
}

/// A recording that could not go on: an unknown endpoint name, a URL that cannot be built, or a file that
/// cannot be written.
package struct RecordError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// The error this one wraps (a ``InputError`` for a file, a `InputError` for a snapshot, a
    /// ``InputError`` for a URL), when there is one; `nil` for an unknown endpoint name.
    var underlying: (any Error & Sendable)?

    init(message: String, underlying: (any Error & Sendable)? = nil) {
        self.message = message
        self.underlying = underlying
    }

    package var description: String { message }
}

extension RecordError: ExitStatusReporting {
    /// Bad input (a folder that cannot be written, a config that cannot be recorded): status 2.
    package var exitStatus: ExitStatus { .badInput }
}
