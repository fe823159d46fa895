import APIProbeShared
import Foundation
import HTTPFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Alerts not delivered yet, kept beside the history (`history.outbox.json` beside `history.jsonl`) so that a
/// receiver that is down when an endpoint goes down still hears of it, in order, on a later round or a later run;
/// and the alert state of each endpoint that is failing or down (``AlertTransitions/Tracker``), so that the
/// transitions are decided under the file's lock, one run at a time: any number of runs that overlap on one history
/// (cron runs that run long, a CronJob beside a Deployment) send one "down" per outage and one "recovered".
///
/// Each alert waits in its receiver's queue until that receiver answers 2xx; a receiver's alerts go out oldest
/// first and a failure stops its queue for the round, so a `recovered` never reaches a receiver before the `down`
/// it ends. An alert older than ``maximumAge``, or past ``maximumPerReceiver`` waiting for one receiver, is given
/// up with a warning. A receiver is known by its place in the config's `alerts:` list, its kind and its host, never
/// by its URL (a Slack webhook's URL is a credential): alerts for a receiver the config no longer has are given up
/// with a warning. The file is a ``StateFile``: replaced atomically under a lock, so cron runs that overlap take
/// turns.
struct AlertOutbox: Sendable {
    /// One alert for one receiver.
    struct Item: Sendable, Hashable {
        /// The receiver's index in the config's `alerts:`.
        var target: Int
        /// `webhook 127.0.0.1:8080`: what the receiver at that index must still be.
        var receiver: String
        var event: AlertEvent
        /// Rounds that tried to deliver it.
        var attempts: Int
    }

    /// The longest an alert waits for its receiver.
    static let maximumAge: TimeInterval = 7 * 86_400
    /// The most alerts waiting for one receiver; older ones are given up first.
    static let maximumPerReceiver = 200

    /// The outbox file beside a history file: `history.jsonl` → `history.outbox.json`.
    static func url(besideHistory history: URL) -> URL { StateFile.url("outbox", besideHistory: history) }

    /// `webhook 127.0.0.1:8080`: a receiver's kind and host, without its path or query (which may be secret).
    static func receiver(_ target: AlertTarget) -> String {
        let host = target.url.host ?? "?"
        return "\(target.kind.rawValue) \(host)\(target.url.port.map { ":\($0)" } ?? "")"
    }

    // MARK: The file

    /// What the file holds: the alerts waiting, and the alert state of each endpoint that is not settled (an
    /// endpoint it does not name is up with no failure in a row). `states` is `nil` for a file written before the
    /// states were kept (version 1): the history's rounds stand in for them.
    struct Contents: Sendable {
        var items: [Item] = []
        var states: [String: StoredState]? = [:]
    }

    /// One endpoint's ``AlertTransitions/EndpointState`` as the file keeps it (the thresholds come from the config):
    /// `{"down", "failuresInARow", "passesInARow", "checks": {"failing", "failuresInARow", "passesInARow"}}`,
    /// `checks` left out when settled.
    struct StoredState: Sendable, Hashable {
        struct Counts: Sendable, Hashable {
            var isDown: Bool
            var failuresInARow: Int
            var passesInARow: Int

            init(_ tracker: AlertTransitions.Tracker) {
                isDown = tracker.isDown
                failuresInARow = tracker.failuresInARow
                passesInARow = tracker.passesInARow
            }

            init(isDown: Bool, failuresInARow: Int, passesInARow: Int) {
                self.isDown = isDown
                self.failuresInARow = failuresInARow
                self.passesInARow = passesInARow
            }

            func tracker(downAfter: Int, successThreshold: Int) -> AlertTransitions.Tracker {
                AlertTransitions.Tracker(
                    downAfter: downAfter, successThreshold: successThreshold, isDown: isDown,
                    failuresInARow: failuresInARow, passesInARow: passesInARow)
            }
        }

        var answer: Counts
        var checks: Counts?

        init(_ state: AlertTransitions.EndpointState) {
            answer = Counts(state.answer)
            checks = state.checks.isSettled ? nil : Counts(state.checks)
        }

        init(answer: Counts, checks: Counts?) {
            self.answer = answer
            self.checks = checks
        }

        func state(downAfter: Int, successThreshold: Int) -> AlertTransitions.EndpointState {
            AlertTransitions.EndpointState(
                answer: answer.tracker(downAfter: downAfter, successThreshold: successThreshold),
                checks: checks?.tracker(downAfter: downAfter, successThreshold: successThreshold)
                    ?? AlertTransitions.Tracker(downAfter: downAfter, successThreshold: successThreshold))
        }
    }

