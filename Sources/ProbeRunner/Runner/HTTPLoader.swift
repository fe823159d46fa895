import Foundation
import HTTPFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one HTTP attempt gave: a response and its body, or a transport error; with its timing.
struct Attempt: Sendable {
    var response: HTTPURLResponse?
    var body: Data
    var error: (any Error)?
    /// Cancelled by the per-request timeout or the round's deadline.
    var timedOut: Bool
    var cutByDeadline: Bool
    var latency: Duration
    var timeToFirstByte: Duration?
    var redirectedTo: URL?
}

/// A response body larger than the endpoint's `maxBodySize`: reading stopped at the limit.
struct BodyTooLarge: Error, Sendable, Hashable {
    /// The limit, in bytes.
    var limit: Int
}

/// Sends requests on one ephemeral session (no cache, no cookies) through a delegate, so the time to the
/// response head is seen, redirects are followed and noted, and a whole-request timeout can cut a body
/// that trickles in.
final class HTTPLoader: @unchecked Sendable {
    private let session: URLSession
    private let delegate: LoaderDelegate

    init(maximumConnectionsPerHost: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        configuration.timeoutIntervalForResource = 7 * 24 * 3_600
        delegate = LoaderDelegate()
        #if canImport(FoundationNetworking)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: SerialDelegateQueue())
        #else
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        #endif
    }

    /// Ends the session once its tasks are done (breaks the session–delegate cycle).
    func close() { session.finishTasksAndInvalidate() }

    /// One attempt: cut after `timeout`, or at `deadline` when that comes first; a body longer than
    /// `maxBodySize` bytes (announced by `Content-Length`, or read so far) stops the transfer there and fails
    /// the attempt with ``BodyTooLarge``, so memory stays bounded whatever the server sends.
    func send(
        _ request: URLRequest, timeout: Duration, deadline: ContinuousClock.Instant, maxBodySize: Int,
        followsRedirects: Bool = true
    ) async -> Attempt {
        let clock = ContinuousClock()
        var request = request
        let now = clock.now
        let limit = min(timeout, deadline - now)
        let cutByDeadline = deadline - now < timeout
        // The watchdog below cuts the request exactly; URLSession's own (idle) timeout is only a backstop,
        // in whole seconds above the limit: swift-corelibs-foundation truncates it to whole seconds, so
        // 0.6 s would become an immediate timeout.
        let backstop = (limit.timeInterval + 1).rounded(.up)
        // Set only when it changes: a URLRequest copies its storage on every write.
        if request.timeoutInterval != backstop { request.timeoutInterval = backstop }
        let task = session.dataTask(with: request)
        return await withCheckedContinuation { continuation in
            let state = TaskState(start: clock.now, limit: maxBodySize, continuation: continuation)
            state.followsRedirects = followsRedirects
            delegate.register(task.taskIdentifier, state)
            task.resume()
            let identifier = task.taskIdentifier
            let watchdog = DispatchWorkItem { [weak task, weak delegate] in
                if delegate?.markTimedOut(identifier, byDeadline: cutByDeadline) == true { task?.cancel() }
            }
            delegate.setWatchdog(identifier, watchdog)
            DispatchQueue.global().asyncAfter(deadline: .now() + limit.timeInterval, execute: watchdog)
        }
    }
}

#if canImport(FoundationNetworking)
/// The loader's delegate queue on Linux: the session's delegate calls run in order on one serial dispatch
/// queue, without an `Operation` each.
///
/// swift-corelibs-foundation sends every delegate call (three a request: the response head, the body,
/// the end) through `OperationQueue.addOperation`, whose bookkeeping cost the runner about a tenth of its
/// request rate beside a bare `session.data(for:)`, which gets one call. Every way in is overridden, so
/// calls stay in order whichever corelibs uses; `LoaderDelegate` is thread-safe and needs no more.
final class SerialDelegateQueue: OperationQueue, @unchecked Sendable {
    private let queue = DispatchQueue(label: "apiprobe.loader.delegate")

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        queue.async(execute: block)
    }

    override func addOperation(_ operation: Operation) {
        let transfer = Unchecked(value: [operation])
        queue.async { transfer.value.forEach { $0.start() } }
    }

    override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        let transfer = Unchecked(value: operations)
        let run: @Sendable () -> Void = { transfer.value.forEach { $0.start() } }
        if wait { queue.sync(execute: run) } else { queue.async(execute: run) }
    }

    /// Operations cross to the queue that runs them, and only it touches them.
    private struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
    }
}
#endif

