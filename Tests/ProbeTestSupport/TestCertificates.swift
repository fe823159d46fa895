import APIProbeTestSupport
package import Foundation
import Testing

/// Certificates made by `openssl` in a new temporary folder: a CA, leaves it signed (valid for localhost and
/// 127.0.0.1; expiring in 3 days; expired; naming another host; a client certificate), and a self-signed one.
package struct TestCertificates: Sendable {
    package let folder: URL
    package static let openssl = ExternalTools.find("openssl")

    /// A file in the folder.
    package func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// The folder, made once per test process (made again if the first try failed).
    package static func shared() async throws -> TestCertificates {
        try await Cache.shared.certificates()
    }

    /// One making for every caller: tests that ask at once wait for the same `openssl` runs. (An actor alone let
    /// each caller that came during the first making's `await` start its own: 19 folders in one run.)
    private actor Cache {
        static let shared = Cache()
        private var making: Task<TestCertificates, any Error>?

        func certificates() async throws -> TestCertificates {
            let task = making ?? Task { try await TestCertificates.make() }
            making = task
            do {
                return try await task.value
            } catch {
                making = nil
                throw error
            }
        }
    }

    package static func make() async throws -> TestCertificates {
        let openssl = try #require(openssl, "openssl is not on PATH (apt-get install -y openssl; .ci/run does)")
        let folder = try TemporaryFolder.makeUnscoped("tls-certificates")
        func run(_ arguments: [String]) async throws {
            let result = try await CommandLineRunner.runProcess(openssl, arguments, in: folder)
            try #require(result.status == 0, "openssl \(arguments.joined(separator: " ")): \(result)")
        }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try await run(
            ["req", "-x509"] + newKey + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "60", "-subj", "/CN=apiprobe test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try await run(["req"] + newKey + ["-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost"])
        let extensions = [
            "server.ext":
                "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
            "other.ext": "subjectAltName=DNS:other.example\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
            "client.ext": "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n",
        ]
        for (name, text) in extensions { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        for (name, days, ext) in [
            ("valid", "30", "server.ext"), ("expiring", "3", "server.ext"), ("expired", "-1", "server.ext"),
            ("mismatch", "30", "other.ext"), ("client", "30", "client.ext"),
        ] {
            try await run([
                "x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial",
                String(Int.random(in: 1_000...1_000_000)), "-out", "\(name).pem", "-days", days, "-extfile", ext,
            ])
        }
        // A chain whose intermediate expires first: the CA signs an intermediate valid 3 days, which signs a leaf
        // valid 30; `chained.pem` is what a server presents (the leaf, then the intermediate).
        try Data("basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n".utf8)
            .write(to: folder.appendingPathComponent("ca.ext"))
        try await run(
            ["req"] + newKey + [
                "-keyout", "intermediate.key", "-out", "intermediate.csr", "-subj", "/CN=apiprobe test intermediate",
            ])
        try await run([
            "x509", "-req", "-in", "intermediate.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial",
            String(Int.random(in: 1_000...1_000_000)), "-out", "intermediate.pem", "-days", "3", "-extfile", "ca.ext",
        ])
        try await run([
            "x509", "-req", "-in", "leaf.csr", "-CA", "intermediate.pem", "-CAkey", "intermediate.key", "-set_serial",
            String(Int.random(in: 1_000...1_000_000)), "-out", "chained-leaf.pem", "-days", "30", "-extfile",
            "server.ext",
        ])
        let chain =
            try Data(contentsOf: folder.appendingPathComponent("chained-leaf.pem"))
            + Data(contentsOf: folder.appendingPathComponent("intermediate.pem"))
        try chain.write(to: folder.appendingPathComponent("chained.pem"))
        try await run(
            ["req", "-x509"] + newKey + [
                "-keyout", "selfsigned.key", "-out", "selfsigned.pem", "-days", "30", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        try Data("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n".utf8)
            .write(to: folder.appendingPathComponent("bad.pem"))
        return TestCertificates(folder: folder)
    }

    /// The certificate's notAfter as openssl reads it (`notAfter=Nov 27 05:15:48 2026 GMT`).
    package func notAfter(_ name: String) async throws -> Date {
        let openssl = try #require(Self.openssl)
        let result = try await CommandLineRunner.runProcess(
            openssl, ["x509", "-in", "\(name).pem", "-noout", "-enddate"], in: folder)
        let text = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "MMM d HH:mm:ss yyyy zzz"
        let value = text.replacingOccurrences(of: "notAfter=", with: "").replacingOccurrences(of: "  ", with: " ")
        return try #require(formatter.date(from: value), "openssl said \(text)")
    }
}
