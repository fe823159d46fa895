import APIProbeTestSupport
import Foundation
import NIOCore
import ProbeClient
import Testing

/// A transport error as a code (`ProbeClientError`), and the code as a probe's failure (`FailureClassification`).
@Suite(.hangGuard)
struct FailureClassificationTests {
    @Test func otherUnknownErrorsStayConnectionFailures() {
        let error = NSError(
            domain: NSURLErrorDomain, code: NSURLErrorUnknown,
            userInfo: [NSLocalizedDescriptionKey: "Failure when receiving data from the peer"])
        let failure = FailureClassification.classify(
            ProbeClientError(error), url: "http://127.0.0.1:1/", timeout: .seconds(5))
        #expect(failure.category == .connection)
    }

    /// A connect that runs out of time is a timeout. The rule once matched NIO's description, which reads
    /// "Connect timeout (1 ns)", so a host that never answered was reported as a lost connection.
    @Test func aConnectTimeoutIsATimeout() {
        let failure = FailureClassification.classify(
            ProbeClientError(ChannelError.connectTimeout(.nanoseconds(1))), url: "http://127.0.0.1:1/",
            timeout: .seconds(5))
        #expect(failure.category == .timeout)
        #expect(failure.message == "no complete response within 5s")
    }

    /// A request whose time is already up (a deadline passed while earlier requests ran) is cut by it: its
    /// connect, given no time, used to fail first on a busy machine and be reported as "connection lost".
    @Test func aRequestStartedAfterTheDeadlineIsCutByIt() async throws {
        let server = try RawHTTPServer { _ in .silent }
        defer { server.stop() }
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        for round in 0..<50 {
            // Past, or a moment away: either it is not sent, or the deadline cuts the attempt it starts.
            let deadline = ContinuousClock.now + (round.isMultiple(of: 2) ? .milliseconds(-1) : .microseconds(300))
            let result = await loader.send(
                ProbeRequest(
                    url: server.baseURL.appendingPathComponent("slow"), timeout: .seconds(30), maxBodySize: 1_000),
                deadline: deadline)
            guard case .failure(let error) = result else {
                Issue.record("answered after the deadline")
                continue
            }
            #expect([.cutByDeadline, .notSent].contains(error.code), "\(error.code): \(error)")
        }
    }
}
