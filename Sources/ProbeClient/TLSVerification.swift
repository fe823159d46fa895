import APIProbeShared
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import X509

/// The NIOSSL contexts of a loader, one per connection settings (loading trust roots is not free).
final class TLSContextCache: Sendable {
    private let contexts = Locked<[ConnectionSettings: NIOSSLContext]>([:])

    /// Makes the contexts of `settings` before any request is timed (a context loads its trust roots and keys), and
    /// starts loading the system's roots for the chain checks in the background. What fails here fails again, and
    /// is reported, at the request.
    func prepare(_ settings: some Sequence<TLSSettings>) {
        var usesSystemRoots = false
        for item in settings {
            _ = try? context(for: item)
            if item.caPEM == nil && !item.insecure { usesSystemRoots = true }
        }
        if usesSystemRoots { _ = CertificateStore.systemTrustRoots }
    }

    func context(for settings: TLSSettings) throws -> NIOSSLContext {
        let key = settings.connectionKey
        if let context = contexts.withLock({ $0[key] }) { return context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = settings.insecure ? .none : .fullVerification
        if let ca = settings.caPEM {
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(ca))
        }
        if let certificate = settings.clientCertificatePEM, let key = settings.clientKeyPEM {
            configuration.certificateChain = try NIOSSLCertificate.fromPEMBytes(certificate).map { .certificate($0) }
            configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: key, format: .pem))
        }
        let context = try NIOSSLContext(configuration: configuration)
        contexts.withLock { $0[key] = context }
        return context
    }
}

/// Verifies a server's certificates for one connection and says why they failed: expired, not yet valid,
/// self-signed, an unknown authority, a name mismatch.
///
/// The chain is verified with swift-certificates (RFC 5280 path validation, then the host name by RFC 6125) against
/// the endpoint's `caFile`, or the system's roots on Linux. BoringSSL alone answers only "certificate verify
/// failed". On Apple platforms without a `caFile`, the system's verifier (through NIOSSL) decides, and a failure
/// is named from its message.
final class TLSVerification: Sendable {
    let host: String
    let settings: TLSSettings
    private let outcome = Locked<(chain: [Certificate], failure: ProbeClientError?)?>(nil)

    init(host: String, settings: TLSSettings) {
        self.host = host
        self.settings = settings
    }

    /// Whether this verifies the chain itself (a custom verification callback) rather than leaving it to NIOSSL.
    var verifiesItself: Bool {
        #if os(Linux)
        return !settings.insecure
        #else
        return !settings.insecure && settings.caPEM != nil
        #endif
    }

    /// NIOSSL's custom verification callback: the presented chain, judged on a task of the probe client's own
    /// threads (``dedicatedTask(_:_:)``), not the cooperative pool's: the handshake waits for it, inside the
    /// attempt's timeout, and a process computing on its pool held it there until the timeout cut the attempt.
    func verify(_ certificates: [NIOSSLCertificate], promise: EventLoopPromise<NIOSSLVerificationResult>) {
        let chain = certificates.compactMap { try? Certificate(derEncoded: $0.toDERBytes()) }
        let roots = rootStore()
        let host = host
        dedicatedTask(.probeClient) {
            let failure = await Self.check(chain, host: host, roots: roots, now: Date())
            self.outcome.withLock { $0 = (chain, failure) }
            promise.succeed(failure == nil ? .certificateVerified : .failed)
        }
    }

    private func rootStore() -> CertificateStore {
        if let ca = settings.caPEM {
            let certificates = (try? NIOSSLCertificate.fromPEMBytes(ca)) ?? []
            return CertificateStore(certificates.compactMap { try? Certificate(derEncoded: $0.toDERBytes()) })
        }
        return CertificateStore.systemTrustRoots
    }

