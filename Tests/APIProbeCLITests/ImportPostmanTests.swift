import APIProbeTestSupport
import Foundation
import HTTPFixtures
import Testing

/// `apiprobe import postman`, as the built binary, on a collection of GitHub requests with saved examples.
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct ImportPostmanTests {
    static let collection = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FixtureImportTests/Fixtures/github.postman_collection.json")

    func files(in folder: URL) -> [String] { Self.files(in: folder) }

    /// The JSON files below a folder, as paths relative to it, sorted.
    static func files(in folder: URL) -> [String] {
        let base = folder.standardizedFileURL.path
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var names: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "json" else { continue }
            names.append(String(url.standardizedFileURL.path.dropFirst(base.count + 1)))
        }
        return names.sorted()
    }

    /// `--quiet` (issue 37, item 5): no skipped, note or progress lines on standard error, warnings and errors
    /// still, and the summary line on standard output still counts what was skipped. For `import`, `snapshot
    /// update` and `snapshot check` alike (they share the option).
    @Test func quietLeavesOutSkippedLinesButTheSummaryCountsThem() async throws {
        let folder = try TemporaryFolder.make()
        let quiet = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--var", "githubToken=t", "--quiet"], in: folder)
        #expect(quiet.status == 0, "\(quiet)")
        #expect(quiet.standardError.isEmpty, "\(quiet.standardError)")
        #expect(
            quiet.standardOutput.hasSuffix("3 requests, 4 fixtures (4 written, 0 unchanged), 1 skipped, 0 warnings\n"))

        // An endpoint with no 2xx JSON sample: update and check skip it, say so, and count it.
        try Data(
            #"{"request": {"method": "GET", "url": "https://api.github.com/gone"}, "response": {"status": 404, "body": {"message": "Not Found"}}}"#
                .utf8
        ).write(to: folder.appendingPathComponent("Stubs/github-rest-sample/gone.json"))
        _ = try await CommandLineRunner.run(["snapshot", "update"], in: folder)
        for command in [["snapshot", "update"], ["snapshot", "check"]] {
            let loud = try await CommandLineRunner.run(command, in: folder)
            let hushed = try await CommandLineRunner.run(command + ["-q"], in: folder)
            #expect(loud.standardError.contains("skipped"), "\(command): \(loud)")
            #expect(!hushed.standardError.contains("skipped"), "\(command): \(hushed)")
            #expect(hushed.standardOutput == loud.standardOutput, "\(command): the results and counts do not change")
            #expect(hushed.standardOutput.contains("skipped"), "\(command): the summary counts it: \(hushed)")
        }
    }

    @Test func examplesBecomeSamplesOfTheirEndpointAndFeedSnapshotUpdate() async throws {
        let folder = try TemporaryFolder.make()
        let result = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--var", "githubToken=ghp_planted0000000000000000"], in: folder)
        #expect(result.status == 0, "\(result)")
        #expect(
            files(in: folder.appendingPathComponent("Stubs")) == [
                "github-rest-sample/get-a-repository.2.json", "github-rest-sample/get-a-repository.json",
                "github-rest-sample/list-repository-issues.2.json", "github-rest-sample/list-repository-issues.json",
            ])
        // Diagnostics on standard error, never mixed with the list of fixtures (issue 37, item 5).
        #expect(
            result.standardError.contains(
                "skipped \(Self.collection.path): /item/0/item/1 (Delete a label): no saved example response"))
        #expect(!result.standardOutput.contains("skipped "), "\(result.standardOutput)")
        #expect(
            result.standardOutput.hasSuffix(
                "\(Self.collection.path): 3 requests, 4 fixtures (4 written, 0 unchanged), 1 skipped, 0 warnings\n"),
            "\(result)")
        #expect(!result.standardOutput.contains("ghp_planted") && !result.standardError.contains("ghp_planted"))

        // The two pages are samples of one endpoint: one snapshot, two samples.
        let update = try await CommandLineRunner.run(["snapshot", "update"], in: folder)
        #expect(update.status == 0, "\(update)")
        let snapshot = try String(
            contentsOf: folder.appendingPathComponent(
                "Snapshots/github-rest-sample/list-repository-issues.schema.json"),
            encoding: .utf8)
        #expect(snapshot.contains("\"x-apiprobe\": {\n    \"samples\": 2\n  }"), "\(snapshot)")
    }

    @Test func nameAndTemplatesNameTheFixtures() async throws {
        let folder = try TemporaryFolder.make()
        let templated = try await CommandLineRunner.run(
            [
                "import", "postman", Self.collection.path, "--into", "Stubs/github", "--template",
                "/repos/{owner}/{repo}/issues", "--template", "/repos/{owner}/{repo}=repository",
            ], in: folder)
        #expect(templated.status == 0, "\(templated)")
        #expect(
            files(in: folder.appendingPathComponent("Stubs/github")) == [
                "issues.2.json", "issues.json", "repository.2.json", "repository.json",
            ])

        let named = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--into", "one", "--name", "sample"], in: folder)
        #expect(named.status == 0, "\(named)")
        #expect(
            files(in: folder.appendingPathComponent("one")) == [
                "sample.2.json", "sample.3.json", "sample.4.json", "sample.json",
            ])
    }

    @Test func badArgumentsAndBadFilesExitTwo() async throws {
        let folder = try TemporaryFolder.make()
        let badName = try await CommandLineRunner.run(
            ["import", "postman", Self.collection.path, "--name", "../escape"], in: folder)
        #expect(badName.status == 2)
        #expect(badName.standardError.contains("--name ../escape: expected a file name without '.', '/' or '..'"))
        let badTemplate = try await CommandLineRunner.run(
            ["import", "har", "x.har", "--template", "repos/{owner}"], in: folder)
        #expect(badTemplate.status == 2)
        #expect(
            badTemplate.standardError.contains("--template repos/{owner}: expected a path template starting with /"))
        let missing = try await CommandLineRunner.run(["import", "postman", "none.json"], in: folder)
        #expect(missing.status == 2)
        #expect(
            missing.standardError.contains("none.json: expected a readable Postman collection file, found no such file")
        )
        #expect(files(in: folder).isEmpty)
    }
}
