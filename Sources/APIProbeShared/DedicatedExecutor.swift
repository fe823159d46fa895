package import Dispatch

/// Runs the jobs of the tasks that prefer it on a dispatch queue of its own (its own threads), not on Swift's
/// cooperative pool: the in-process servers of the demo and the tests keep answering a child process whatever the
/// pool is doing (on a 2-core machine, CPU-heavy tests beside a server kept both pool threads busy and starved it
/// for over 10 s).
///
/// ```swift
/// let task = Task(executorPreference: DedicatedExecutor.servers) { try await application.run() }
/// ```
///
/// Child tasks (a server's connections, in task groups) inherit the preference.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
package final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    /// The executor of in-process HTTP servers.
    static let servers = DedicatedExecutor(label: "apiprobe.servers")
    /// The executor of the probe client's asynchronous steps inside a timed attempt (a TLS chain verified during
    /// the handshake): a process computing on its cooperative pool does not hold them until the attempt's timeout.
    static let probeClient = DedicatedExecutor(label: "apiprobe.probe-client")

    private let queue: DispatchQueue

    /// An executor whose jobs run on `qos`'s threads. Dispatch keeps pools of threads by quality of service (as many
    /// as the machine has cores, more while some block); executors of one quality share them. On Linux, measured:
    /// `.utility` has its own; `.default` is the cooperative pool's for default-priority jobs (and
    /// `DispatchQueue.global()`'s); `.userInitiated` and `.userInteractive` share one.
    package init(label: String, qos: DispatchQoS = .userInitiated) {
        queue = DispatchQueue(label: label, qos: qos, attributes: .concurrent)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// The threads a ``dedicatedTask(_:_:)`` runs on.
package enum DedicatedThreads: Sendable {
    /// ``DedicatedExecutor/servers``: how an in-process server is started.
    case servers
    /// ``DedicatedExecutor/probeClient``: the probe client's steps inside a timed attempt.
    case probeClient
}

/// A task that runs `operation` on a ``DedicatedExecutor`` where the platform has task executors (Linux, macOS 15
/// and later), a plain task elsewhere.
@discardableResult
package func dedicatedTask<T: Sendable>(
    _ threads: DedicatedThreads, _ operation: @escaping @Sendable () async throws -> T
) -> Task<T, any Error> {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
        let executor: DedicatedExecutor
        switch threads {
        case .servers: executor = .servers
        case .probeClient: executor = .probeClient
        }
        return Task(executorPreference: executor, operation: operation)
    }
    return Task(operation: operation)
}
