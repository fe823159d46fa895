import Foundation
import HTTPStubs
import RecipesAPI
import Testing

/// Debounce and cache, proven by what reached the stub layer (its request log), not by internal state.
///
/// Time is a `ManualClock` shared by the search (its debounce) and the stub set (its delayed responses): the
/// tests advance it instead of waiting, so a loaded machine cannot reorder what they observe.
// A guard against a hang, not a timer: some 750 tests share two cores, and a test waits there for Swift's
// cooperative pool while CPU-heavy tests beside it hold it (ARCHITECTURE, "Time limits guard against hangs").
@Suite(.timeLimit(.minutes(10))) struct RecipeSearchTests {
    @Test func onlyTheLastQueryTypedWithinTheWindowIsSent() async throws {
        let clock = ManualClock()
        let stubs = try makeRecipeStubs(clock: clock)
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(200), clock: clock)
        var updates = search.updates.makeAsyncIterator()
        for text in ["c", "ch", "chi", "chick", "chicken"] {
            await search.queryChanged(text)
        }
        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)  // each keystroke cancelled the window before it

        // Just inside the window nothing is sent; at its end, only the last query.
        clock.advance(by: .milliseconds(199))
        #expect(stubs.requests.isEmpty)
        clock.advance(by: .milliseconds(1))
        let update = try #require(await updates.next())
        #expect(update.query == "chicken")
        #expect(try update.result.get().count == 30)
        #expect(searchQueries(stubs) == ["chicken"])

        // A pause longer than the window lets the next query through.
        await search.queryChanged("zzzqqq")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(200))
        #expect(await updates.next()?.query == "zzzqqq")
        #expect(searchQueries(stubs) == ["chicken", "zzzqqq"])
    }

    @Test func aSlowAnswerToAnOlderQueryIsNeverDelivered() async throws {
        let clock = ManualClock()
        let stubs = try makeRecipeStubs(clock: clock)
        // The chicken search takes 300 ms; every other search answers at once.
        stubs.stub(
            .get(recipesBaseURL + "/api/search").query(["q": "chicken"]),
            response: .fixture(try fixture("search")).delayed(by: .milliseconds(300)))
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(20), clock: clock)
        var updates = search.updates.makeAsyncIterator()

        await search.queryChanged("chicken")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(20))
        await clock.waitForSleepers(1)  // the chicken answer is waiting out its 300 ms
        #expect(searchQueries(stubs) == ["chicken"])

        await search.queryChanged("zzzqqq")
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(20))
        #expect(await updates.next()?.query == "zzzqqq")

        // The chicken answer arrives now. Waiting for the same search joins the call in flight, so once it
        // returns the answer has reached the search model, which must have dropped it as stale.
        clock.advance(by: .milliseconds(300))
        #expect(try await search.search("chicken").count == 30)
        await search.queryChanged("pasta")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(20))
        #expect(await updates.next()?.query == "pasta")
        #expect(searchQueries(stubs) == ["chicken", "zzzqqq", "pasta"])
    }

    @Test func blankTextSendsNothing() async throws {
        let clock = ManualClock()
        let stubs = try makeRecipeStubs(clock: clock)
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(10), clock: clock)
        await search.queryChanged("chicken")
        await search.queryChanged("   ")
        #expect(clock.sleeperCount == 0)  // blank text cancelled the window and opened none
        clock.advance(by: .seconds(1))
        #expect(stubs.requests.isEmpty)
    }

    @Test func errorsAreDeliveredAsTheAppsError() async throws {
        let clock = ManualClock()
        let stubs = StubSet(clock: clock)
        stubs.stub(.get(recipesBaseURL + "/api/search"), response: .failure(.notConnectedToInternet))
        let search = RecipeSearch(client: makeClient(stubs), debounce: .milliseconds(10), clock: clock)
        var updates = search.updates.makeAsyncIterator()
        await search.queryChanged("chicken")
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(10))
        let update = try #require(await updates.next())
        guard case .failure(.transport(let code, _)) = update.result else {
            Issue.record("expected a transport error, got \(update.result)")
            return
        }
        #expect(code == .notConnectedToInternet)
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
        let clock = ManualClock()
        let stubs = StubSet(clock: clock)
        stubs.stub(
            .get(recipesBaseURL + "/api/search"),
            response: .fixture(try fixture("search")).delayed(by: .milliseconds(100)))
        let search = RecipeSearch(client: makeClient(stubs), clock: clock)
        async let first = search.search("chicken")
        async let second = search.search("chicken")
        await clock.waitForSleepers(1)  // the one call is in flight, held by the stub's delay
        clock.advance(by: .milliseconds(100))
        let pages = try await [first, second]
        #expect(pages[0] == pages[1])
        #expect(stubs.requests.count == 1)
    }
}
