import APIProbeTestSupport
import Foundation
import ProbeClient
import Testing

/// A host's lookup does not wait for the threads that the process's own computing holds.
///
/// On Linux, `DispatchQueue.global()` and the jobs of Swift's cooperative pool at the default priority run on one
/// set of threads, as many as the machine has cores. The loader looked hosts up there, so a process busy on its pool
/// held a new connection's lookup until the attempt's timeout cut it: in CI, a TLS test's probe of a loopback
/// server failed as timed out, "no certificate was seen", while CPU-heavy tests ran beside it.
@Suite(.hangGuard)
struct HostLookupTests {
    /// A lock-guarded flag the busy threads read.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var raised = false
        func raise() { lock.withLock { raised = true } }
        var isRaised: Bool { lock.withLock { raised } }
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func aLookupDoesNotWaitForTheDefaultThreads(host: String) async throws {
        let server = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { server.stop() }
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        let url = try #require(URL(string: "http://\(host):\(server.port)/"))

        // Every default-priority thread busy until the request has its answer (or a minute has passed).
        let done = Flag()
        let giveUp = Date().addingTimeInterval(60)
        for _ in 0...ProcessInfo.processInfo.activeProcessorCount {
            DispatchQueue.global().async {
                var spins = 0
                while !done.isRaised && Date() < giveUp { spins &+= 1 }
                if spins < 0 { print(spins) }
            }
        }
        // The request is sent from a high-priority task, whose jobs run on threads of their own: what is measured
        // is where the loader looks the host up, not where this test waits. (No sleep here: a sleeping task's wake
        // goes through the default threads too.)
        let result = await Task(priority: .high) {
            let result = await loader.send(
                ProbeRequest(url: url, timeout: .seconds(5), maxBodySize: 1_000),
                deadline: .now + .seconds(30))
            done.raise()
            return result
        }.value

        switch result {
        case .success(let response):
            #expect(response.status == 200)
            #expect(response.phases?.connectionReused == false)
        case .failure(let error):
            Issue.record("\(url): \(error.code): \(error)")
        }
    }
}
