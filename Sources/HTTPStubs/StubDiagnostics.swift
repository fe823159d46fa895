#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#else
import Foundation
#endif

// MARK: The request log, verification and the diagnostics of unmatched requests

extension StubSet {
    // MARK: Request log and verification

    /// Every request the set received, in order (redirect hops included).
    public var requests: [StubRequest] { state.withLock { $0.log.map(\.request) } }

    /// Every request with the stub that answered it.
    public var log: [LoggedRequest] { state.withLock { $0.log } }

    /// The requests that matched no stub.
    public var unmatchedRequests: [StubRequest] { state.withLock { $0.log.filter { $0.stub == nil }.map(\.request) } }

    /// How many requests a stub answered.
    public func hitCount(of handle: StubHandle) -> Int {
        state.withLock { $0.hits[handle.id] ?? 0 }
    }

    /// The logged requests that `matcher` accepts.
    public func requests(matching matcher: RequestMatcher) -> [StubRequest] {
        requests.filter { request in matcher.conditions.allSatisfy { $0.evaluate(request) == nil } }
    }

    /// Throws unless the stub answered exactly `count` requests.
    public func verify(_ handle: StubHandle, calledTimes count: Int) throws(StubVerificationError) {
        let hits = hitCount(of: handle)
        guard hits == count else {
            throw StubVerificationError(
                message: "stub \"\(handle.name)\" was called \(hits) time(s), expected \(count)")
        }
    }

    /// Throws when a request matched no stub, listing them.
    public func verifyNoUnmatchedRequests() throws(StubVerificationError) {
        let unmatched = unmatchedRequests
        guard unmatched.isEmpty else {
            throw StubVerificationError(
                message: "\(unmatched.count) request(s) matched no stub: "
                    + unmatched.map { "\($0.method) \($0.url.absoluteString)" }.joined(separator: "; "))
        }
    }

    /// The message of a request that matched nothing: the closest stubs and why each did not match.
    func diagnose(_ request: StubRequest) -> String {
        let stubs = state.withLock { Array($0.stubs.values) }
        var lines = ["HTTPStubs: no stub matches \(request.method) \(request.url.absoluteString)"]
        if stubs.isEmpty {
            lines.append("The stub set has no stubs.")
            return lines.joined(separator: "\n")
        }
        let ranked = stubs.map { stub -> (stub: Stub, passed: Int, reasons: [String]) in
            let reasons = stub.matcher.conditions.compactMap { $0.evaluate(request) }
            return (stub, stub.matcher.conditions.count - reasons.count, reasons)
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
