import ContractTesting
import Foundation
import HTTPStubs
import RecipesAPI
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The recipes models against every recorded fixture: decoding, key coverage, the schema snapshots and
/// the usage manifests in Snapshots/recipes. README.md's "Contract tests in five minutes" is this file.
@Suite struct RecipesContractTests {
    // MARK: Decode every fixture

    @Test func searchResponseDecodesEveryFixtureOfSearch() {
        let pages = expectDecoding(SearchResponse.self, from: .everyFixture(of: "recipes/search"))
        #expect(pages.map(\.count) == [30, 0, 9])  // search, search.empty, search.page2 (sorted by name)
    }

    @Test func recipeDecodesEveryListedItem() {
        let lists = expectDecoding([Recipe].self, from: .everyFixture(of: "recipes/search"), at: "/recipes")
        #expect(lists.map(\.count) == [30, 0, 9])
    }

    @Test func recipeResponseDecodesEveryFixtureOfGet() throws {
        expectDecoding(RecipeResponse.self, from: .everyFixture(of: "recipes/get"))
        let detail = try requireDecoding(RecipeDetail.self, from: .fixture("recipes/get"), at: "/recipe")
        #expect(detail.ingredients.isEmpty == false)
    }

    @Test func errorFixturesDecodeAsTheServersErrorBody() throws {
        let notFound = try requireDecoding(APIErrorResponse.self, from: .fixture("recipes/get.notfound"))
        #expect(notFound.error.message == #"no recipe with id "1""#)
        let missing = try requireDecoding(APIErrorResponse.self, from: .fixture("recipes/search.missingquery"))
        #expect(missing.error.message == "missing query parameter q")
    }

    // MARK: Key coverage

    @Test func modelsReadEveryFieldTheAPISends() {
        let search = expectKeyCoverage(SearchResponse.self, from: .everyFixture(of: "recipes/search"), strict: true)
        #expect(search?.unreadFields == [])
        #expect(search?.readPaths.contains("/recipes/*/social_rank") == true)
        let get = expectKeyCoverage(RecipeResponse.self, from: .everyFixture(of: "recipes/get"), strict: true)
        #expect(get?.readPaths.contains("/recipe/ingredients") == true)
    }

    // MARK: Snapshots and usage manifests

    @Test func fixturesMatchTheirSchemaSnapshots() {
        expectSnapshotMatch(.everyFixture(of: "recipes/search"))
        expectSnapshotMatch(.everyFixture(of: "recipes/get"))
    }

    @Test func usageManifestsListWhatTheModelsRead() {
        expectUsageManifest(for: "recipes/search", models: .decoding(SearchResponse.self))
        expectUsageManifest(for: "recipes/get", models: .decoding(RecipeResponse.self))
    }

    @Test func usageIsObservedFromRealDecoding() throws {
        let paths = try observedUsage(for: "recipes/get", models: [.decoding(RecipeResponse.self)]).get()
        #expect(paths.contains("/recipe/social_rank"))
        #expect(paths.contains("/recipe/ingredients"))
    }

    // MARK: Drift

    /// The drifted server renames `social_rank` to `rank`: the failure names the file, the place and the keys.
    static let renamed = Data(
        #"{"recipe": {"publisher": "P", "f2f_url": "https://f", "title": "T", "source_url": "https://s", "recipe_id": "35382", "image_url": "https://i", "rank": 55.05, "ingredients": ["salt"], "publisher_url": "https://p"}}"#
            .utf8)

    @Test func aRenamedFieldIsAReadableFailure() {
        #expect(
            verifyDecoding(RecipeResponse.self, from: .data(Self.renamed, named: "Stubs/recipes/get.json")).message
                == #"Stubs/recipes/get.json: /recipe: expected key "social_rank", found an object without it; did you mean "rank"? (keys: f2f_url, image_url, ingredients, publisher, publisher_url, rank, recipe_id, source_url, title)"#
        )
        withKnownIssue {
            expectDecoding(RecipeResponse.self, from: .data(Self.renamed, named: "Stubs/recipes/get.json"))
        } matching: { issue in
            ((issue.error as? ContractFailure)?.message ?? "").hasPrefix(
                #"Stubs/recipes/get.json: /recipe: expected key "social_rank", found an object without it"#)
        }
    }

    /// An added field that no model reads is information, not a failure.
    static let added = Data(
        #"{"recipe": {"publisher": "P", "f2f_url": "https://f", "title": "T", "source_url": "https://s", "recipe_id": "35382", "image_url": "https://i", "social_rank": 55.05, "cook_time_minutes": 25, "ingredients": ["salt"], "publisher_url": "https://p"}}"#
            .utf8)

    @Test func anAddedFieldIsInformationOnly() throws {
        let decoded = try requireDecoding(RecipeResponse.self, from: Self.added, named: "GET /api/get")
        #expect(decoded.recipe.recipeID == "35382")

        let coverage = verifyKeyCoverage(RecipeResponse.self, from: .data(Self.added, named: "GET /api/get"))
        #expect(coverage.failures.isEmpty)
        #expect(
            coverage.notes.first
                == "GET /api/get: RecipeResponse never reads /recipe/cook_time_minutes (1 document(s))\nTo accept these gaps, pass ignoring: [\"/recipe/cook_time_minutes\"]"
        )

        // Against the committed snapshot, an added field is not breaking either.
        #expect(
            verifySnapshotMatch(.data(Self.added, named: "GET /api/get"), named: "recipes/get", record: .never).message
                == nil)
    }
}
