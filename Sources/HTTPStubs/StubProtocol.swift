import APIProbeShared
package import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// MARK: One URLProtocol class per stub set
//
// On Linux a URLProtocol sees neither the session's `httpAdditionalHeaders` nor the test's task-local
// values, so nothing in a request can say which stub set it belongs to. The protocol class can: every
// stub set gets its own class, a generic subclass specialised on a marker type built from the set's
// slot number (one nested generic per binary digit, so the depth stays logarithmic), and the class
// finds its set through `ObjectIdentifier(Self.self)`.

protocol SlotMarker {
    static var withZero: any SlotMarker.Type { get }
    static var withOne: any SlotMarker.Type { get }
    static var protocolClass: StubURLProtocol.Type { get }
}

extension SlotMarker {
    static var withZero: any SlotMarker.Type { SlotDigit0<Self>.self }
    static var withOne: any SlotMarker.Type { SlotDigit1<Self>.self }
    static var protocolClass: StubURLProtocol.Type { SlotURLProtocol<Self>.self }
}

enum SlotEnd: SlotMarker {}
enum SlotDigit0<Rest: SlotMarker>: SlotMarker {}
enum SlotDigit1<Rest: SlotMarker>: SlotMarker {}

/// The protocol class of one slot.
final class SlotURLProtocol<Marker: SlotMarker>: StubURLProtocol {}

/// The protocol class registered with `URLProtocol.registerClass` for the global mode.
final class GlobalStubURLProtocol: StubURLProtocol {}

/// Which stub set each protocol class serves.
///
/// Slots are never reused: a session that outlives its stub set then fails with a clear error instead
/// of being answered by an unrelated set that took over the slot. A class costs a few hundred bytes of
/// metadata, so even a test run that makes a hundred thousand sets stays small.
enum StubRegistry {
    private struct Entry {
        weak var set: StubSet?
    }

    private struct State {
        var nextSlot = 0
        var sets: [ObjectIdentifier: Entry] = [:]
        var global: Entry?
    }

    private static let state = Locked(State())

    /// The protocol class of a new slot.
    static func makeProtocolClass() -> StubURLProtocol.Type {
        let slot = state.withLock { state -> Int in
            defer { state.nextSlot += 1 }
            return state.nextSlot
        }
        return markerType(for: slot).protocolClass
    }

    /// Makes `protocolClass` answer from `set`.
    static func bind(_ protocolClass: StubURLProtocol.Type, to set: StubSet) {
        state.withLock { $0.sets[ObjectIdentifier(protocolClass)] = Entry(set: set) }
    }

    static func unregister(_ protocolClass: StubURLProtocol.Type) {
        state.withLock { _ = $0.sets.removeValue(forKey: ObjectIdentifier(protocolClass)) }
    }

    static func set(for protocolClass: StubURLProtocol.Type) -> StubSet? {
        if protocolClass == GlobalStubURLProtocol.self {
            return state.withLock { $0.global?.set }
        }
        return state.withLock { $0.sets[ObjectIdentifier(protocolClass)]?.set }
    }

    /// Sets the set that answers the global protocol class; returns the one it replaces.
    @discardableResult
    static func setGlobal(_ set: StubSet?) -> StubSet? {
        state.withLock { state in
            let previous = state.global?.set
            state.global = set.map { Entry(set: $0) }
            return previous
        }
    }

    static func markerType(for slot: Int) -> any SlotMarker.Type {
        var type: any SlotMarker.Type = SlotEnd.self
        var remaining = slot
        repeat {
            type = remaining & 1 == 0 ? type.withZero : type.withOne
            remaining >>= 1
        } while remaining > 0
        return type
    }
}

/// Moves a non-Sendable Foundation object to the queue that delivers its response. The URL loading
/// system calls a protocol's client from any thread; the object is only used there.
struct UncheckedTransfer<Value>: @unchecked Sendable {
    let value: Value
}

/// The URLProtocol that answers requests from a stub set. Never used directly: each set has its own
/// subclass (see ``StubSet/sessionConfiguration(from:)``).
class StubURLProtocol: URLProtocol {
    /// One lock for the little state a load has (a lock per field cost a stubbed request measurably).
    private let loading = Locked(Loading())

