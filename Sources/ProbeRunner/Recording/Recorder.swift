public import Foundation
import HTTPFixtures

/// Records live responses of a config's endpoints as redacted fixtures (`apiprobe record`).
public struct Recorder: Sendable {
    public var config: ProbeConfig
    /// The folder relative paths in the config resolve against.
    public var directory: URL

    public init(config: ProbeConfig, directory: URL) {
        self.config = config
        self.directory = directory
    }
}
