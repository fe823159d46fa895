import ContractTesting
import Foundation
import Testing

@Suite struct DecodingFailureMessageTests {
    let body = """
        {"count": 2, "recipes": [
          {"publisher": "A", "title": "Soup", "recipe_id": "1", "social_rank": 99.5},
          {"publisher": "B", "title": "Stew", "recipe_id": "2", "social_rank": "99.9"}
        ]}
        """

    func failure<T: Decodable>(
        _ type: T.Type, _ json: String, at pointer: String = "", decoder: JSONDecoder = JSONDecoder()
    ) -> String? {
        verifyDecoding(type, from: .data(Data(json.utf8), named: "body.json"), at: pointer, decoder: decoder).message
    }

    @Test func typeMismatchNamesPointerExpectedTypeAndFoundValue() {
        #expect(
            failure(SearchPage.self, body)
                == #"body.json: /recipes/1/social_rank: expected Double, found string "99.9""#)
    }

    @Test func pointerIntoTheBodyIsPartOfThePath() {
        #expect(
            failure([Recipe].self, body, at: "/recipes")
                == #"body.json: /recipes/1/social_rank: expected Double, found string "99.9""#)
    }

    @Test func keyNotFoundNamesTheJSONKeyAndTheObjectWithItsKeys() {
        let json = #"{"recipe": {"publisher": "A", "title": "Soup", "recipe_id": "1", "rank": 99.5}}"#
        #expect(
            failure(Recipe.self, json, at: "/recipe")
                == #"body.json: /recipe: expected key "social_rank", found an object without it; did you mean "rank"? (keys: publisher, rank, recipe_id, title)"#
        )
    }

    /// A key renamed with a prefix (`id` → `storeId`) is suggested although it is not the closest by spelling.
    @Test func aKeyRenamedWithAPrefixIsSuggested() {
        struct Store: Decodable { var id: String }
        #expect(
            failure(Store.self, #"{"storeId": "ST1", "name": "Main"}"#, at: "")
                == #"body.json: /: expected key "id", found an object without it; did you mean "storeId"? (keys: name, storeId)"#
        )
    }

    @Test func keyNotFoundUnderSnakeCaseNamesTheJSONKeyNotTheSwiftKey() {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let json = #"{"headline": "Hi"}"#
        #expect(
            failure(Article.self, json, decoder: decoder)
                == #"body.json: /: expected key "published_at" (publishedAt), found an object without it (keys: headline)"#
        )
    }

    @Test func aSnakeCaseKeyDecodedWithDefaultKeysSuggestsTheStrategy() {
        struct Repository: Decodable { var nodeId: String }
        #expect(
            failure(Repository.self, #"{"node_id": "R_1", "name": "x"}"#)
                == #"body.json: /: expected key "nodeId", found an object without it; the JSON uses snake_case ("node_id"): did you mean to use .convertFromSnakeCase? (keys: name, node_id)"#
        )
    }

    /// A classic: `nodeID` under .convertFromSnakeCase, where `node_id` becomes `nodeId`.
    @Test func anAcronymTheStrategyCannotProduceIsExplained() {
        struct Repository: Decodable { var nodeID: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(
            failure(Repository.self, #"{"node_id": "R_1"}"#, decoder: decoder)
                == #"body.json: /: expected a key that .convertFromSnakeCase turns into "nodeID", found "node_id", which it turns into "nodeId": name the property nodeId, or give it a CodingKey"#
        )
    }

    /// A renamed key in a 90-key object (GitHub's repository): the closest keys first, not all 90.
    @Test func aLargeObjectListsTheClosestKeysFirstAndCountsTheRest() {
        struct Event: Decodable {
            var repoFullName: String
            enum CodingKeys: String, CodingKey { case repoFullName = "repo_full_name" }
        }
        var members = (0..<88).map { #""field_\#($0)": \#($0)"# }
        members += [#""full_name": "a/b""#, #""name": "b""#]
        let json = "{" + members.joined(separator: ", ") + "}"
        let message = failure(Event.self, json)
        #expect(
            message
                == #"body.json: /: expected key "repo_full_name", found an object without it; did you mean "full_name"? (closest keys: full_name, name, field_0, field_1, field_10, field_11, field_12, field_13, and 82 more)"#
        )
    }

    @Test func typeMismatchUnderSnakeCaseUsesTheJSONKeyInThePointer() {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let json = #"{"headline": "Hi", "published_at": "2026-11-22T18:00:00Z", "author_name": 7}"#
        #expect(
            failure(Article.self, json, decoder: decoder) == "body.json: /author_name: expected String, found integer 7"
        )
    }

    @Test func valueNotFoundSaysNull() {
        let json = #"{"publisher": "A", "title": null, "recipe_id": "1", "social_rank": 1.0}"#
        #expect(failure(Recipe.self, json) == "body.json: /title: expected String, found null")
    }

    @Test func dataCorruptedDateSaysWhatTheStrategyExpected() {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .iso8601
        let json = #"{"headline": "Hi", "published_at": "yesterday"}"#
        #expect(
            failure(Article.self, json, decoder: decoder)
                == #"body.json: /published_at: expected date string to be ISO8601-formatted, found string "yesterday""#
        )
    }

    @Test func dataCorruptedEnumNamesTheInvalidValue() throws {
        let message = try #require(failure(Dish.self, #"{"name": "Soup", "course": "soup"}"#))
        #expect(message.hasPrefix("body.json: /course: expected a valid value ("))
        #expect(message.hasSuffix(#"), found string "soup""#))
    }

    @Test func wrongContainerTypeSaysWhatWasFound() {
        #expect(
            failure(SearchPage.self, #"{"count": 1, "recipes": {"a": 1}}"#)
                == "body.json: /recipes: expected an array, found object")
    }

    @Test func invalidJSONGivesLineAndColumn() {
        #expect(failure(SearchPage.self, "{\n  \"count\": ,\n}") == "body.json:2:12: expected a JSON value, found ','")
    }

    @Test func missingPointerSaysNothingIsThere() {
        #expect(
            failure([Recipe].self, body, at: "/recipez")
                == "body.json: /recipez: expected a value to decode Array<Recipe> from, found nothing")
    }

    @Test func requireDecodingThrowsTheFailureWithItsFields() throws {
        let error = try #require(throws: InputError.self) {
            try requireDecoding(SearchPage.self, from: Data(body.utf8), named: "body.json")
        }
        #expect(
            error
                == InputError(
                    file: "body.json", position: .jsonPointer("/recipes/1/social_rank"), expected: "Double",
                    found: #"string "99.9""#))
    }

    @Test func requireDecodingReturnsTheValue() throws {
        let fixed = body.replacingOccurrences(of: #""99.9""#, with: "99.9")
        let page = try requireDecoding(SearchPage.self, from: Data(fixed.utf8))
        #expect(page.recipes.map(\.socialRank) == [99.5, 99.9])
    }
}
