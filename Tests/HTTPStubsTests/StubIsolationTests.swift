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

@Suite(.serialized)
struct GlobalModeTests {
    /// Installs `set` globally, or checks that the refusal says why (Linux, when a URLSession was made
    /// before the first StubSet in this process). Returns whether it is installed.
    private func install(_ set: StubSet) -> Bool {
        do {
            try set.installGlobally()
            return true
        } catch {
            #if canImport(FoundationNetworking)
            #expect(error.message.contains("URLSession.shared cannot be stubbed in this process"))
            #expect(error.message.contains("Make a StubSet before any URLSession"))
            #else
            Issue.record("installGlobally failed on Apple's Foundation: \(error)")
            #endif
            return false
        }
    }

    @Test func installedSetAnswersURLSessionShared() async throws {
        let set = StubSet()
        set.stub(.get(base + "/global"), response: .json(text: #"{"ok":true}"#))
        guard install(set) else { return }
        defer { set.uninstallGlobally() }
        let (data, response) = try await get("/global", on: URLSession.shared)
        #expect(response.statusCode == 200)
        #expect(text(data) == #"{"ok":true}"#)
        #expect(set.requests.map(\.url.path) == ["/global"])
    }

    @Test func installedSetLeavesOtherHostsToTheNetwork() async throws {
        let set = StubSet()
        set.stub(.get(base + "/global"), response: .json(text: #"{"ok":true}"#))
        guard install(set) else { return }
        defer { set.uninstallGlobally() }
        // Another test's request through URLSession.shared to its own loopback server (here a closed port)
        // is not taken by the set.
        let other = URL(string: "http://127.0.0.1:9/elsewhere")!
        let error = await urlError {
            _ = try await send(URLRequest(url: other, timeoutInterval: 5), on: URLSession.shared)
        }
        #expect(error != nil)
        #expect(error?.code != .resourceUnavailable, "the global set answered a host none of its stubs names")
        #expect(set.requests.isEmpty)
    }

    @Test func uninstallingStopsAnsweringGlobalRequests() async throws {
        let set = StubSet()
        set.stub(.any, response: .text("stubbed"))
        guard install(set) else { return }
        set.uninstallGlobally()
        let error = await urlError {
            _ = try await send(
                URLRequest(url: URL(string: "http://127.0.0.1:9/")!, timeoutInterval: 5), on: URLSession.shared)
        }
        #expect(error != nil)
        #expect(set.requests.isEmpty)
    }
}
