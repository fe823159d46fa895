import ArgumentParser
import Foundation
import HTTPFixtures

/// `apiprobe init`: write a commented starter config.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented starter probe config (apiprobe.yml).",
        discussion: "Refuses to replace an existing file unless --force is given (exit status 2)."
    )

    @Option(name: .long, help: "Where to write the config.")
    var path = "apiprobe.yml"

    @Flag(name: .long, help: "Replace an existing file.")
    var force = false

    func run() async throws {
        if FileManager.default.fileExists(atPath: path) && !force {
            throw ValidationError("\(path) already exists; pass --force to replace it")
        }
        try AtomicFile.write(Data(Self.template.utf8), to: URL(fileURLWithPath: path), displayName: path)
        Terminal.standardOutput.write("wrote \(path); edit it, then run `apiprobe run --config \(path)`\n")
    }

    /// The starter config: every key, commented.
    static let template = """
        # apiprobe probe config. `apiprobe run` probes these endpoints; `apiprobe record` records them.
        # YAML (JSON works too). ${VAR} and ${VAR:-default} are replaced from the environment; keep
        # secrets there, never in this file. Durations: 300ms, 1.5s, 2m, 1h.

        api: recipes                      # names Stubs/<api>/ and Snapshots/<api>/
        baseURL: http://127.0.0.1:${RECIPES_PORT:-8080}
        # stubs: Stubs                    # recorded fixtures, relative to this file
        # snapshots: Snapshots            # schema snapshots, relative to this file
        concurrency: 8                    # requests in flight at once, over all endpoints
        # rateLimit: 50                   # at most this many requests per second to one host
        deadline: 60s                     # a round never takes longer; unfinished samples fail as timeout
        downAfter: 2                      # consecutive failed rounds before an endpoint counts as down
        regression: {window: 10, factor: 1.5, minimumRuns: 3}   # --history: p95 > 1.5 x median of last 10
        redact: [password]                # JSON body fields `apiprobe record` redacts (credentials always are)

        defaults:                         # every endpoint starts from these
          headers: {Accept: application/json}
          samples: 5                      # requests per endpoint per round
          timeout: 5s                     # per request, the whole body included
          retries: 1                      # after transport errors only, with backoff
          # maxBodySize: 8MiB             # a larger body fails as body-too-large (record: 64MiB)
          expect:                         # merged under each endpoint's expect, key by key
            status: 2xx

        endpoints:
          - name: search                  # unique; names Stubs/<api>/search.json and its snapshot
            method: GET
            path: /api/search             # or url: https://api.example.com/search
            query: {q: chicken}
            # headers: {X-Api-Key: "${RECIPES_API_KEY:-}"}
            # body: {title: Soup}         # a JSON value, or a string
            timeout: 2s
            expect:
              status: 200                 # or [200, 204], "200-299", 2xx
              headers:
                Content-Type: {matches: "^application/json"}   # or an exact value, or {exists: true}
              body:                       # JSON Pointer, then ==, !=, <, <=, >, >=, exists, not-exists,
                - /count > 0              #   matches REGEX, or length OP N
                - /recipes length >= 1
                - /recipes/*/title exists #   (* is every item of an array)
              schema: true                # Snapshots/<api>/search.schema.json; or a path; or
                                          # {snapshot: PATH, usage: PATH, failOn: warning}
              latency: [p50 < 100ms, p95 < 300ms]

        """
}
