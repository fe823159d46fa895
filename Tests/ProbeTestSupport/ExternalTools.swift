import APIProbeTestSupport
package import Foundation
package import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finding and running the real tools some tests check against (Prometheus' `promtool`, the Pushgateway).
package enum ExternalTools {
    /// The executable `name` on `PATH`, or `nil`.
    package static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The Pushgateway binary: `prometheus-pushgateway` (Debian) or `pushgateway` (Homebrew, release archives).
    package static var pushgateway: URL? { find("prometheus-pushgateway") ?? find("pushgateway") }

    /// Records that `name` is missing: a failure under CI, a known issue elsewhere.
    /// `brewFormula` is what to install on macOS (default: `prometheus` or `pushgateway`).
    package static func recordMissing(
        _ name: String, package: String, brewFormula: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let formula = brewFormula ?? (package == "prometheus" ? "prometheus" : "pushgateway")
        let message =
            "\(name) is not on PATH; install it with apt-get install -y \(package) (.ci/run does) "
            + "or on macOS brew install \(formula)"
        TestEnvironment.recordMissing(message, sourceLocation: sourceLocation)
    }

    /// Runs `executable` with `input` on standard input; returns its status and combined output.
    package static func run(
        _ executable: URL, _ arguments: [String], input: String
    ) async throws -> (status: Int32, output: String) {
        let result = try await CommandLineRunner.runProcess(executable, arguments, input: Data(input.utf8))
        return (result.status, result.standardOutput + result.standardError)
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (the system picked it).
    package static func freeLoopbackPort() throws -> Int {
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
