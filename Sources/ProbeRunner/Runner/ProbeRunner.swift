public import Foundation

/// Runs the probes of a config: samples every endpoint, times them and checks the expectations.
public struct ProbeRunner: Sendable {
    public var config: ProbeConfig
    /// The folder relative paths in the config (snapshots) resolve against: the config file's folder.
    public var directory: URL

    public init(config: ProbeConfig, directory: URL) {
        self.config = config
        self.directory = directory
    }

    /// One round over `only` (every endpoint when empty). Never throws for a failing endpoint: failures
    /// are results. `previous` carries consecutive-failure counts between rounds (`--every`, history).
    public func run(only: [String] = [], previousFailures: [String: Int] = [:]) async -> ProbeRunResult {
        // PLACEHOLDER: the probe-runner work replaces this.
        ProbeRunResult(startedAt: Date(), duration: .zero, configFile: config.file, endpoints: [])
    }
}
