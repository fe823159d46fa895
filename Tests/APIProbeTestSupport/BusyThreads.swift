import APIProbeShared
import Foundation

/// Runs `operation` on a high-priority task (its jobs on threads of their own) while every thread of dispatch's
/// default quality of service computes, and returns its result once it has one.
///
/// On Linux those threads are also Swift's cooperative pool's for jobs of the default priority, so this is a process
/// computing on its pool, as a test run is with CPU-heavy tests beside a probe test: what `operation` waits for on
/// those threads waits until it ends (the threads are let go when `operation` returns, or after a minute).
public func whileTheDefaultThreadsAreBusy<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
    let done = Locked(false)
    let giveUp = Date().addingTimeInterval(60)
    // More blocks than there are cores: dispatch adds threads while some are blocked in a system call (a child
    // process waited for), so the pool may have more threads than cores for a while; blocks that find none wait in
    // the queue ahead of anything sent there after them.
    for _ in 0..<(4 * ProcessInfo.processInfo.activeProcessorCount + 4) {
        DispatchQueue.global().async {
            var spins = 0
            while !done.withLock({ $0 }) && Date() < giveUp { spins &+= 1 }
            if spins < 0 { print(spins) }
        }
    }
    // No sleep before `operation`: a sleeping task's wake goes through the default threads.
    return await Task(priority: .high) {
        let result = await operation()
        done.withLock { $0 = true }
        return result
    }.value
}
