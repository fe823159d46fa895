import APIProbeShared
package import Foundation
import HTTPFixtures

/// What the status page takes from the latest `apiprobe run --report json=FILE`: when it ran, and per endpoint
/// its URL and its failed checks.
package struct LatestReport: Sendable, Hashable {
    struct Endpoint: Sendable, Hashable {
        var name: String
        var url: String?
        /// `name: message` of each failed check.
        var failedChecks: [String]
    }

    var startedAt: Date
    var endpoints: [Endpoint]

    /// Reads a JSON report.
    ///
    /// - Throws: ``HTTPFixtures/InputError`` naming the file and the place: not JSON (line and column), or a
    ///   field that is not what the report format has (a JSON Pointer).
    package init(contentsOf url: URL, displayName: String? = nil) throws {
        let name = displayName ?? url.relativePath
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw InputError(
                file: name, position: .file, expected: "a JSON report (apiprobe run --report json=FILE)",
                found: FileManager.default.fileExists(atPath: url.path) ? "a file that cannot be read" : "no such file")
        }
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            throw error.inFile(name)
        }
        func problem(_ pointer: String, _ expected: String, _ value: JSONValue?) -> InputError {
            InputError(
                file: name, position: .jsonPointer(pointer), expected: expected,
                found: value?.briefDescription ?? "nothing")
        }
        guard case .string(let started)? = document["startedAt"], let startedAt = DisplayText.parseTimestamp(started)
        else { throw problem("/startedAt", "an ISO 8601 time", document["startedAt"]) }
        guard case .array(let items)? = document["endpoints"] else {
            throw problem("/endpoints", "an array of endpoints", document["endpoints"])
        }
        var endpoints: [Endpoint] = []
        for (index, item) in items.enumerated() {
            guard case .string(let endpointName)? = item["name"] else {
                throw problem("/endpoints/\(index)/name", "a string", item["name"])
            }
            var url: String?
            if case .string(let text)? = item["url"] { url = text }
            var failed: [String] = []
            if case .array(let checks)? = item["checks"] {
                for check in checks where check["passed"] == .bool(false) {
                    guard case .string(let checkName)? = check["name"] else { continue }
                    if case .string(let message)? = check["message"] {
                        failed.append("\(checkName): \(message)")
                    } else {
                        failed.append(checkName)
                    }
                }
            }
            endpoints.append(Endpoint(name: endpointName, url: url, failedChecks: failed))
        }
        self.startedAt = startedAt
        self.endpoints = endpoints
    }
}