/// One task's progress, filled in by the delegate.
final class TaskState: @unchecked Sendable {
    let start: ContinuousClock.Instant
    var firstByte: ContinuousClock.Instant?
    var response: HTTPURLResponse?
    var body = Data()
    var redirectedTo: URL?
    /// `false` (an endpoint's `followRedirects: false`): a 3xx response is the answer.
    var followsRedirects = true
    var timedOut = false
    var cutByDeadline = false
    /// The most body bytes kept; more cancels the task.
    let limit: Int
    var tooLarge = false
    var watchdog: DispatchWorkItem?
    var continuation: CheckedContinuation<Attempt, Never>?

    init(start: ContinuousClock.Instant, limit: Int, continuation: CheckedContinuation<Attempt, Never>) {
        self.start = start
        self.limit = limit
        self.continuation = continuation
    }
}

final class LoaderDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var states: [Int: TaskState] = [:]

    func register(_ identifier: Int, _ state: TaskState) {
        lock.withLock { states[identifier] = state }
    }

    /// The timer that cuts the task; cancelled when the task ends first.
    func setWatchdog(_ identifier: Int, _ watchdog: DispatchWorkItem) {
        let finished: Bool = lock.withLock {
            guard let state = states[identifier] else { return true }
            state.watchdog = watchdog
            return false
        }
        if finished { watchdog.cancel() }
    }

    private func state(_ identifier: Int) -> TaskState? { lock.withLock { states[identifier] } }

    /// Marks a task as cut by a timeout; `false` when it already finished.
    func markTimedOut(_ identifier: Int, byDeadline: Bool) -> Bool {
        lock.withLock {
            guard let state = states[identifier] else { return false }
            state.timedOut = true
            state.cutByDeadline = byDeadline
            return true
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        var announcedTooLarge = false
        if let state = state(dataTask.taskIdentifier) {
            lock.withLock {
                state.firstByte = ContinuousClock.now
                state.response = response as? HTTPURLResponse
                if response.expectedContentLength > Int64(state.limit) {
                    state.tooLarge = true
                    announcedTooLarge = true
                }
            }
        }
        if announcedTooLarge {
            completionHandler(.cancel)
            dataTask.cancel()
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let state = state(dataTask.taskIdentifier) else { return }
        let overLimit: Bool = lock.withLock {
            guard !state.tooLarge else { return false }
            guard state.body.count + data.count <= state.limit else {
                state.tooLarge = true
                state.body = Data()
                return true
            }
            state.body.append(data)
            return false
        }
        // Cancelling waits for the session's own queue, which is busy reading while a fast body streams in:
        // cancel from elsewhere, so this queue goes on dropping what arrives meanwhile instead of piling it up.
        if overLimit { DispatchQueue.global().async { dataTask.cancel() } }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let state = state(task.taskIdentifier) else {
            completionHandler(request)
            return
        }
        let follows = lock.withLock { () -> Bool in
            if state.followsRedirects { state.redirectedTo = request.url }
            return state.followsRedirects
        }
        completionHandler(follows ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let end = ContinuousClock.now
        let finished: (TaskState, CheckedContinuation<Attempt, Never>, DispatchWorkItem?)? = lock.withLock {
            guard let state = states.removeValue(forKey: task.taskIdentifier), let continuation = state.continuation
            else { return nil }
            state.continuation = nil
            return (state, continuation, state.watchdog)
        }
        guard let (state, continuation, watchdog) = finished else { return }
        watchdog?.cancel()
        let response = (task.response as? HTTPURLResponse) ?? state.response
        let (tooLarge, cutTimedOut): (Bool, Bool) = lock.withLock { (state.tooLarge, state.timedOut) }
        if tooLarge {
            let attempt = Attempt(
                response: nil, body: Data(), error: BodyTooLarge(limit: state.limit), timedOut: false,
                cutByDeadline: false, latency: end - state.start,
                timeToFirstByte: state.firstByte.map { $0 - state.start }, redirectedTo: state.redirectedTo)
            continuation.resume(returning: attempt)
            return
        }
        let timedOut = cutTimedOut || (error as? URLError)?.code == .timedOut
        let attempt = Attempt(
            response: error == nil ? response : nil,
            body: error == nil ? state.body : Data(),
            error: error,
            timedOut: error != nil && timedOut,
            cutByDeadline: error != nil && state.cutByDeadline,
            latency: end - state.start,
            timeToFirstByte: state.firstByte.map { $0 - state.start },
            redirectedTo: state.redirectedTo
        )
        continuation.resume(returning: attempt)
    }
}
