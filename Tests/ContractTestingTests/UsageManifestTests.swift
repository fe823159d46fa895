import APIProbeTestSupport
import ContractTesting
import Foundation
import Testing

@Suite(.temporaryFolder) struct UsageManifestTests {
    let page =
        #"{"count": 1, "recipes": [{"publisher": "A", "title": "Soup", "recipe_id": "1", "social_rank": 99.5, "image_url": "x"}]}"#

    func manifest(_ repository: TemporaryRepository) -> String? {
        (try? Data(contentsOf: repository.snapshots.appendingPathComponent("recipes/search.usage.json"))).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    func verify(_ repository: TemporaryRepository, _ models: ModelUsage..., record: RecordMode) -> String? {
        verifyUsageManifest(
            for: "recipes/search", models: models, record: record, in: repository.stubs, snapshots: repository.snapshots
        ).message
    }

    @Test func recordsAMissingManifestInTheFileFormat() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        let message = verify(repository, .decoding(SearchPage.self), record: .missing)
        #expect(message?.hasPrefix("Recorded missing usage manifest ") == true)
        #expect(message?.hasSuffix("Snapshots/recipes/search.usage.json; re-run, then commit it.") == true)
        #expect(
            manifest(repository) == """
                {
                  "apiprobeVersion": "0.1.0",
                  "paths": [
                    "/count",
                    "/recipes",
                    "/recipes/*",
                    "/recipes/*/publisher",
                    "/recipes/*/recipe_id",
                    "/recipes/*/social_rank",
                    "/recipes/*/title"
                  ]
                }

                """
        )
        #expect(verify(repository, .decoding(SearchPage.self), record: .missing) == nil)
    }

    /// GitHub's `labels: []`: no fixture has a label, yet the model will read `name` and `color` of the first one
    /// that comes. The manifest records that demand from the decoding itself.
    @Test func pathsUnderArraysThatWereAlwaysEmptyAreRecordedFromTheModelsDemand() throws {
        struct Label: Decodable {
            var name: String
            var color: String?
            var isDefault: Bool
        }
        struct Issue: Decodable {
            var number: Int
            var labels: [Label]
            var assignees: [[String: Int]]  // a map per item: its keys are data, not demand
        }
        let repository = try TemporaryRepository()
        try repository.addFixture("github/issues", json: #"[{"number": 1, "labels": [], "assignees": []}]"#)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let paths = try observedUsage(
            for: "github/issues", models: [.decoding([Issue].self)], decoder: decoder, in: repository.stubs
        ).get()
        #expect(
            paths == [
                "/*", "/*/assignees", "/*/assignees/*", "/*/labels", "/*/labels/*", "/*/labels/*/color",
                "/*/labels/*/is_default", "/*/labels/*/name", "/*/number",
            ])
    }

    @Test func mergesThePathsOfEveryModelOverEveryFixture() throws {
        struct Titles: Decodable { var title: String }
        struct Images: Decodable {
            var imageURL: String?
            enum CodingKeys: String, CodingKey { case imageURL = "image_url" }
        }
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        try repository.addFixture(
            "recipes/search.nested", json: #"{"count": 0, "recipes": [], "meta": {"next": "p2"}}"#)
        let paths = try observedUsage(
            for: "recipes/search",
            models: [.decoding([Titles].self, at: "/recipes"), .decoding([Images].self, at: "/recipes")],
            in: repository.stubs
        ).get()
        #expect(paths == ["/recipes", "/recipes/*", "/recipes/*/image_url", "/recipes/*/title"])
    }

    /// A property the model declares `Optional` and one item no longer has: the diff knows the model accepts its
    /// absence (`became-optional` is `info`), while a member the model needs stays `breaking`.
    @Test func membersReadAsOptionalAreListedAndTheirAbsenceBreaksNoModel() throws {
        struct Item: Decodable {
            var title: String
            var imageURL: String?
            enum CodingKeys: String, CodingKey {
                case title
                case imageURL = "image_url"
            }
        }
        struct Page: Decodable { var recipes: [Item] }
        struct Strict: Decodable { var recipes: [StrictItem] }
        struct StrictItem: Decodable {
            var imageURL: String
            enum CodingKeys: String, CodingKey { case imageURL = "image_url" }
        }
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        _ = verify(repository, .decoding(Page.self), record: .missing)
        let written = try #require(manifest(repository))
        #expect(
            written == """
                {
                  "apiprobeVersion": "0.1.0",
                  "optional": [
                    "/recipes/*/image_url"
                  ],
                  "paths": [
                    "/recipes",
                    "/recipes/*",
                    "/recipes/*/image_url",
                    "/recipes/*/title"
                  ]
                }

                """)
        let usage = try UsageManifest(decoding: Data(written.utf8))
        #expect(usage.optionalPaths == ["/recipes/*/image_url"])

        let old = try ShapeNode.infer(from: Data(page.utf8))
        let new = try ShapeNode.infer(
            from: Data(
                #"{"count": 3, "recipes": [{"title": "Soup", "image_url": "y"}, {"title": "Stew"}, {"title": "Pie", "image_url": null}]}"#
                    .utf8))
        let diff = SchemaDiff(from: old, to: new, usage: usage)
        let imageChanges = diff.changes.filter { $0.path == "/recipes/*/image_url" }
        #expect(Set(imageChanges.map(\.kind)) == [.becameOptional, .becameNullable])
        #expect(imageChanges.allSatisfy { $0.severity == .info })
        #expect(SchemaDiff(from: old, to: new, usage: UsageManifest(paths: usage.paths)).breakingCount > 0)

        // One model that needs the member: it is no longer optional for the app, and the manifest says so.
        let both = try #require(verify(repository, .decoding(Page.self), .decoding(Strict.self), record: .missing))
        #expect(both.contains("- /recipes/*/image_url (read as optional)"))
        let strict = try observedUsage(
            for: "recipes/search", models: [.decoding(Page.self), .decoding(Strict.self)], in: repository.stubs
        ).get()
        #expect(strict.contains("/recipes/*/image_url"))
    }

    @Test func aChangedManifestFailsWithTheAddedAndRemovedPaths() throws {
        struct Titles: Decodable {
            var count: Int
            var recipes: [Title]
        }
        struct Title: Decodable {
            var title: String
            var publisher: String
        }
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        _ = verify(repository, .decoding(SearchPage.self), record: .missing)
        let before = manifest(repository)
        let message = try #require(verify(repository, .decoding(Titles.self), record: .missing))
        #expect(
            message.hasSuffix(
                """
                Snapshots/recipes/search.usage.json does not match:
                  - /recipes/*/recipe_id
                  - /recipes/*/social_rank
                If the change is intended, pass record: .failed instead of record: .missing (the argument overrides APIPROBE_RECORD), re-run, and commit the file.
                """))
        #expect(manifest(repository) == before)
    }

    @Test func failedModeRewritesAMismatchAndStillFails() throws {
        struct Counts: Decodable { var count: Int }
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        _ = verify(repository, .decoding(SearchPage.self), record: .missing)
        let message = try #require(verify(repository, .decoding(Counts.self), record: .failed))
        #expect(message.contains("did not match and was re-recorded (record mode failed)"))
        #expect(manifest(repository)?.contains(#""/count""#) == true)
        #expect(manifest(repository)?.contains("/recipes") == false)
        #expect(verify(repository, .decoding(Counts.self), record: .never) == nil)
    }

    @Test func neverModeFailsOnAMissingManifestAndWritesNothing() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        let message = verify(repository, .decoding(SearchPage.self), record: .never)
        #expect(message?.hasPrefix("No usage manifest at ") == true)
        #expect(message?.hasSuffix("(record mode never); run the tests locally to record it, then commit it.") == true)
        #expect(manifest(repository) == nil)
    }

    @Test func allModeRewritesWithoutFailingWhenNothingChanged() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        _ = verify(repository, .decoding(SearchPage.self), record: .missing)
        #expect(verify(repository, .decoding(SearchPage.self), record: .all) == nil)
    }

    @Test func aScopeSetsTheRecordModeForAssertionsInside() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        let message = withContractTesting(record: .never) {
            verifyUsageManifest(
                for: "recipes/search", models: [.decoding(SearchPage.self)], in: repository.stubs,
                snapshots: repository.snapshots
            ).message
        }
        #expect(message?.hasPrefix("No usage manifest at ") == true)
    }

    @Test func aBrokenManifestIsReportedWithFileAndPlace() throws {
        let repository = try TemporaryRepository()
        try repository.addFixture("recipes/search", json: page)
        let url = repository.snapshots.appendingPathComponent("recipes/search.usage.json")
        try AtomicFile.write(Data(#"{"apiprobeVersion": "0.1.0", "paths": [3]}"#.utf8), to: url)
        let message = verify(repository, .decoding(SearchPage.self), record: .missing)
        #expect(
            message
                == repository.snapshots.appendingPathComponent("recipes/search.usage.json").path
                + #": /paths/0: expected a JSON Pointer ("" or starting with "/"), found integer 3"#)
    }
}
