import Foundation
import HTTPStubs
import RecipesAPI
import Testing

/// Debounce and cache, proven by what reached the stub layer (its request log), not by internal state.
@Suite(.timeLimit(.minutes(1))) struct RecipeSearchTests {
    @Test func onlyTheLastQueryTypedWithinTheWindowIsSent() async throws {
        let stubs = try makeRecipeStubs()
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(200))
        let collector = UpdateCollector(search)
        for text in ["c", "ch", "chi", "chick", "chicken"] {
            await search.queryChanged(text)
        }
        #expect(await eventually { await collector.updates.count == 1 })
        #expect(searchQueries(stubs) == ["chicken"])
        let update = try #require(await collector.updates.first)
        #expect(update.query == "chicken")
        #expect(try update.result.get().count == 30)

        // A pause longer than the window lets the next query through.
        await search.queryChanged("zzzqqq")
        #expect(await eventually { await collector.updates.count == 2 })
        #expect(searchQueries(stubs) == ["chicken", "zzzqqq"])
        await collector.stop()
    }

    @Test func aSlowAnswerToAnOlderQueryIsNeverDelivered() async throws {
        let stubs = try makeRecipeStubs()
        // The chicken search takes 300 ms; the empty search answers at once.
        stubs.stub(
            .get(recipesBaseURL + "/api/search").query(["q": "chicken"]),
            response: .fixture(try fixture("search")).delayed(by: .milliseconds(300)))
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(20))
        let collector = UpdateCollector(search)

        await search.queryChanged("chicken")
        #expect(await eventually { searchQueries(stubs) == ["chicken"] })  // in flight now
        await search.queryChanged("zzzqqq")
        #expect(await eventually { await collector.updates.count == 1 })
        try await Task.sleep(for: .milliseconds(500))  // the chicken answer has arrived by now

        #expect(searchQueries(stubs) == ["chicken", "zzzqqq"])
        #expect(await collector.queries == ["zzzqqq"])
        await collector.stop()
    }

    @Test func blankTextSendsNothing() async throws {
        let stubs = try makeRecipeStubs()
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(10))
        await search.queryChanged("chicken")
        await search.queryChanged("   ")
        try await Task.sleep(for: .milliseconds(100))
        #expect(stubs.requests.isEmpty)
    }

    @Test func errorsAreDeliveredAsTheAppsError() async throws {
        let stubs = StubSet()
        stubs.stub(.get(recipesBaseURL + "/api/search"), response: .failure(.notConnectedToInternet))
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(10))
        let collector = UpdateCollector(search)
        await search.queryChanged("chicken")
        #expect(await eventually { await collector.updates.count == 1 })
        let update = try #require(await collector.updates.first)
        guard case .failure(.transport(let code, _)) = update.result else {
            Issue.record("expected a transport error, got \(update.result)")
            return
        }
        #expect(code == .notConnectedToInternet)
        await collector.stop()
    }

    @Test func aRepeatedRequestWithinTheLifetimeMakesNoSecondCall() async throws {
        let stubs = try makeRecipeStubs()
        let clock = ManualClock()
        let search = RecipeSearch(client: makeClient(stubs), cacheLifetime: .seconds(60), clock: clock)
        let first = try await search.search("chicken")
        clock.advance(by: .seconds(59))
        let second = try await search.search("chicken")
        #expect(first == second)
        #expect(searchQueries(stubs) == ["chicken"])

        _ = try await search.recipe(id: "35382")
        _ = try await search.recipe(id: "35382")
        #expect(stubs.requests.filter { $0.path == "/api/get" }.count == 1)
    }

    @Test func anExpiredResponseIsFetchedAgain() async throws {
        let stubs = try makeRecipeStubs()
        let clock = ManualClock()
        let search = RecipeSearch(client: makeClient(stubs), cacheLifetime: .seconds(60), clock: clock)
        _ = try await search.search("chicken")
        clock.advance(by: .seconds(61))
        _ = try await search.search("chicken")
        #expect(searchQueries(stubs) == ["chicken", "chicken"])
    }

    @Test func differentPagesAreCachedSeparately() async throws {
        let stubs = try makeRecipeStubs()
        let search = RecipeSearch(client: makeClient(stubs), clock: ManualClock())
        #expect(try await search.search("chicken").count == 30)
        #expect(try await search.search("chicken", page: 2).count == 9)
        #expect(try await search.search("chicken", page: 2).count == 9)
        #expect(stubs.requests.map(\.url.query) == ["q=chicken", "q=chicken&page=2"])
    }

    @Test func errorsAreNotCached() async throws {
        let stubs = StubSet()
        stubs.stub(
            .get(recipesBaseURL + "/api/search"),
            responses: [.failure(.timedOut), .fixture(try fixture("search"))])
        let search = RecipeSearch(client: makeClient(stubs), clock: ManualClock())
        let error = await networkError { () async throws(NetworkError) in try await search.search("chicken") }
        #expect(error?.isTransient == true)
        #expect(try await search.search("chicken").count == 30)
        #expect(try await search.search("chicken").count == 30)
        #expect(stubs.requests.count == 2)
    }

    @Test func identicalRequestsInFlightTogetherShareOneCall() async throws {
        let stubs = StubSet()
        stubs.stub(
            .get(recipesBaseURL + "/api/search"),
            response: .fixture(try fixture("search")).delayed(by: .milliseconds(100)))
        let search = RecipeSearch(client: makeClient(stubs), clock: ManualClock())
        async let first = search.search("chicken")
        async let second = search.search("chicken")
        let pages = try await [first, second]
        #expect(pages[0] == pages[1])
        #expect(stubs.requests.count == 1)
    }
}
