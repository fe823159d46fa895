import Foundation
import Testing

@testable import ContractTesting

/// The recording decoder must decode what `JSONDecoder` decodes, with the same strategies, or the paths
/// it observes would not be the ones the app reads.
@Suite struct RecordingDecoderTests {
    func both<T: Decodable & Equatable>(_ type: T.Type, _ json: String, decoder: JSONDecoder = JSONDecoder()) throws
        -> (recorded: T, reference: T, log: ReadLog)
    {
        let value = try JSONValue(parsing: Data(json.utf8))
        let log = ReadLog()
        let recorded = try RecordingDecoder.decode(type, from: value, path: [], using: decoder, log: log)
        return (recorded, try decoder.decode(type, from: Data(json.utf8)), log)
    }

    @Test func agreesWithJSONDecoderOnNestedArraysAndKeys() throws {
        let result = try both(
            SearchPage.self,
            #"{"count": 2, "recipes": [{"publisher": "A", "title": "Soup", "recipe_id": "1", "social_rank": 99.99}, {"publisher": "B", "title": "Stew", "recipe_id": "2", "social_rank": 100.0}]}"#
        )
        #expect(result.recorded == result.reference)
        #expect(result.log.read.contains([.key("recipes"), .index(1), .key("social_rank")]))
    }

    @Test func agreesWithJSONDecoderUnderSnakeCaseDateAndDataStrategies() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.dataDecodingStrategy = .base64
        let result = try both(
            Article.self,
            #"{"headline": "Hi", "published_at": 1795370400, "thumbnail_data": "AQID", "author_name": null}"#,
            decoder: decoder)
        #expect(result.recorded == result.reference)
        #expect(result.log.optionalProbes == [[.key("author_name")]: false, [.key("thumbnail_data")]: true])
    }

    @Test func rejectsWhatJSONDecoderRejects() throws {
        let value = try JSONValue(parsing: Data(#"{"name": "Soup", "course": "soup"}"#.utf8))
        #expect(throws: DecodingError.self) {
            try RecordingDecoder.decode(Dish.self, from: value, path: [], using: JSONDecoder(), log: ReadLog())
        }
    }

    @Test(arguments: ["f2f_url", "social_rank", "_private_key_", "already", "a__b", "URL_value", "trailing_"])
    func snakeCaseConversionMatchesJSONDecoder(key: String) throws {
        struct Names: Decodable {
            var names: [String]
            init(from decoder: any Decoder) throws {
                names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            }
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let converted = try decoder.decode(Names.self, from: Data(#"{"\#(key)": 1}"#.utf8)).names
        #expect(converted == [KeyConverter.convertFromSnakeCase(key)])
    }

    @Test func snakeCaseOfModelKeysForMessages() {
        #expect(KeyConverter.convertToSnakeCase("publishedAt") == "published_at")
        #expect(KeyConverter.convertToSnakeCase("imageURL") == "image_url")
    }
}
