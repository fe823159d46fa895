import APIProbeTestSupport
import Foundation
import ProbeClient
import Testing

/// A host's lookup does not wait for the threads that the process's own computing holds.
///
/// On Linux, `DispatchQueue.global()` and the jobs of Swift's cooperative pool at the default priority run on one
/// set of threads, as many as the machine has cores. The loader looked hosts up there, so a process busy on its pool
/// held a new connection's lookup until the attempt's timeout cut it: in CI, a TLS test's probe of a loopback
/// server failed as timed out, "no certificate was seen", while CPU-heavy tests ran beside it. (The TLS chain's
/// verification, the other step that waited there: `TLSProbeTests.aHandshakeDoesNotWaitForABusyPool`.)
@Suite(.hangGuard)
struct HostLookupTests {
    @Test(arguments: ["localhost", "127.0.0.1"])
    func aLookupDoesNotWaitForTheDefaultThreads(host: String) async throws {
        let server = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
        defer { server.stop() }
        let loader = HTTPLoader(maximumConnectionsPerHost: 1)
        defer { loader.close() }
        let url = try #require(URL(string: "http://\(host):\(server.port)/"))

        let result = await whileTheDefaultThreadsAreBusy {
            await loader.send(
                ProbeRequest(url: url, timeout: .seconds(5), maxBodySize: 1_000), deadline: .now + .seconds(30))
        }
        switch result {
        case .success(let response):
            #expect(response.status == 200)
            #expect(response.phases?.connectionReused == false)
        case .failure(let error):
            Issue.record("\(url): \(error.code): \(error)")
        }
    }
}
