import Foundation

/// The stack of the thread that reads specs and checks fixtures: schemas nest up to 512 levels (each level a few
/// frames through `$ref`, `allOf` and properties), deeper than the small stacks of the concurrency pool allow.
let specThreadStackSize = 256 << 20

/// Runs `body` on a thread of its own with a ``specThreadStackSize`` stack and waits for it without blocking the
/// caller's thread.
///
/// ```swift
/// let spec = try await onLargeStack { try OpenAPISpec(contentsOf: url) }
/// ```
package func onLargeStack<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.stackSize = specThreadStackSize
        thread.start()
    }
}
