import Foundation
import NIOSSL

/// An endpoint's `tls:` settings: what its certificate must satisfy and how to connect.
///
/// ```yaml
/// tls:
///   expiresIn: "> 14d"              # the leaf certificate expires more than 14 days from now
///   caFile: certs/internal-ca.pem   # trust this CA (PEM) instead of the system's roots
///   clientCertificate: certs/client.pem
///   clientKey: certs/client-key.pem # mTLS
///   insecure: true                  # do not verify (reported as such); the expiry is still read
/// ```
///
/// Paths are relative to the config file's folder. The files are read, and their PEM checked, when the config
/// is loaded: a missing file or bad PEM is a config error at the key that names it.
package struct TLSSettings: Sendable, Hashable {
    /// The least time the leaf certificate must have left (`> 14d`), or `nil` for no such check.
    package var minimumValidity: Duration?
    /// `expiresIn` as written (`> 14d`), for the check's name.
    package var expiresInText: String?
    /// The CA file as written in the config.
    package var caFile: String?
    package var clientCertificate: String?
    package var clientKey: String?
    /// `insecure: true`: connect without verifying the server's certificate.
    package var insecure: Bool = false
    /// The PEM contents of `caFile`, `clientCertificate` and `clientKey`, read when the config was loaded.
    package var caPEM: [UInt8]?
    package var clientCertificatePEM: [UInt8]?
    package var clientKeyPEM: [UInt8]?

    package init(
        minimumValidity: Duration? = nil, expiresInText: String? = nil, caFile: String? = nil,
        clientCertificate: String? = nil, clientKey: String? = nil, insecure: Bool = false
    ) {
        self.minimumValidity = minimumValidity
        self.expiresInText = expiresInText
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
        self.insecure = insecure
    }

    /// How the connection is made (everything but the expiry budget): connections are pooled per host and per this.
    var connectionKey: ConnectionSettings {
        ConnectionSettings(
            caPEM: caPEM, clientCertificatePEM: clientCertificatePEM, clientKeyPEM: clientKeyPEM, insecure: insecure)
    }
}

/// The part of ``TLSSettings`` a connection depends on.
struct ConnectionSettings: Sendable, Hashable {
    var caPEM: [UInt8]?
    var clientCertificatePEM: [UInt8]?
    var clientKeyPEM: [UInt8]?
    var insecure: Bool
}

extension TLSSettings {
    /// Reads a PEM private key as the TLS stack will when it connects; throws what the stack says of anything else.
    package static func checkPrivateKey(pem bytes: [UInt8]) throws {
        _ = try NIOSSLPrivateKey(bytes: bytes, format: .pem)
    }

    /// How many certificates a PEM file holds, read as the TLS stack will when it connects; throws what the stack
    /// says of text that is not PEM.
    package static func certificateCount(pem bytes: [UInt8]) throws -> Int {
        try NIOSSLCertificate.fromPEMBytes(bytes).count
    }
}
