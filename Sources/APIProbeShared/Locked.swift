import Foundation

/// A value guarded by a lock: the one lock of the package, for state reached from synchronous callbacks (URLProtocol,
/// event loop handlers, request logs) and from workers of a parallel map.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