    private struct Loading {
        var isStopped = false
        /// A delayed outcome waiting to be delivered on the session's work queue (Linux; see `startLoading`).
        var pending: StubOutcome?
        /// Set while this protocol suspends and resumes its own task to get back onto the work queue.
        var isHopping = false
        /// The wait on a stub set's injected clock, cancelled when the load stops.
        var wait: Task<Void, Never>?
    }

    override class func canInit(with request: URLRequest) -> Bool {
        // A stub set's session never reaches the network: requests that match nothing fail with a
        // diagnostic instead. The global class answers only while a set is installed, and only the hosts
        // its stubs name (see `StubSet.installGlobally()`).
        if self == GlobalStubURLProtocol.self {
            return StubRegistry.set(for: self)?.claims(host: request.url?.host) ?? false
        }
        return true
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override class func requestIsCacheEquivalent(_ a: URLRequest, to b: URLRequest) -> Bool { false }

    override func startLoading() {
        #if canImport(FoundationNetworking)
        let ready = loading.withLock { state -> StubOutcome? in
            guard state.isHopping, let outcome = state.pending else { return nil }
            state.pending = nil
            state.isHopping = false
            return outcome
        }
        if let ready {
            deliver(ready)
            return
        }
        #endif
        let request = StubRequest(self.request)
        let outcome: StubOutcome
        let set = StubRegistry.set(for: type(of: self))
        if let set {
            outcome = set.answer(request)
        } else {
            outcome = .failure(
                URLError(
                    .unknown,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "HTTPStubs: the StubSet of this session was released; keep the StubSet alive as long as the sessions made from its configuration",
                        NSURLErrorFailingURLErrorKey: request.url,
                    ]),
                latency: .zero
            )
        }
        // The client is called on the queue that called startLoading. swift-corelibs-foundation keeps a
        // session's tasks in a registry that only its work queue may touch, and the client reads it: called
        // from another thread it raced with the session's other tasks and crashed the process
        // (StubIsolationTests.manyTasksShareOneSession). So an undelayed outcome is delivered inline, and on
        // Linux a delayed one is delivered after the delay by suspending and resuming the task, which makes
        // the session call startLoading again on its work queue.
        let latency = outcome.latency
        guard latency > .zero else {
            deliver(outcome)
            return
        }
        let transfer = UncheckedTransfer(value: self)
        #if canImport(FoundationNetworking)
        loading.withLock { $0.pending = outcome }
        let afterDelay: @Sendable () -> Void = { transfer.value.returnToWorkQueue() }
        #else
        let afterDelay: @Sendable () -> Void = { transfer.value.deliver(outcome) }
        #endif
        if let sleep = set?.sleep {
            // The set's injected clock (a test's ManualClock): the delay ends when that clock says so.
            let wait = Task {
                do {
                    try await sleep(latency)
                } catch {
                    return
                }
                afterDelay()
            }
            let stopped = loading.withLock { state -> Bool in
                if !state.isStopped { state.wait = wait }
                return state.isStopped
            }
            if stopped { wait.cancel() }
        } else {
            let (seconds, attoseconds) = latency.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: afterDelay)
        }
    }

    #if canImport(FoundationNetworking)
    /// Suspends and resumes the task: the session stops and then starts this protocol on its work queue,
    /// where `startLoading` delivers the pending outcome.
    private func returnToWorkQueue() {
        guard let task else { return }
        let stopped = loading.withLock { state -> Bool in
            if !state.isStopped { state.isHopping = true }
            return state.isStopped
        }
        guard !stopped else { return }
        task.suspend()
        task.resume()
    }
    #endif

    override func stopLoading() {
        // The stop that `returnToWorkQueue` causes is not a cancellation.
        let wait = loading.withLock { state -> Task<Void, Never>? in
            guard !state.isHopping else { return nil }
            state.isStopped = true
            defer { state.wait = nil }
            return state.wait
        }
        wait?.cancel()
    }

    private func deliver(_ outcome: StubOutcome) {
        guard !loading.withLock({ $0.isStopped }), let client else { return }
        switch outcome {
        case .failure(let error, _):
            client.urlProtocol(self, didFailWithError: error)
        case .response(let wire, let location, _, _):
            let url = location.url
            if case .failed(let code) = wire.ending {
                client.urlProtocol(
                    self, didFailWithError: URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: url]))
                return
            }
            guard
                let http = HTTPURLResponse(
                    url: url, statusCode: wire.status, httpVersion: "HTTP/1.1", headerFields: wire.foundationHeaders)
            else {
                client.urlProtocol(self, didFailWithError: URLError(.badServerResponse))
                return
            }
            client.urlProtocol(self, didReceive: http, cacheStoragePolicy: .notAllowed)
            // One didLoad call: on Linux several calls deliver only the last chunk.
            if !wire.body.isEmpty { client.urlProtocol(self, didLoad: wire.body) }
            if case .connectionLost = wire.ending {
                client.urlProtocol(
                    self,
                    didFailWithError: URLError(.networkConnectionLost, userInfo: [NSURLErrorFailingURLErrorKey: url]))
            } else {
                client.urlProtocolDidFinishLoading(self)
            }
        }
    }
}

