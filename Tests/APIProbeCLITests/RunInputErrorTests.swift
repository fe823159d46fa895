import APIProbeTestSupport
import Foundation
import Testing

/// `apiprobe run`'s messages for a config it cannot use, in our words with the file and the key (issue 38,
/// item 11): a missing config was Foundation's "The operation could not be completed", and `tpc://` was told only
/// about http(s).
@Suite(.tags(.commandLine), .hangGuard, .temporaryFolder)
struct RunInputErrorTests {
    @Test func aMissingConfigOrAFolderIsNamedAsSuch() async throws {
        let folder = try TemporaryFolder.make("run-input")
        let missing = try await CommandLineRunner.run(["run", "--config", "nope.yml"], in: folder)
        #expect(missing.status == 2, "\(missing)")
        #expect(
            missing.standardError.contains("nope.yml: (file): expected a readable config file, found no such file"),
            "\(missing)")
        #expect(!missing.standardError.contains("could not be completed"), "\(missing)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("dir.yml"), withIntermediateDirectories: true)
        let directory = try await CommandLineRunner.run(["run", "--config", "dir.yml"], in: folder)
        #expect(directory.status == 2)
        #expect(directory.standardError.contains("dir.yml: (file): expected a readable config file, found a folder"))
    }

    @Test func aSchemeItDoesNotProbeNamesTheOnesItDoes() async throws {
        let folder = try TemporaryFolder.make("run-scheme")
        try Data("api: x\nendpoints:\n  - {name: a, url: \"tpc://h:1\"}\n".utf8)
            .write(to: folder.appendingPathComponent("apiprobe.yml"))
        let run = try await CommandLineRunner.run(["run", "--config", "apiprobe.yml"], in: folder)
        #expect(run.status == 2, "\(run)")
        #expect(
            run.standardError.contains(
                #"apiprobe.yml:3:20: endpoints.a.url: expected a URL whose scheme is http, https, tcp, tls or dns, found "tpc://h:1" (scheme tpc)"#
            ), "\(run)")
    }
}