    /// The contents of an outbox file, or where it is damaged (`file`: its name in the error).
    static func contents(from data: Data, file: String) throws(InputError) -> Contents {
        let reader = JSONFieldReader(file: file)
        let document = try reader.parse(data)
        var states: [String: StoredState]?
        if let stored = document["endpoints"] {
            guard case .object(let members) = stored else {
                throw reader.fail("/endpoints", "an object of endpoint states", stored.briefDescription)
            }
            var read: [String: StoredState] = [:]
            func counts(_ value: JSONValue, at: String, downKey: String) throws(InputError) -> StoredState.Counts {
                let down = try reader.required(value, downKey, in: at, expected: "true or false")
                guard case .bool(let isDown) = down else {
                    throw reader.fail("\(at)/\(downKey)", "true or false", down.briefDescription)
                }
                func count(_ key: String) throws(InputError) -> Int {
                    let number = try reader.integer(
                        try reader.required(value, key, in: at, expected: "a count"), at: "\(at)/\(key)")
                    guard number >= 0 else { throw reader.fail("\(at)/\(key)", "a count of 0 or more", "\(number)") }
                    return number
                }
                return StoredState.Counts(
                    isDown: isDown, failuresInARow: try count("failuresInARow"),
                    passesInARow: try count("passesInARow"))
            }
            for (name, value) in members {
                let at = "/endpoints/\(JSONPointer.escape(name))"
                var checks: StoredState.Counts?
                if let stored = value["checks"] { checks = try counts(stored, at: "\(at)/checks", downKey: "failing") }
                read[name] = StoredState(answer: try counts(value, at: at, downKey: "down"), checks: checks)
            }
            states = read
        }
        let alerts = try reader.array(
            try reader.required(document, "alerts", in: "", expected: "an array of alerts"), at: "/alerts",
            expected: "an array of alerts")
        var items: [Item] = []
        for (index, value) in alerts.enumerated() {
            let at = "/alerts/\(index)"
            func string(_ key: String, expected: String = "a string") throws(InputError) -> String {
                try reader.string(try reader.required(value, key, in: at, expected: expected), at: "\(at)/\(key)")
            }
            func integer(_ key: String) throws(InputError) -> Int {
                try reader.integer(try reader.required(value, key, in: at, expected: "an integer"), at: "\(at)/\(key)")
            }
            // In the order the file has them, so the first bad field is the one named.
            let target = try integer("target")
            let receiver = try string("receiver")
            let stateText = try string("state", expected: "down, recovered, degraded or restored")
            guard let state = AlertEvent.State(rawValue: stateText) else {
                throw reader.fail("\(at)/state", "down, recovered, degraded or restored", "\"\(stateText)\"")
            }
            let atText = try string("at", expected: "an ISO 8601 time")
            guard let time = DisplayText.parseTimestamp(atText) else {
                throw reader.fail("\(at)/at", "an ISO 8601 time", "\"\(atText)\"")
            }
            items.append(
                Item(
                    target: target, receiver: receiver,
                    event: AlertEvent(
                        api: try string("api"), endpoint: try string("endpoint"), state: state, at: time,
                        message: try string("message"), url: try string("url"),
                        consecutive: try integer("consecutive")),
                    attempts: try integer("attempts")))
        }
        return Contents(items: items, states: states)
    }

    static func data(_ contents: Contents) -> Data {
        let items = contents.items
        let alerts: [JSONValue] = items.map { item in
            .object([
                ("target", .number(String(item.target))), ("receiver", .string(item.receiver)),
                ("api", .string(item.event.api)), ("endpoint", .string(item.event.endpoint)),
                ("state", .string(item.event.state.rawValue)),
                ("at", .string(DisplayText.timestamp(item.event.at, milliseconds: true))),
                ("message", .string(item.event.message)), ("url", .string(item.event.url)),
                ("consecutive", .number(String(item.event.consecutive))),
                ("attempts", .number(String(item.attempts))),
            ])
        }
        func counts(_ counts: StoredState.Counts, downKey: String) -> [(String, JSONValue)] {
            [
                (downKey, .bool(counts.isDown)), ("failuresInARow", .number(String(counts.failuresInARow))),
                ("passesInARow", .number(String(counts.passesInARow))),
            ]
        }
        let states: [(String, JSONValue)] = (contents.states ?? [:]).sorted { $0.key < $1.key }.map { name, state in
            (
                name,
                .object(
                    counts(state.answer, downKey: "down")
                        + (state.checks.map { [("checks", JSONValue.object(counts($0, downKey: "failing")))] } ?? []))
            )
        }
        let document = JSONValue.object([
            ("version", .number("2")), ("alerts", .array(alerts)), ("endpoints", .object(states)),
        ])
        return document.serialized(sortedKeys: true) + Data("\n".utf8)
    }

