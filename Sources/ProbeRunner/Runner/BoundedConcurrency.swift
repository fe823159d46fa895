extension Array where Element: Sendable {
    /// `transform` applied to every element, at most `limit` at once (at least one), the results in the
    /// elements' order: how `run` probes and `record` records endpoints.
    func concurrentMap<Result: Sendable>(
        limit: Int, _ transform: @escaping @Sendable (Element) async -> Result
    ) async -> [Result] {
        var results = [Result?](repeating: nil, count: count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            func addNext() {
                guard next < count else { return }
                let index = next
                let element = self[index]
                next += 1
                group.addTask { (index, await transform(element)) }
            }
            for _ in 0..<Swift.min(Swift.max(1, limit), count) { addNext() }
            for await (index, result) in group {
                results[index] = result
                addNext()
            }
        }
        return results.compactMap { $0 }
    }
}
