// The global mode of HTTPStubs (`StubSet.installGlobally()`), checked in a process of its own.
//
// Whether `URLSession.shared` can be stubbed depends on what the process did before the first `StubSet`
// (on Linux, a URLSession made earlier keeps the protocol list it saw). The test process makes sessions in
// any order, so these checks run here, where the order is fixed, and `GlobalModeTests` asserts on what this
// program prints. Usage: `StubsGlobalModeCheck install` (a StubSet is made before any URLSession) or
// `StubsGlobalModeCheck refuse` (URLSession.shared is used first).
import Foundation
import HTTPStubs

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let mode = CommandLine.arguments.dropFirst().first ?? "install"
if mode == "refuse" {
    _ = URLSession.shared.configuration  // the process's shared session exists before any StubSet
}
let set = StubSet()
var failures = 0

@MainActor func check(_ name: String, _ condition: Bool, _ detail: @autoclosure () -> String = "") {
    print(condition ? "ok \(name)" : "FAILED \(name): \(detail())")
    if !condition { failures += 1 }
}

func fetch(_ url: String) async -> (status: Int?, body: String, error: URLError?) {
    do {
        let (data, response) = try await URLSession.shared.data(
            for: URLRequest(url: URL(string: url)!, timeoutInterval: 5))
        return ((response as? HTTPURLResponse)?.statusCode, String(decoding: data, as: UTF8.self), nil)
    } catch let error as URLError {
        return (nil, "", error)
    } catch {
        return (nil, "\(error)", nil)
    }
}

switch mode {
case "refuse":
    do {
        try set.installGlobally()
        #if canImport(FoundationNetworking)
        check("refused", false, "installGlobally succeeded after URLSession.shared was used")
        #else
        check("installed", true)  // Apple's Foundation consults registered classes whenever it loads
        set.uninstallGlobally()
        #endif
    } catch {
        check("refused", error.message.contains("URLSession.shared cannot be stubbed in this process"), error.message)
        check("says what to do", error.message.contains("Make a StubSet before any URLSession"), error.message)
    }
default:
    set.stub(.get("https://api.example.com/global"), response: .json(text: #"{"ok":true}"#))
    do {
        try set.installGlobally()
        check("installed", true)
    } catch {
        check("installed", false, error.message)
    }
    let answered = await fetch("https://api.example.com/global")
    check("answers URLSession.shared", answered.status == 200 && answered.body == #"{"ok":true}"#, "\(answered)")

    // A request to a host no stub names (another test's loopback server; here a closed port) is left alone.
    let other = await fetch("http://127.0.0.1:9/elsewhere")
    check(
        "leaves other hosts to the network",
        other.error != nil && other.error?.code != .resourceUnavailable, "\(other)")
    check("logs only its own requests", set.requests.map(\.url.path) == ["/global"], "\(set.requests)")

    set.uninstallGlobally()
    let after = await fetch("https://api.example.com/global")
    check("stops answering once uninstalled", after.status != 200, "\(after)")
    check("logs nothing after uninstalling", set.requests.count == 1, "\(set.requests)")
}
print(failures == 0 ? "all checks held" : "\(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)
