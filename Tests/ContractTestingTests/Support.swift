import APIProbeTestSupport
import ContractTesting
import Foundation

/// A fresh folder holding `Stubs/` (fixtures written from inline JSON) and `Snapshots/`.
struct TemporaryRepository {
    let root: URL
    var stubs: FixtureStore { FixtureStore(directory: root.appendingPathComponent("Stubs")) }
    var snapshots: URL { root.appendingPathComponent("Snapshots") }

    /// A repository in the running test's folder (`.temporaryFolder`), removed with it.
    init() throws {
        root = try TemporaryFolder.make("repository")
    }

    /// Writes a fixture whose response body is `json`.
    func addFixture(_ name: String, json: String, status: Int = 200) throws {
        let body = try JSONValue(parsing: Data(json.utf8))
        let exchange = Exchange(
            request: RecordedRequest(url: "https://api.example.com/\(name)"),
            response: RecordedResponse(status: status, headers: ["Content-Type": "application/json"], body: .json(body))
        )
        try stubs.write(exchange, named: name)
    }

    /// The display name of a fixture in messages.
    func file(_ name: String) -> String { stubs.displayPath(for: stubs.url(for: name)) }

}

// MARK: - Models, as an app writes them

struct Recipe: Decodable, Equatable {
    var publisher: String
    var title: String
    var recipeID: String
    var socialRank: Double

    enum CodingKeys: String, CodingKey {
        case publisher, title
        case recipeID = "recipe_id"
        case socialRank = "social_rank"
    }
}

struct SearchPage: Decodable, Equatable {
    var count: Int
    var recipes: [Recipe]
}

/// Relies on `.convertFromSnakeCase` and date/data strategies.
struct Article: Decodable, Equatable {
    var headline: String
    var publishedAt: Date
    var authorName: String?
    var thumbnailData: Data?
}

enum Course: String, Decodable, Equatable { case starter, main, dessert }

struct Dish: Decodable, Equatable {
    var name: String
    var course: Course
}
