import APIProbeTestSupport
import Foundation
import HTTPStubs
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct StubIsolationTests {
    @Test func parallelSetsForTheSameURLEachAnswerTheirOwnRequests() async throws {
        let sets = (0..<50).map { index -> (StubSet, URLSession) in
            let set = StubSet()
            set.stub(.get(base + "/same"), response: .text("set \(index)"))
            return (set, set.makeSession())
        }
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for request in 0..<1_000 {
                let index = request % sets.count
                let session = sets[index].1
                group.addTask {
                    let (data, _) = try await get("/same", on: session)
                    return (index, text(data))
                }
            }
            var answered = 0
            for try await (index, body) in group {
                #expect(body == "set \(index)")
                answered += 1
            }
            #expect(answered == 1_000)
        }
        for (index, (set, _)) in sets.enumerated() {
            #expect(set.requests.count == 20, "set \(index) saw \(set.requests.count) requests")
        }
    }

    @Test func manyTasksShareOneSession() async throws {
        let set = StubSet()
        set.stub(.get(base + "/same"), response: .text("ok"))
        set.stub(.get(base + "/slow"), response: .text("slow").delayed(by: .milliseconds(1)))
        let session = set.makeSession()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var answered = 0
                    for request in 0..<300 {
                        let path = (task + request) % 4 == 0 ? "/slow" : "/same"
                        let (data, _) = try await get(path, on: session)
                        if text(data) == (path == "/slow" ? "slow" : "ok") { answered += 1 }
                    }
                    return answered
                }
            }
            var total = 0
            for try await answered in group { total += answered }
            #expect(total == 16 * 300)
        }
        #expect(set.requests.count == 16 * 300)
    }

    @Test func eachSetHasItsOwnProtocolClass() {
        let first: AnyClass? = StubSet().sessionConfiguration().protocolClasses?.first
        let second: AnyClass? = StubSet().sessionConfiguration().protocolClasses?.first
        #expect(first != nil && second != nil)
        #expect(ObjectIdentifier(first!) != ObjectIdentifier(second!))
    }

    @Test func aSessionThatOutlivesItsSetFailsWithAClearError() async throws {
        var set: StubSet? = StubSet()
        set?.stub(.any, response: .text("hi"))
        let session = URLSession(configuration: set!.sessionConfiguration())
        set = nil
        let error = await urlError { _ = try await get("/x", on: session) }
        #expect(error?.localizedDescription.contains("StubSet of this session was released") == true)
    }

    @Test func requestsNeverReachTheNetworkWhenNothingMatches() async throws {
        let set = StubSet()
        let session = set.makeSession()
        let error = await urlError {
            _ = try await send(URLRequest(url: URL(string: "http://127.0.0.1:9/")!), on: session)
        }
        #expect(error?.code == .resourceUnavailable)
        #expect(set.unmatchedRequests.count == 1)
    }
}

/// The global mode, run in a child process (`StubsGlobalModeCheck`) where the order of the first `StubSet`
/// and the first `URLSession` is fixed: in this process it depends on which test ran first, so an assertion
/// here could not always run.
@Suite(.hangGuard)
struct GlobalModeTests {
    private func runCheck(_ mode: String) async throws -> CommandResult {
        let program = CommandLineRunner.productsDirectory.appendingPathComponent("StubsGlobalModeCheck")
        return try await CommandLineRunner.runProcess(program, [mode])
    }

    @Test func aSetMadeBeforeAnySessionAnswersURLSessionSharedAndOnlyItsHosts() async throws {
        let result = try await runCheck("install")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.standardOutput == """
                ok installed
                ok answers URLSession.shared
                ok leaves other hosts to the network
                ok logs only its own requests
                ok stops answering once uninstalled
                ok logs nothing after uninstalling
                all checks held

                """, "\(result)")
    }

    @Test func installingAfterASessionIsRefusedWithAnExplanationOnLinux() async throws {
        let result = try await runCheck("refuse")
        #expect(result.status == 0, "\(result)")
        #if canImport(FoundationNetworking)
        #expect(result.standardOutput == "ok refused\nok says what to do\nall checks held\n", "\(result)")
        #else
        #expect(result.standardOutput == "ok installed\nall checks held\n", "\(result)")
        #endif
    }
}
