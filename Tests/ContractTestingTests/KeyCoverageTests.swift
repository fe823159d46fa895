import APIProbeTestSupport
import ContractTesting
import Foundation
import Testing

struct RecipeDetail: Decodable {
    var title: String
    var socialRank: Double
    var cookTimeMinutes: Int?
    var notes: String?
}

struct RecipeResponse: Decodable {
    var recipe: RecipeDetail
}

@Suite(.temporaryFolder) struct KeyCoverageTests {
    static let snake: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }()

    let detail = """
        {"recipe": {"title": "Soup", "social_rank": 99.5, "notes": null,
                    "ingredients": ["salt", "water"], "publisher": {"name": "A", "url": "https://a.test"}}}
        """

    @Test func reportsFieldsTheModelNeverReadsAndOptionalsNeverFilled() throws {
        let verification = verifyKeyCoverage(
            RecipeResponse.self, from: .data(Data(detail.utf8), named: "get.json"), decoder: Self.snake)
        let coverage = try #require(verification.coverage)
        #expect(coverage.unreadFields == ["/recipe/ingredients", "/recipe/publisher"])
        #expect(coverage.unfilledOptionals == ["/recipe/cook_time_minutes", "/recipe/notes"])
        #expect(coverage.readPaths == ["/recipe", "/recipe/notes", "/recipe/social_rank", "/recipe/title"])
        #expect(verification.failures.isEmpty)
        #expect(
            verification.notes.first
                == """
                get.json: RecipeResponse never reads /recipe/ingredients, /recipe/publisher; no fixture fills the optional /recipe/cook_time_minutes, /recipe/notes of RecipeResponse (1 document(s))
                To accept these gaps, pass ignoring: ["/recipe/cook_time_minutes", "/recipe/ingredients", "/recipe/notes", "/recipe/publisher"]
                """
        )
    }

    @Test func ignoringTakesGlobPatterns() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture(
            "github/issues",
            json: #"[{"number": 1, "url": "u", "html_url": "h", "user": {"login": "a", "id": 1, "avatar_url": "x"}}]"#)
        struct Issue: Decodable { var number: Int }
        let verify = { (ignoring: Set<String>) in
            verifyKeyCoverage(
                [Issue].self, from: .everyFixture(of: "github/issues", in: repository.stubs), ignoring: ignoring)
        }
        #expect(verify([]).coverage?.unreadFields == ["/*/html_url", "/*/url", "/*/user"])
        #expect(verify(["/*/*url", "/*/user"]).coverage?.isComplete == true)
        #expect(verify(["/**/*_url"]).coverage?.unreadFields == ["/*/url", "/*/user"])
        #expect(verify(["/*/user/*"]).coverage?.unreadFields == ["/*/html_url", "/*/url", "/*/user"])
        #expect(verify(["/**"]).coverage?.isComplete == true)
    }

    /// `at:` takes `*`, as every message prints paths: each item is decoded and measured.
    @Test func atTakesWildcards() throws {
        struct User: Decodable { var login: String }
        let body = Data(#"[{"user": {"login": "a", "id": 1}}, {"user": {"login": "b", "id": 2}}]"#.utf8)
        #expect(expectDecoding(User.self, from: .data(body), at: "/*/user").map(\.login) == ["a", "b"])
        let coverage = verifyKeyCoverage(User.self, from: .data(body), at: "/*/user").coverage
        #expect(coverage?.unreadFields == ["/*/user/id"])
        #expect(coverage?.sampleCount == 2)
        #expect(
            verifyDecoding(User.self, from: .data(Data(#"{"user": {}}"#.utf8), named: "one.json"), at: "/*/user")
                .message
                == #"one.json: /: expected an array for * to range over, found object"#)
        #expect(expectDecoding(User.self, from: .data(Data("[]".utf8)), at: "/*/user").isEmpty)
    }

    @Test func anOptionalFilledInAnyDocumentCountsAsFilled() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/get", json: #"{"recipe": {"title": "Soup", "social_rank": 1.0}}"#)
        try repository.addFixture(
            "recipes/get.timed",
            json: #"{"recipe": {"title": "Stew", "social_rank": 2.0, "cook_time_minutes": 30, "notes": "hot"}}"#)
        let coverage = try #require(
            verifyKeyCoverage(
                RecipeResponse.self, from: .everyFixture(of: "recipes/get", in: repository.stubs), decoder: Self.snake
            ).coverage)
        #expect(coverage.sampleCount == 2)
        #expect(coverage.unfilledOptionals.isEmpty)
        #expect(coverage.isComplete)
    }

    @Test func arrayItemsAreWrittenAsStar() throws {
        let json =
            #"{"count": 2, "recipes": [{"publisher": "A", "title": "Soup", "recipe_id": "1", "social_rank": 1.5, "image_url": "x"}, {"publisher": "B", "title": "Stew", "recipe_id": "2", "social_rank": 2.5}]}"#
        let coverage = try #require(verifyKeyCoverage(SearchPage.self, from: .data(Data(json.utf8))).coverage)
        #expect(coverage.unreadFields == ["/recipes/*/image_url"])
        #expect(
            coverage.readPaths == [
                "/count", "/recipes", "/recipes/*", "/recipes/*/publisher", "/recipes/*/recipe_id",
                "/recipes/*/social_rank", "/recipes/*/title",
            ])
    }

    @Test func gapsAreInformationByDefaultNotFailures() {
        // Any recorded issue would fail this test: by default the gaps are only printed as a note.
        let coverage = expectKeyCoverage(
            RecipeResponse.self, from: .data(Data(detail.utf8), named: "get.json"), decoder: Self.snake)
        #expect(coverage?.unreadFields == ["/recipe/ingredients", "/recipe/publisher"])
    }

    @Test func strictModeMakesGapsFailures() {
        withKnownIssue {
            expectKeyCoverage(
                RecipeResponse.self, from: .data(Data(detail.utf8), named: "get.json"), decoder: Self.snake,
                strict: true)
        } matching: { issue in
            (issue.error as? ContractFailure)?.message.hasPrefix(
                "get.json: RecipeResponse never reads /recipe/ingredients, /recipe/publisher;") == true
        }
    }

    @Test func ignoredPathsAreNotGaps() throws {
        let coverage = expectKeyCoverage(
            RecipeResponse.self, from: .data(Data(detail.utf8)), decoder: Self.snake, strict: true,
            ignoring: ["/recipe/ingredients", "/recipe/publisher", "/recipe/cook_time_minutes", "/recipe/notes"]
        )
        #expect(coverage?.isComplete == true)
    }

    @Test func aDecodingFailureIsAFailureNotACoverageReport() {
        let verification = verifyKeyCoverage(
            RecipeResponse.self, from: .data(Data(#"{"recipe": {"title": 1}}"#.utf8), named: "get.json"),
            decoder: Self.snake)
        #expect(verification.coverage == nil)
        // One line: expectDecoding reports the failure itself, with what was found.
        #expect(
            verification.failures == [
                "key coverage of RecipeResponse skipped: does not decode get.json: /recipe/title: expected String (expectDecoding says why)"
            ])
    }

    @Test func strategiesAreHonouredAndTheRecordedPassAgreesWithJSONDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        decoder.dataDecodingStrategy = .base64
        let json =
            #"{"headline": "Hi", "published_at": "2026-11-22T18:00:00Z", "author_name": "Ann", "thumbnail_data": "AQID"}"#
        let article = try requireDecoding(Article.self, from: Data(json.utf8), decoder: decoder)
        #expect(article.thumbnailData == Data([1, 2, 3]))
        #expect(article.publishedAt == Date(timeIntervalSince1970: 1_795_370_400))
        let coverage = try #require(
            verifyKeyCoverage(Article.self, from: .data(Data(json.utf8)), decoder: decoder).coverage)
        #expect(coverage.readPaths == ["/author_name", "/headline", "/published_at", "/thumbnail_data"])
        #expect(coverage.isComplete)
    }

    @Test func customKeyStrategyIsHonoured() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let key = path.last?.stringValue ?? ""
            return AnyKey(stringValue: key.lowercased())
        }
        struct Upper: Decodable { var name: String }
        let coverage = try #require(
            verifyKeyCoverage(Upper.self, from: .data(Data(#"{"NAME": "x", "EXTRA": 1}"#.utf8)), decoder: decoder)
                .coverage)
        #expect(coverage.readPaths == ["/NAME"])
        #expect(coverage.unreadFields == ["/EXTRA"])
    }

    @Test func dictionariesKeepTheirKeysVerbatimUnderSnakeCase() throws {
        struct Tags: Decodable { var byName: [String: Int] }
        let json = #"{"by_name": {"first_tag": 1, "second_tag": 2}}"#
        let decoded = try requireDecoding(Tags.self, from: Data(json.utf8), decoder: Self.snake)
        let coverage = try #require(
            verifyKeyCoverage(Tags.self, from: .data(Data(json.utf8)), decoder: Self.snake).coverage)
        #expect(decoded.byName == ["first_tag": 1, "second_tag": 2])
        #expect(coverage.readPaths == ["/by_name", "/by_name/first_tag", "/by_name/second_tag"])
    }

    @Test func customInitWithNestedContainersIsObserved() throws {
        struct Flattened: Decodable {
            var city: String
            enum Keys: String, CodingKey { case address }
            enum AddressKeys: String, CodingKey { case city }
            init(from decoder: any Decoder) throws {
                let address = try decoder.container(keyedBy: Keys.self).nestedContainer(
                    keyedBy: AddressKeys.self, forKey: .address)
                city = try address.decode(String.self, forKey: .city)
            }
        }
        let json = #"{"address": {"city": "Oslo", "zip": "0150"}, "id": 3}"#
        let coverage = try #require(verifyKeyCoverage(Flattened.self, from: .data(Data(json.utf8))).coverage)
        #expect(coverage.readPaths == ["/address", "/address/city"])
        #expect(coverage.unreadFields == ["/address/zip", "/id"])
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
