#if canImport(FoundationNetworking)
import APIProbeShared
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

// MARK: The request log, verification and the diagnostics of unmatched requests

extension StubSet {
    // MARK: Request log and verification

    /// The requests the set received, in order (redirect hops included): the last ``requestLogLimit`` of them.
    public var requests: [StubRequest] { state.withLock { $0.log.retained.map(\.request) } }

    /// The requests of ``requests`` with the stub that answered each.
    public var log: [LoggedRequest] { state.withLock { Array($0.log.retained) } }

    /// The retained requests that matched no stub.
    public var unmatchedRequests: [StubRequest] {
        state.withLock { $0.log.retained.filter { $0.stub == nil }.map(\.request) }
    }

    /// How many requests the log keeps, the most recent ones (10,000 by default). A test that sends a hundred
    /// thousand requests through one set keeps memory bounded; hit counts and ``verifyNoUnmatchedRequests()``
    /// still count every request. Lowering it drops the oldest entries at once.
    public var requestLogLimit: Int {
        get { state.withLock { $0.log.limit } }
        set { state.withLock { $0.log.setLimit(newValue) } }
    }

    /// How many requests fell out of the log because of ``requestLogLimit``, oldest first.
    public var droppedRequestCount: Int { state.withLock { $0.log.droppedCount } }

    /// How many requests a stub answered.
    public func hitCount(of handle: StubHandle) -> Int {
        state.withLock { $0.hits[handle.id] ?? 0 }
    }

    /// The logged requests that `matcher` accepts.
    public func requests(matching matcher: RequestMatcher) -> [StubRequest] {
        requests.filter { request in matcher.conditions.allSatisfy { $0.evaluate(request) == nil } }
    }

    /// Throws unless the stub answered exactly `count` requests.
    ///
    /// `require…`, as ContractTesting names what throws (`requireDecoding`); its `verify…` functions return a
    /// result instead.
    public func requireCalls(to handle: StubHandle, count: Int) throws(StubVerificationError) {
        let hits = hitCount(of: handle)
        guard hits == count else {
            throw StubVerificationError(
                message: "stub \"\(handle.name)\" was called \(hits) time(s), expected \(count)")
        }
    }

    /// Throws unless the stub answered exactly `count` requests.
    @available(*, deprecated, renamed: "requireCalls(to:count:)")
    public func verify(_ handle: StubHandle, calledTimes count: Int) throws(StubVerificationError) {
        try requireCalls(to: handle, count: count)
    }

    /// Throws when a request matched no stub.
    @available(*, deprecated, renamed: "requireNoUnmatchedRequests()")
    public func verifyNoUnmatchedRequests() throws(StubVerificationError) {
        try requireNoUnmatchedRequests()
    }

    /// Throws when a request matched no stub, listing them.
    public func requireNoUnmatchedRequests() throws(StubVerificationError) {
        let (unmatched, total) = state.withLock { state in
            (state.log.retained.filter { $0.stub == nil }.map(\.request), state.log.unmatchedCount)
        }
        guard total == 0 else {
            var message = "\(total) request(s) matched no stub"
            if !unmatched.isEmpty {
                message += ": " + unmatched.map { "\($0.method) \($0.url.absoluteString)" }.joined(separator: "; ")
            }
            let earlier = total - unmatched.count
            if earlier > 0 {
                message += "; \(earlier) of them no longer in the log (see requestLogLimit)"
            }
            throw StubVerificationError(message: message)
        }
    }

    /// The message of a request that matched nothing: the closest stubs and why each did not match.
    func diagnose(_ request: StubRequest) -> String {
        let (stubs, machines) = state.withLock { (Array($0.stubs.values), $0.machines) }
        var lines = ["HTTPStubs: no stub matches \(request.method) \(request.url.absoluteString)"]
        if stubs.isEmpty {
            lines.append("The stub set has no stubs.")
            return lines.joined(separator: "\n")
        }
        let ranked = stubs.map { stub -> (stub: Stub, passed: Int, reasons: [String]) in
            var reasons = stub.matcher.conditions.compactMap { $0.evaluate(request) }
            let passed = stub.matcher.conditions.count - reasons.count
            if let reason = stub.stateReason(states: machines) { reasons.append(reason) }
            return (stub, passed, reasons)
        }
        .sorted { ($0.passed, $0.stub.id) > ($1.passed, $1.stub.id) }
        lines.append("Closest stubs (\(min(3, ranked.count)) of \(stubs.count)):")
        for (offset, entry) in ranked.prefix(3).enumerated() {
            lines.append("  \(offset + 1). \(entry.stub.name): \(entry.reasons.joined(separator: "; "))")
        }
        return lines.joined(separator: "\n")
    }
}

/// One request a set received, with the stub that answered it.
public struct LoggedRequest: Sendable, Hashable {
    public var request: StubRequest
    /// The stub that answered, or `nil` when none matched.
    public var stub: StubHandle?
    /// The status served, or `nil` for a fault or no match.
    public var status: Int?
}

/// A verification of the request log that did not hold.
public struct StubVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The request log of a set: the most recent `limit` entries, trimmed in batches so an append stays O(1).
struct RequestLog {
    private(set) var limit: Int
    private var entries: [LoggedRequest] = []
    /// Every request appended, and every one that matched no stub, since the last reset.
    private(set) var totalCount = 0
    private(set) var unmatchedCount = 0

    init(limit: Int = 10_000) {
        self.limit = max(1, limit)
    }

    /// The retained entries, oldest first.
    var retained: ArraySlice<LoggedRequest> { entries.suffix(limit) }
    var droppedCount: Int { totalCount - retained.count }

    mutating func append(_ entry: LoggedRequest) {
        totalCount += 1
        if entry.stub == nil { unmatchedCount += 1 }
        entries.append(entry)
        if entries.count >= 2 * limit { entries.removeFirst(entries.count - limit) }
    }

    mutating func setLimit(_ value: Int) {
        limit = max(1, value)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
    }
}