    /// `nil` when `chain` is trusted and names `host`; otherwise why not.
    static func check(_ chain: [Certificate], host: String, roots: CertificateStore, now: Date) async
        -> ProbeClientError?
    {
        guard let leaf = chain.first else {
            return ProbeClientError(reason: .handshake, detail: "the server sent no certificate")
        }
        if now > leaf.notValidAfter {
            return ProbeClientError(
                reason: .expired, detail: "the certificate expired \(DisplayText.timestamp(leaf.notValidAfter))")
        }
        if now < leaf.notValidBefore {
            return ProbeClientError(
                reason: .notYetValid,
                detail: "the certificate is valid from \(DisplayText.timestamp(leaf.notValidBefore))")
        }
        let intermediates = CertificateStore(chain.dropFirst())
        var chainVerifier = Verifier(rootCertificates: roots) { RFC5280Policy() }
        if case .couldNotValidate(let failures) = await chainVerifier.validate(
            leaf: leaf, intermediates: intermediates)
        {
            if leaf.issuer == leaf.subject {
                return ProbeClientError(
                    reason: .selfSigned, detail: "the certificate signs itself (\(leaf.subject)) and is not trusted")
            }
            let detail = failures.first.map { "\($0.policyFailureReason)" }
            return ProbeClientError(
                reason: .unknownAuthority,
                detail: detail ?? "no trusted root issued \(leaf.issuer) (\(leaf.subject))")
        }
        let isIP = Target.isIPAddress(host)
        var nameVerifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        }
        if case .couldNotValidate = await nameVerifier.validate(leaf: leaf, intermediates: intermediates) {
            return ProbeClientError(
                reason: .nameMismatch, detail: "the certificate (\(leaf.subject)) does not name \(host)")
        }
        return nil
    }

    /// Why the handshake (or the connection after it) failed: the reason found while verifying, else one named
    /// from the TLS library's error.
    func failure(for error: any Error) -> any Error {
        if let failure = outcome.withLock({ $0?.failure }) { return failure }
        return Self.classify(error) ?? ProbeClientError(reason: .handshake, detail: Self.handshakeDetail(error))
    }

    /// Our own words for a handshake the TLS library ended: what went wrong, with the library's reason code when
    /// it gave one (`WRONG_VERSION_NUMBER`), never its text, which carries the build machine's file paths
    /// (`… at /…/.build/checkouts/swift-nio-ssl/…/tls_record.cc:491`).
    static func handshakeDetail(_ error: any Error) -> String {
        let codes = libraryReasons(in: "\(error)")
        let base: String
        switch error {
        case let error as NIOSSLError:
            switch error {
            case .uncleanShutdown: base = "the server closed the connection during the handshake"
            case .handshakeFailed: base = "the TLS handshake failed"
            default: base = "the TLS connection failed"
            }
        case is BoringSSLError: base = "the TLS handshake failed"
        default: base = "the TLS handshake failed (\(type(of: error)))"
        }
        return codes.isEmpty ? base : base + ": " + codes.joined(separator: ", ")
    }

    /// BoringSSL's reason codes in an error's text: the upper-case word after each `OPENSSL_internal:`.
    static func libraryReasons(in text: String) -> [String] {
        var codes: [String] = []
        var rest = Substring(text)
        while let marker = rest.range(of: "OPENSSL_internal:") {
            let code = rest[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
            if !code.isEmpty, !codes.contains(String(code)) { codes.append(String(code)) }
            rest = rest[marker.upperBound...]
        }
        return codes
    }

    /// A TLS library error as a reason, or `nil` when it is not one: the server's alerts name a missing or refused
    /// client certificate; BoringSSL names verification failures.
    static func classify(_ error: any Error) -> ProbeClientError? {
        guard error is NIOSSLError || error is BoringSSLError else { return nil }
        let text = "\(error)"
        let upper = text.uppercased()
        let reason: TLSFailureReason
        if upper.contains("CERTIFICATE_REQUIRED") || upper.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") {
            reason = .clientCertificateRequired
        } else if upper.contains("ALERT_BAD_CERTIFICATE") || upper.contains("ALERT_UNKNOWN_CA")
            || upper.contains("ALERT_CERTIFICATE_UNKNOWN") || upper.contains("ALERT_ACCESS_DENIED")
            || upper.contains("ALERT_DECRYPT_ERROR")
        {
            reason = .clientCertificateRejected
        } else if upper.contains("CERTIFICATE_EXPIRED") || upper.contains("CERTIFICATE HAS EXPIRED") {
            reason = .expired
        } else if upper.contains("SELF_SIGNED") || upper.contains("SELF-SIGNED") {
            reason = .selfSigned
        } else if upper.contains("HOSTNAME") || upper.contains("NAME MISMATCH") {
            reason = .nameMismatch
        } else if upper.contains("CERTIFICATE_VERIFY_FAILED") || upper.contains("UNABLE TO GET") {
            reason = .unknownAuthority
        } else {
            reason = .handshake
        }
        let detail: String
        switch reason {
        case .clientCertificateRequired:
            detail = "the server asks for a client certificate (set tls.clientCertificate and tls.clientKey)"
        case .clientCertificateRejected: detail = "the server refused the client certificate"
        case .expired: detail = "the certificate has expired"
        case .selfSigned: detail = "the certificate signs itself and is not trusted"
        case .nameMismatch: detail = "the certificate does not name the host"
        case .unknownAuthority: detail = "no trusted root issued the certificate"
        default: detail = handshakeDetail(error)
        }
        let codes = libraryReasons(in: text)
        return ProbeClientError(
            reason: reason,
            detail: reason == .handshake || codes.isEmpty ? detail : detail + " (" + codes.joined(separator: ", ") + ")"
        )
    }

    /// What the handshake showed: the leaf from the verified chain, or (verification left to NIOSSL, or off)
    /// the peer's certificate.
    func report(peer handler: NIOSSLClientHandler) -> TLSReport? {
        let (chain, failure) = outcome.withLock { ($0?.chain, $0?.failure) }
        let leaf =
            chain?.first ?? handler.peerCertificate.flatMap { try? Certificate(derEncoded: $0.toDERBytes()) }
        guard let leaf else { return nil }
        var report = TLSReport(
            subject: "\(leaf.subject)", issuer: "\(leaf.issuer)", notBefore: leaf.notValidBefore,
            notAfter: leaf.notValidAfter, verified: !settings.insecure && failure == nil, insecure: settings.insecure,
            failure: failure?.tlsReason)
        // The earliest expiry of the chain the server presented, as blackbox_exporter reports it: an intermediate
        // that expires in 3 days breaks every client in 3 days, whatever the leaf says.
        if let first = (chain ?? []).dropFirst().min(by: { $0.notValidAfter < $1.notValidAfter }),
            first.notValidAfter < leaf.notValidAfter
        {
            report.notAfter = first.notValidAfter
            report.expiresFirst = "\(first.subject)"
        }
        return report
    }
}
