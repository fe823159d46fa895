import ContractTesting
import Foundation
import RecipesAPI
import XCTest

/// The contract assertions under XCTest: the same calls as RecipesContractTests, reported through XCTFail.
final class RecipesContractXCTests: XCTestCase {
    func testEveryModelDecodesEveryFixture() {
        let pages = expectDecoding(SearchResponse.self, from: .everyFixture(of: "recipes/search"))
        XCTAssertEqual(pages.map(\.count), [30, 0, 9])
        let recipes = expectDecoding(RecipeResponse.self, from: .everyFixture(of: "recipes/get"))
        XCTAssertEqual(recipes.map(\.recipe.recipeID), ["35382"])
    }

    func testKeyCoverageIsComplete() {
        let coverage = expectKeyCoverage(RecipeResponse.self, from: .everyFixture(of: "recipes/get"), strict: true)
        XCTAssertEqual(coverage?.isComplete, true)
    }

    func testUsageManifestHolds() {
        XCTAssertNil(
            verifyUsageManifest(for: "recipes/search", models: [.decoding(SearchResponse.self)], record: .never).message
        )
    }

    func testRenamedFieldIsReportedWithFileAndPlace() {
        XCTAssertEqual(
            verifyDecoding(RecipeResponse.self, from: .data(RecipesContractTests.renamed, named: "get.json")).message,
            #"get.json: /recipe: expected key "social_rank", found an object without it; did you mean "rank"? (keys: f2f_url, image_url, ingredients, publisher, publisher_url, rank, recipe_id, source_url, title)"#
        )
    }

    #if canImport(Darwin)
    func testRenamedFieldFailsThroughXCTest() {
        let options = XCTExpectedFailure.Options()
        options.issueMatcher = { issue in
            issue.compactDescription.contains(#"get.json: /recipe: expected key "social_rank""#)
        }
        XCTExpectFailure("the server renamed social_rank", options: options) {
            expectDecoding(RecipeResponse.self, from: .data(RecipesContractTests.renamed, named: "get.json"))
        }
    }
    #endif
}
