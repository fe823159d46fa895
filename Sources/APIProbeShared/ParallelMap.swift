import Dispatch

extension Array where Element: Sendable {
    /// `transform` of every element, computed on all cores, in order: what `map` gives, sooner. The first
    /// error in the array's order is thrown (as `map` would), whichever part ran into it first.
    ///
    /// For CPU work on many independent items (fixtures, snapshots). Called from a task, it keeps that task's
    /// thread busy until done, as `map` does.
    package func parallelMap<T: Sendable, Failure: Error>(
        _ transform: @escaping @Sendable (Element) throws(Failure) -> T
    ) throws(Failure) -> [T] {
        guard count > 1 else {
            var single: [T] = []
            for element in self { single.append(try transform(element)) }
            return single
        }
        let results = ParallelResults<Result<T, Failure>>(count: count)
        let elements = self
        DispatchQueue.concurrentPerform(iterations: elements.count) { index in
            do throws(Failure) {
                results.set(index, .success(try transform(elements[index])))
            } catch {
                results.set(index, .failure(error))
            }
        }
        var mapped: [T] = []
        mapped.reserveCapacity(count)
        for result in results.values {
            switch result {
            case .success(let value)?: mapped.append(value)
            case .failure(let error)?: throw error
            case nil: preconditionFailure("parallelMap: an iteration did not run")
            }
        }
        return mapped
    }
}

/// One slot a worker: each index is written by one iteration only, then read after all are done.
private final class ParallelResults<Value>: @unchecked Sendable {
    private var storage: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: Value) { storage[index] = value }

    var values: UnsafeMutableBufferPointer<Value?> { storage }
}
