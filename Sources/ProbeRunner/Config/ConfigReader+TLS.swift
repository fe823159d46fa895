import APIProbeShared
import Foundation
import HTTPFixtures
import ProbeClient
import Yams

extension ConfigReader {
    /// The largest PEM file read for `tls:` (a CA bundle of a few hundred certificates is about 200 KiB).
    static let largestPEMFile = 4 << 20

    /// `tls: {expiresIn: "> 14d", caFile: …, clientCertificate: …, clientKey: …, insecure: true}` over `base`, key
    /// by key. The files are read and their PEM checked here, so a missing file or bad PEM is an error at its key.
    func tlsSettings(_ node: Node, _ path: String, over base: TLSSettings) throws(InputError) -> TLSSettings {
        var tls = base
        if isNull(node) { return TLSSettings() }  // `tls: null`: none of the defaults' TLS settings
        for (key, _, value) in try members(node, path, allowed: Self.tlsKeys) {
            let keyPath = join(path, key)
            if isNull(value) {
                // `caFile: null`: not set, though `defaults.tls` sets it.
                switch key {
                case "expiresIn": (tls.minimumValidity, tls.expiresInText) = (nil, nil)
                case "caFile": (tls.caFile, tls.caPEM) = (nil, nil)
                case "clientCertificate": (tls.clientCertificate, tls.clientCertificatePEM) = (nil, nil)
                case "clientKey": (tls.clientKey, tls.clientKeyPEM) = (nil, nil)
                case "insecure": tls.insecure = false
                default: break
                }
                continue
            }
            switch key {
            case "expiresIn":
                let expected = "how long the certificate must still be valid, like \"> 14d\" (d, h, m or s)"
                let text = try string(value, keyPath, expected: expected)
                guard let minimum = Self.parseExpiry(text) else { throw error(value, keyPath, expected: expected) }
                tls.minimumValidity = minimum
                tls.expiresInText = text.trimmingCharacters(in: .whitespaces)
            case "caFile":
                let name = try string(value, keyPath, expected: "a PEM file of CA certificates")
                tls.caFile = name
                tls.caPEM = try pemFile(name, value, keyPath, privateKey: false)
            case "clientCertificate":
                let name = try string(value, keyPath, expected: "a PEM file with the client certificate")
                tls.clientCertificate = name
                tls.clientCertificatePEM = try pemFile(name, value, keyPath, privateKey: false)
            case "clientKey":
                let name = try string(value, keyPath, expected: "a PEM file with the client certificate's private key")
                tls.clientKey = name
                tls.clientKeyPEM = try pemFile(name, value, keyPath, privateKey: true)
            case "insecure":
                guard let insecure = boolean(value) else { throw error(value, keyPath, expected: "true or false") }
                tls.insecure = insecure
            default: break
            }
        }
        if (tls.clientCertificatePEM == nil) != (tls.clientKeyPEM == nil) {
            throw error(
                node, path, expected: "clientCertificate and clientKey together",
                found: tls.clientKeyPEM == nil
                    ? "clientCertificate without clientKey" : "clientKey without clientCertificate")
        }
        return tls
    }

    /// `> 14d`, `>= 36h`, `14d`: the least validity left.
    static func parseExpiry(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.hasPrefix(">=") {
            rest = rest.dropFirst(2)
        } else if rest.hasPrefix(">") {
            rest = rest.dropFirst()
        }
        return parseDuration(rest.trimmingCharacters(in: .whitespaces))
    }

    /// The bytes of a PEM file the config names (relative to its folder), checked to hold certificates or a private
    /// key.
    private func pemFile(_ name: String, _ node: Node, _ path: String, privateKey: Bool) throws(InputError)
        -> [UInt8]
    {
        let base = directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : base.appendingPathComponent(name)
        let what = privateKey ? "a PEM private key" : "a PEM file of certificates"
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
        guard let size else {
            throw error(node, path, expected: "\(what) at \(name)", found: "no such file")
        }
        guard size <= Self.largestPEMFile else {
            throw error(
                node, path, expected: "\(what) of at most \(formatSize(Self.largestPEMFile))",
                found: "\(formatSize(size)) in \(name)")
        }
        guard let data = try? Data(contentsOf: url) else {
            throw error(node, path, expected: "\(what) at \(name)", found: "a file that cannot be read")
        }
        let bytes = [UInt8](data)
        do {
            if privateKey {
                try TLSSettings.checkPrivateKey(pem: bytes)
            } else {
                guard try TLSSettings.certificateCount(pem: bytes) > 0 else {
                    throw error(node, path, expected: "\(what) in \(name)", found: "no certificate")
                }
            }
        } catch let configError as InputError {
            throw configError
        } catch {
            // PEM of another kind (a key where a certificate belongs, or the reverse) says which it is.
            let text = String(decoding: bytes.prefix(64 << 10), as: UTF8.self)
            let label = text.range(of: "-----BEGIN ").map { text[$0.upperBound...].prefix { $0 != "-" && $0 != "\n" } }
            let wanted = privateKey ? "PRIVATE KEY" : "CERTIFICATE"
            let found =
                label.map { $0.hasSuffix(wanted) ? "text that is not valid PEM" : "a PEM \($0) instead" }
                ?? "text that is not valid PEM"
            throw self.error(node, path, expected: "\(what) in \(name)", found: found)
        }
        return bytes
    }
}
