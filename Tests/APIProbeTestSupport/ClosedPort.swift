import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback port nothing listens on, for a test that expects "connection refused".
///
/// Binding port 0 and closing it races with every other test of the run: the system hands the same ephemeral port
/// to the next `bind(port: 0)`, and the "closed" port answers. This one is below the system's ephemeral range
/// (32768 and up on Linux, 49152 and up on Apple platforms), which no `bind(port: 0)` hands out, and was free when
/// checked.
public enum ClosedPort {
    /// A free TCP (or UDP) port on 127.0.0.1 in 20000–32767.
    public static func loopback(udp: Bool = false) -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000...32_767)
            if isFree(port, udp: udp) { return port }
        }
        return 9  // discard: closed on any test machine
    }

    private static func isFree(_ port: Int, udp: Bool) -> Bool {
        #if canImport(Glibc)
        let kind = Int32(udp ? SOCK_DGRAM.rawValue : SOCK_STREAM.rawValue)
        #else
        let kind = udp ? SOCK_DGRAM : SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, kind, 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
