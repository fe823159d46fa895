import Foundation

/// The search screen's model: a debounced search as the user types, and an in-memory response cache.
///
/// - **Debounce.** ``queryChanged(_:)`` starts a new window and drops the pending search: only the last
///   query typed within `debounce` reaches the network. A search still in flight when a newer query
///   arrives is not delivered, so a slow old answer never replaces a newer one.
/// - **Cache.** A request repeated within `cacheLifetime` is answered from memory without a second call;
///   identical requests in flight at the same time share one call; errors are never cached.
///
/// ```swift
/// let search = RecipeSearch(client: RecipesClient(), debounce: .milliseconds(300))
/// Task { for await update in search.updates { show(update.result) } }
/// await search.queryChanged("chi")
/// await search.queryChanged("chicken")    // only "chicken" is sent, 300 ms after the last keystroke
/// ```
///
/// Time is read from an injected clock, so tests can use short durations or their own clock.
public actor RecipeSearch {
    /// The result of one debounced search.
    public struct Update: Sendable, Hashable {
        public var query: String
        public var result: Result<SearchResponse, NetworkError>
    }

    /// The results of debounced searches, in the order they are delivered.
    public nonisolated let updates: AsyncStream<Update>

    public let client: RecipesClient
    public let debounce: Duration
    public let cacheLifetime: Duration

    private let continuation: AsyncStream<Update>.Continuation
    private let sleep: @Sendable (Duration) async throws -> Void
    private let now: @Sendable () -> Duration
    private var pending: Task<Void, Never>?
    private var generation = 0
    private var cache: [String: CacheEntry] = [:]
    private var inFlight: [String: Task<any Sendable, any Error>] = [:]

    private struct CacheEntry {
        var expires: Duration
        var value: any Sendable
    }

    /// - Parameters:
    ///   - debounce: how long typing must pause before a search is sent.
    ///   - cacheLifetime: how long a response is reused.
    ///   - clock: the clock for both (a `ContinuousClock` in the app).
    public init<C: Clock>(
        client: RecipesClient,
        debounce: Duration = .milliseconds(300),
        cacheLifetime: Duration = .seconds(120),
        clock: C = ContinuousClock()
    ) where C.Duration == Duration {
        self.client = client
        self.debounce = debounce
        self.cacheLifetime = cacheLifetime
        let start = clock.now
        sleep = { duration in try await clock.sleep(for: duration) }
        now = { start.duration(to: clock.now) }
        (updates, continuation) = AsyncStream.makeStream(of: Update.self)
    }

    deinit {
        pending?.cancel()
        continuation.finish()
    }

    // MARK: Debounced search

    /// The user changed the search text: the pending search is dropped and a new window starts. Blank
    /// text cancels the pending search and sends nothing.
    public func queryChanged(_ text: String) {
        pending?.cancel()
        generation += 1
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else {
            pending = nil
            return
        }
        let mine = generation
        let sleep = self.sleep
        let debounce = self.debounce
        pending = Task {
            do {
                try await sleep(debounce)
            } catch {
                return
            }
            await self.deliver(query, generation: mine)
        }
    }

    /// Stops the pending search, if any.
    public func cancel() {
        pending?.cancel()
        pending = nil
        generation += 1
    }

    private func deliver(_ query: String, generation mine: Int) async {
        guard mine == generation else { return }
        let result: Result<SearchResponse, NetworkError>
        do {
            result = .success(try await search(query))
        } catch {
            result = .failure(error)
        }
        // A newer query arrived while this one was in flight: its answer is stale.
        guard mine == generation, !Task.isCancelled, result != .failure(.cancelled) else { return }
        continuation.yield(Update(query: query, result: result))
    }

    // MARK: Cached requests

    /// One page of results now (no debounce), from the cache when a fresh copy is there.
    public func search(_ query: String, page: Int = 1) async throws(NetworkError) -> SearchResponse {
        let client = self.client
        return try await cached(Resource.search(query, page: page, baseURL: client.baseURL)) {
            () async throws(NetworkError) in
            try await client.search(query, page: page)
        }
    }

    /// One recipe now, from the cache when a fresh copy is there.
    public func recipe(id: String) async throws(NetworkError) -> RecipeDetail {
        let client = self.client
        return try await cached(Resource.recipe(id: id, baseURL: client.baseURL)) { () async throws(NetworkError) in
            try await client.recipe(id: id)
        }
    }

    /// Forgets every cached response.
    public func clearCache() {
        cache.removeAll()
    }

    private func cached<R, Value: Sendable>(
        _ resource: Resource<R>,
        fetch: @escaping @Sendable () async throws(NetworkError) -> Value
    ) async throws(NetworkError) -> Value {
        let key = "\(resource.method) \(resource.url?.absoluteString ?? resource.path)"
        if let entry = cache[key] {
            if now() < entry.expires, let value = entry.value as? Value { return value }
            cache[key] = nil
        }
        let task: Task<any Sendable, any Error>
        if let running = inFlight[key] {
            task = running
        } else {
            task = Task { try await fetch() }
            inFlight[key] = task
        }
        let outcome: Result<any Sendable, any Error>
        do {
            outcome = .success(try await task.value)
        } catch {
            outcome = .failure(error)
        }
        if inFlight[key] == task { inFlight[key] = nil }
        switch outcome {
        case .success(let value):
            guard let value = value as? Value else { throw .decoding("the cache holds another type for \(key)") }
            cache[key] = CacheEntry(expires: now() + cacheLifetime, value: value)
            return value
        case .failure(let error as NetworkError):
            throw error
        case .failure:
            throw .cancelled
        }
    }
}
