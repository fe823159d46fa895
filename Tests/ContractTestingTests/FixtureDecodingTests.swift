import APIProbeTestSupport
import ContractTesting
import Foundation
import Testing

@Suite(.temporaryFolder) struct FixtureDecodingTests {
    let page = #"{"count": 1, "recipes": [{"publisher": "A", "title": "Soup", "recipe_id": "1", "social_rank": 99.5}]}"#

    @Test func decodesOneFixtureByName() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        let decoded = try requireDecoding(SearchPage.self, from: .fixture("recipes/search", in: repository.stubs))
        #expect(decoded.recipes.first?.title == "Soup")
    }

    @Test func everyFixtureOfAnEndpointIncludesVariantsAndSkipsErrorResponses() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        try repository.addFixture("recipes/search.empty", json: #"{"count": 0, "recipes": []}"#)
        try repository.addFixture(
            "recipes/search.unauthorized", json: #"{"error": {"message": "bad key"}}"#, status: 401)
        try repository.addFixture("recipes/searchable", json: #"{"unrelated": true}"#)
        let pages = expectDecoding(SearchPage.self, from: .everyFixture(of: "recipes/search", in: repository.stubs))
        #expect(pages.map(\.count) == [1, 0])
    }

    @Test func everyFixtureReportsEachFailingFileByName() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        try repository.addFixture(
            "recipes/search.drifted", json: page.replacingOccurrences(of: "social_rank", with: "rank"))
        let message = verifyDecoding(SearchPage.self, from: .everyFixture(of: "recipes/search", in: repository.stubs))
            .message
        #expect(
            message
                == "\(repository.file("recipes/search.drifted")): /recipes/0: expected key \"social_rank\", found an object without it; did you mean \"rank\"? (keys: publisher, rank, recipe_id, title)"
        )
    }

    @Test func anEndpointWithoutFixturesIsAFailureNamingTheFolder() throws {
        let repository = try TemporaryRepository()
        let message = verifyDecoding(SearchPage.self, from: .everyFixture(of: "recipes/search", in: repository.stubs))
            .message
        #expect(
            message?.hasSuffix(
                ": expected a fixture recipes/search.json or recipes/search.<variant>.json with a 2xx JSON response, found none"
            ) == true)
    }

    @Test func aMissingFixtureIsReportedAtTheCallSite() throws {
        let repository = try TemporaryRepository()
        withKnownIssue {
            expectDecoding(SearchPage.self, from: .fixture("recipes/nope", in: repository.stubs))
        } matching: { issue in
            (issue.error as? ContractFailure).map { [$0.message] } == [
                "\(repository.file("recipes/nope")): expected a readable fixture file, found no such file"
            ]
                && issue.sourceLocation?.fileID == #fileID
        }
    }

    @Test func anExchangeDecodesFromItsResponseBody() throws {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/search"),
            response: RecordedResponse(body: .json(try JSONValue(parsing: Data(page.utf8))))
        )
        let recipes = try requireDecoding([Recipe].self, from: .exchange(exchange, named: "search"), at: "/recipes")
        #expect(recipes.map(\.recipeID) == ["1"])
    }

    @Test func aTextBodyIsNotADecodingError() {
        let exchange = Exchange(
            request: RecordedRequest(url: "https://x.test/"),
            response: RecordedResponse(status: 503, body: .text("Service Unavailable")))
        #expect(
            verifyDecoding(SearchPage.self, from: .exchange(exchange, named: "x.json")).message
                == #"x.json: /response/body: expected a JSON body, found text "Service Unavailable""#)
    }
}

@Suite(.temporaryFolder) struct ReportingTests {
    let drifted = #"{"publisher": "A", "title": "Soup", "recipe_id": 35382, "social_rank": 99.5}"#

    @Test func expectDecodingRecordsTheExactMessageAtTheCaller() {
        let line = #line + 2
        withKnownIssue {
            expectDecoding(Recipe.self, from: .data(Data(drifted.utf8), named: "get.json"))
        } matching: { issue in
            (issue.error as? ContractFailure).map { [$0.message] } == [
                "get.json: /recipe_id: expected String, found integer 35382"
            ]
                && issue.sourceLocation?.line == line
                && issue.sourceLocation?.fileID == #fileID
        }
    }

    @Test func expectDecodingGoesOnAfterAFailure() {
        var reached = false
        withKnownIssue {
            expectDecoding(Recipe.self, from: .data(Data(drifted.utf8)))
            reached = true
        }
        #expect(reached)
    }
}