    /// Runs `body` with the outbox file's contents under the state file's lock, and writes back what it leaves
    /// (the file is removed when nothing is left: no alert waiting, and `states` `nil`). `contents.states` is `nil`
    /// when there was no file, or one without states: once written, the file stays, so that "no file" means "no
    /// state known" rather than "every endpoint up". `warning` says when the file was damaged and its alerts lost.
    static func withLockedFile<T>(
        _ url: URL, _ body: (inout Contents, _ warning: String?) async throws -> T
    ) async throws -> T {
        try await StateFile.update(url) { data in
            var contents = Contents(items: [], states: nil)
            var warning: String?
            if let data {
                do {
                    contents = try self.contents(from: data, file: url.relativePath)
                } catch {
                    warning = "\(error); its undelivered alerts and alert states are lost"
                }
            }
            let result = try await body(&contents, warning)
            let keeps = !contents.items.isEmpty || contents.states != nil
            return (keeps ? self.data(contents) : nil, result)
        }
    }

    // MARK: Delivering

    /// Adds `events` for every target, then delivers each receiver's queue oldest first until one fails; gives up
    /// alerts too old, too many, or for receivers the config no longer has. Returns a warning per receiver left
    /// waiting and per alert given up.
    static func deliver(
        _ items: inout [Item], adding events: [AlertEvent], sender: AlertSender, now: Date,
        deadline: ContinuousClock.Instant, outboxName: String?
    ) async -> [String] {
        let redactor = sender.redactor
        var warnings: [String] = []
        for event in events {
            var safe = event
            safe.message = redactor.redact(text: event.message)
            safe.url = redactor.redactURL(event.url)
            for (index, target) in sender.targets.enumerated() {
                items.append(Item(target: index, receiver: receiver(target), event: safe, attempts: 0))
            }
        }
        // Alerts for a receiver that is no longer in the config, or that waited too long, are given up.
        items.removeAll { item in
            let known =
                item.target < sender.targets.count && receiver(sender.targets[item.target]) == item.receiver
            let old = now.timeIntervalSince(item.event.at) > maximumAge
            guard !known || old else { return false }
            warnings.append(
                "gave up the \(item.event.state.rawValue) alert of \(item.event.endpoint) (\(DisplayText.timestamp(item.event.at))) to \(item.receiver): "
                    + (known ? "undelivered for more than 7 days" : "the config no longer has that receiver"))
            return true
        }
        var remaining: [Item] = []
        for (index, target) in sender.targets.enumerated() {
            var queue = items.filter { $0.target == index }
            if queue.count > maximumPerReceiver {
                for item in queue.prefix(queue.count - maximumPerReceiver) {
                    warnings.append(
                        "gave up the \(item.event.state.rawValue) alert of \(item.event.endpoint) (\(DisplayText.timestamp(item.event.at))) to \(item.receiver): more than \(maximumPerReceiver) alerts wait for it"
                    )
                }
                queue.removeFirst(queue.count - maximumPerReceiver)
            }
            var problem: String?
            while let item = queue.first {
                problem = await sender.deliver(
                    sender.payload(item.event, for: target.kind), to: target.url, deadline)
                if problem != nil { break }
                queue.removeFirst()
            }
            guard let problem, let first = queue.first else { continue }
            let waiting = queue.map { item in
                var item = item
                item.attempts += 1
                return item
            }
            remaining += waiting
            let place = outboxName.map { "kept in \($0)" } ?? "kept"
            // The URL redacted as a URL, the rest as text (text redaction would read the URL's last query value as
            // running on to the next space).
            warnings.append(
                redactor.redact(
                    text: "could not send the \(first.event.state.rawValue) alert of \(first.event.endpoint) to ")
                    + redactor.redactURL(target.url.absoluteString)
                    + redactor.redact(
                        text:
                            ": \(problem); \(DisplayText.count(waiting.count, "alert")) \(place) and sent again next round"
                    ))
        }
        items = remaining
        return warnings
    }
}
