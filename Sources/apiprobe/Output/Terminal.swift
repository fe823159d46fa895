import Foundation
import HTTPFixtures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output and error, with colour only on a terminal and never under `NO_COLOR`.
struct Terminal: Sendable {
    let fileDescriptor: Int32
    /// Colour is used on a terminal, unless `NO_COLOR` is set (https://no-color.org) or `TERM` is `dumb`:
    /// decided once (every styled piece of text asked, and each time read the whole environment).
    let usesColor: Bool

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        let environment = ProcessInfo.processInfo.environment
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty {
            usesColor = false
        } else if environment["TERM"] == "dumb" {
            usesColor = false
        } else {
            usesColor = isatty(fileDescriptor) == 1
        }
    }

    static let standardOutput = Terminal(fileDescriptor: 1)
    static let standardError = Terminal(fileDescriptor: 2)

    /// Every secret this process has met (a config's environment values, credentials in traffic, a
    /// `--push-gateway` password). Whatever is written to standard output or error, and every report file,
    /// is masked with them: the one place output passes through.
    static let secrets = SecretValues()
    /// Masks ``secrets``, URL user-info and credential-named URL parameters.
    static let redactor = Redactor(.default, secrets: secrets)

    /// Whether this stream is a terminal.
    var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    /// Writes `text` with every secret masked.
    func write(_ text: String) {
        var data = Array(Self.redactor.redact(text: text).utf8)
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeMutableBytes { buffer in
                Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written <= 0 { return }
            offset += written
        }
    }

    /// Wraps `text` in an ANSI style when colour is on.
    func styled(_ text: String, _ style: TextStyle) -> String {
        usesColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }
}

/// ANSI SGR codes.
enum TextStyle: String {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case cyan = "36"
}