/// A stub's response as the URL loading system receives it: the fault applied to the body and the
/// `Content-Length` added. Prepared once, when the stub is added.
package struct WireResponse: Sendable {
    package enum Ending: Sendable {
        case finished
        /// The body (already cut) arrives, then the connection is lost.
        case connectionLost
        /// No response at all: the request fails with this code.
        case failed(URLError.Code)
    }

    package var status: Int {
        didSet { prepared = nil }
    }
    package var headers: HeaderFields {
        didSet {
            foundationHeaders = headers.dictionary
            prepared = nil
        }
    }
    /// `headers` as `HTTPURLResponse` takes them (a repeated field's values joined), made once, not per request.
    package private(set) var foundationHeaders: [String: String]
    package var body: Data {
        didSet { prepared = nil }
    }
    package var ending: Ending {
        didSet { prepared = nil }
    }
    /// The response in another server's terms (`apiprobe serve`'s fields and body buffer), made once by
    /// ``StubSet/preparesWire`` when the stub is added; gone as soon as the response is changed (a HEAD's
    /// answer without its body), so it is never a stale copy.
    package private(set) var prepared: (any AnyObject & Sendable)?

    /// Whether the response is a 401 with a `WWW-Authenticate` challenge, which swift-corelibs-foundation never
    /// completes: the set renames or refuses it on Linux (``StubSet/renamesAuthenticationChallenges``).
    var challengesAuthentication: Bool { status == 401 && headers.contains("WWW-Authenticate") }

    /// This response, with what `prepare` makes of it.
    func preparing(_ prepare: (WireResponse) -> any AnyObject & Sendable) -> WireResponse {
        var copy = self
        copy.prepared = prepare(self)
        return copy
    }

    init(_ response: StubResponse) {
        status = response.status
        headers = response.headers
        foundationHeaders = [:]
        body = response.body
        ending = .finished
        switch response.fault?.storage {
        case .dropped(let bytes)?:
            body = body.prefix(bytes)
            ending = .connectionLost
        case .malformed?:
            body = body.isEmpty ? Data("{".utf8) : body.prefix(max(1, body.count / 2))
        case .error(let code)?:
            ending = .failed(code)
        case nil:
            break
        }
        if case .finished = ending, !headers.contains("Content-Length") {
            headers["Content-Length"] = String(body.count)
        }
        foundationHeaders = headers.dictionary
    }
}

/// What a stub set decided for one request.
package enum StubOutcome: Sendable {
    /// `answeredBy`: the stub's name (the fixture's, for a fixture; for a sequence, the one of this turn).
    /// `at`: where the request answered (the last of a redirect's hops) was sent.
    case response(WireResponse, at: StubRequest.Location, latency: Duration, answeredBy: String)
    case failure(URLError, latency: Duration)

    var latency: Duration {
        switch self {
        case .response(_, _, let latency, _), .failure(_, let latency): return latency
        }
    }
}
