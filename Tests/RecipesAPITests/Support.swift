import ContractTesting
import Foundation
import HTTPStubs
import RecipesAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's base URL, as the fixtures record it.
let recipesBaseURL = "https://recipes.example.com"

/// A stub set answering every recorded fixture of Stubs/recipes.
func makeRecipeStubs(filePath: StaticString = #filePath) throws -> StubSet {
    let stubs = StubSet()
    try stubs.stubAll(from: FixtureStore(relativeTo: filePath), in: "recipes")
    return stubs
}

/// The real client, answered by `stubs`.
func makeClient(_ stubs: StubSet) -> RecipesClient {
    RecipesClient(configuration: stubs.sessionConfiguration())
}

/// The recorded exchange `recipes/<name>`.
func fixture(_ name: String, filePath: StaticString = #filePath) throws -> Exchange {
    try FixtureStore(relativeTo: filePath).exchange(named: "recipes/" + name)
}

/// The `q` values of the search requests a stub set received, in order.
func searchQueries(_ stubs: StubSet) -> [String] {
    stubs.requests.filter { $0.path == "/api/search" }.map { request in
        request.queryItems.first(where: { $0.name == "q" })?.value ?? "(none)"
    }
}

/// The error `operation` throws, or nil.
func networkError<T>(_ operation: () async throws(NetworkError) -> T) async -> NetworkError? {
    do {
        _ = try await operation()
        return nil
    } catch {
        return error
    }
}

/// Waits (bounded) until `condition` holds; returns whether it did.
func eventually(
    within limit: Duration = .seconds(5), _ condition: @Sendable () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Collects the updates of a `RecipeSearch` as they are delivered.
actor UpdateCollector {
    private(set) var updates: [RecipeSearch.Update] = []
    private var task: Task<Void, Never>?

    init(_ search: RecipeSearch) {
        let stream = search.updates
        task = nil
        Task { await self.start(stream) }
    }

    private func start(_ stream: AsyncStream<RecipeSearch.Update>) {
        task = Task {
            for await update in stream { self.append(update) }
        }
    }

    private func append(_ update: RecipeSearch.Update) { updates.append(update) }

    var queries: [String] { updates.map(\.query) }

    func stop() { task?.cancel() }
}

/// A clock that moves only when told, for cache expiry.
final class ManualClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func advance(by duration: Duration) { lock.withLock { current = current.advanced(by: duration) } }

    /// Returns once the clock has been advanced to `deadline` (checked every millisecond, for at most 10 s).
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        for _ in 0..<10_000 where now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
