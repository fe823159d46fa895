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
    /// In a process of its own (an exit test): every default thread kept busy would stall every other test of this
    /// process meanwhile.
    @Test func aLookupDoesNotWaitForTheDefaultThreads() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let server = try RawHTTPServer { _ in .respond(status: 200, headers: [:], body: "{}") }
            defer { server.stop() }
            let loader = HTTPLoader(maximumConnectionsPerHost: 1)
            defer { loader.close() }
            for host in ["localhost", "127.0.0.1"] {
                guard let url = URL(string: "http://\(host):\(server.port)/") else { exit(2) }
                let result = await whileTheDefaultThreadsAreBusy {
                    await loader.send(
                        ProbeRequest(url: url, timeout: .seconds(5), maxBodySize: 1_000),
                        deadline: .now + .seconds(30))
                }
                guard case .success(let response) = result, response.status == 200,
                    response.phases?.connectionReused == false
                else {
                    FileHandle.standardError.write(Data("\(url): \(result)\n".utf8))
                    exit(1)
                }
            }
        }
        if let result, result.exitStatus != .exitCode(0) {
            Issue.record("\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        }
    }
}
