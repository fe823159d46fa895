package import Foundation
package import HTTPFixtures
import Yams

/// Reading `apiprobe.yml`.
///
/// The file is YAML (JSON is YAML too, so a JSON config is accepted). `${VAR}` and `${VAR:-default}`
/// are replaced from the environment first, on the raw text, so line numbers stay right; a variable
/// that is unset and has no default is an error naming it and its line. Unknown keys are errors
/// ("did you mean …" when a known key is close). Every key:
///
/// ```yaml
/// api: recipes                 # names Stubs/<api>/ and Snapshots/<api>/ (default: api)
/// baseURL: http://127.0.0.1:${RECIPES_PORT:-8080}
/// stubs: Stubs                 # optional, relative to this file's folder
/// snapshots: Snapshots         # optional, relative to this file's folder
/// concurrency: 8               # requests in flight at once, over all endpoints (default 8)
/// rateLimit: 50                # requests per second per host, 0.001 to 100000 (optional)
/// deadline: 60s                # the longest a round may take (default 5m)
/// downAfter: 2                 # rounds in a row without a usable answer before an endpoint is down (default 1)
/// regression: {window: 10, factor: 1.5, minimumRuns: 5, minimumSlowdown: 25ms}
/// history: {keep: 30d, maxSize: 50MB}   # how much of --history a run keeps (default: everything)
/// redact: [password]           # JSON body fields redacted by `apiprobe record`
/// defaults:                    # what every endpoint starts from
///   headers: {Accept: application/json}
///   samples: 5                 # requests per endpoint per round (default 1)
///   timeout: 5s                # per request (default 10s)
///   retries: 1                 # retries after a transport error, with backoff (default 0)
///   maxBodySize: 8MiB          # the largest response body read (default 8MiB for run, 64MiB for record)
///   expect: {status: 2xx}      # merged under each endpoint's expect, key by key
/// endpoints:
///   - name: search             # unique; names the fixture and the snapshot
///     method: GET
///     path: /api/search        # or url: https://...
///     query: {q: chicken, page: 1}
///     headers: {X-Api-Key: "${RECIPES_API_KEY:-}"}
///     body: {...}              # a JSON value, or a string
///     samples: 5
///     timeout: 2s
///     retries: 2
///     maxBodySize: 1GiB        # 512KiB, 64MB, 1GiB or a byte count, at most 4GiB
///     expect:
///       status: 200            # or [200, 204], "200-299", 2xx
///       headers: {Content-Type: application/json}   # exact; {matches: regex} or {exists: true} too
///       body:                  # JSON Pointer, operator, operand
///         - /count > 0
///         - /recipes length >= 1
///         - /recipes/0/title exists
///         - /recipes/0/recipe_id matches ^[0-9a-f]+$
///         - /recipes/0/publisher == "Closet Cooking"
///         - /headers/Content-Type matches "^application/json"   # quoted: a JSON string, as for ==
///       schema: true           # Snapshots/<api>/<name up to its first ".">.schema.json; or a path; or {snapshot:, usage:, failOn: warning}
///       latency: [p50 < 100ms, p95 < 300ms]
/// ```
///
/// Durations are written `300ms`, `1.5s`, `2m` or `1h`. Body condition operators: `==`, `!=`, `<`, `<=`,
/// `>`, `>=` (operand: JSON, or a bare word as a string), `exists`, `not-exists`, `matches REGEX`,
/// `length OP N`.
extension ProbeConfig {
    /// Reads a probe config (YAML; JSON accepted), replacing `${VAR}` and `${VAR:-default}` from `environment`.
    ///
    /// - Parameter file: the name shown in errors (default: the URL's path).
    /// - Throws: ``InputError`` naming the file, the line and the key, and what was expected.
    package static func load(
        contentsOf url: URL,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        file: String? = nil
    ) throws(InputError) -> ProbeConfig {
        let data = try InputError.contents(
            of: url, displayName: file ?? url.path, expected: "a readable config file", key: "(file)")
        return try parse(
            data, environment: environment, file: file ?? url.path, directory: url.deletingLastPathComponent())
    }

    /// Parses config text; see ``load(contentsOf:environment:file:)``. Files the config names (`tls.caFile`) are
    /// read relative to `directory` (the current folder when `nil`).
    package static func parse(
        _ data: Data, environment: [String: String], file: String, directory: URL? = nil
    ) throws(InputError) -> ProbeConfig {
        guard let text = String(validating: data, as: UTF8.self) else {
            // The place of the first byte that is not UTF-8: its line, and its column in bytes.
            var line = 1
            var lineStart = 0
            var offset = 0
            let bytes = [UInt8](data)
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar):
                    offset += UTF8.width(scalar)
                    if scalar == "\n" {
                        line += 1
                        lineStart = offset
                    }
                case .emptyInput, .error: break decoding
                }
            }
            let found = offset < bytes.count ? String(format: "byte 0x%02X", bytes[offset]) : "the end of the file"
            throw InputError(
                file: file, position: .lineColumn(line: line, column: offset - lineStart + 1), key: "(file)",
                expected: "UTF-8 text",
                found: found)
        }
        var secrets: [String: String] = [:]
        let substituted = try EnvironmentSubstitution.apply(
            to: text, environment: environment, file: file, substituted: &secrets)
        do {
            var config = try parse(substituted: substituted, file: file, directory: directory)
            config.environmentSecrets = secrets
            return config
        } catch {
            // An error may quote the substituted text: a secret in it is masked like any other output.
            let redactor = ProbeConfig.makeRedactor(environmentSecrets: secrets, bodyKeys: [])
            var masked = error
            masked.key = error.key.map { redactor.redact(text: $0) }
            masked.expected = redactor.redact(text: error.expected)
            masked.found = redactor.redact(text: error.found)
            throw masked
        }
    }

    private static func parse(substituted: String, file: String, directory: URL?) throws(InputError)
        -> ProbeConfig
    {
        let root: Node?
        do {
            root = try Yams.compose(yaml: substituted)
        } catch let error as YamlError {
            throw ConfigReader.syntaxError(error, file: file)
        } catch {
            throw InputError(
                file: file, position: .file, key: "(file)", expected: "YAML or JSON", found: "\(error)")
        }
        guard let root else {
            throw InputError(
                file: file, position: .file, key: "(file)", expected: "a mapping with api, baseURL and endpoints",
                found: "an empty document")
        }
        return try ConfigReader(file: file, directory: directory).config(root)
    }
}
