import APIProbeTestSupport
import FixtureImport
import Foundation
import HTTPFixtures
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names from outside input never leave their folder; files are replaced only when they are regular files.
@Suite(.hangGuard, .temporaryFolder)
struct SafeFileTests {
    static func makeFolder() throws -> URL {
        let url = try TemporaryFolder.make("safe-file")
        return url
    }

    // MARK: Names

    @Test func namesFromOutsideInputAreOneSafeFileName() {
        #expect(SafePath.fileName("..", fallback: "x") == "x")
        #expect(SafePath.fileName("%2e%2e", fallback: "x") == "x")
        #expect(SafePath.fileName("%252e%252e", fallback: "x") == "x")
        #expect(SafePath.fileName("get/../../../../escaped/owned", fallback: "x") == "get_.._.._.._.._escaped_owned")
        #expect(SafePath.fileName(".hidden", fallback: "x") == "hidden")
        #expect(SafePath.fileName("a\u{0}b\nc\\d", fallback: "x") == "a_b_c_d")
        #expect(SafePath.fileName(String(repeating: "é", count: 200), fallback: "x").utf8.count == 120)
        #expect(SafePath.fileName("get-api-search", fallback: "x") == "get-api-search")
    }

    @Test func harHostsAndMethodsCannotLeaveTheFolder() throws {
        for host in ["..", "%2e%2e", "%2E%2E"] {
            let data = HAR.document([HAR.entry(url: "http://\(host)/api/x", text: "{}")])
            let archive = try HARArchive(parsing: data, file: "s.har")
            #expect(archive.entries.map(\.host) == ["unknown-host"], "host \(host)")
        }
        for method in ["get/../../../../escaped/owned", "", "GET /x", String(repeating: "A", count: 33), "G\u{0}T"] {
            let data = HAR.document([HAR.entry(method: method, url: "http://api.example.com/x", text: "{}")])
            let error = #expect(throws: InputError.self) { try HARArchive(parsing: data, file: "s.har") }
            #expect(error?.position == .jsonPointer("/log/entries/0/request/method"), "method \(method)")
            #expect(error?.expected == "an HTTP method (a token such as GET or POST)")
        }
        let data = HAR.document([HAR.entry(method: "PROPFIND", url: "http://api.example.com/x", text: "{}")])
        #expect(try HARArchive(parsing: data, file: "s.har").entries.map(\.name) == ["propfind-x"])
    }

    @Test func aRelativeURLErrorDoesNotEchoItsCredentials() {
        let data = HAR.document([HAR.entry(url: "/api/x?api_key=rel-SECRET-1&page=2#token=rel-SECRET-2", text: "{}")])
        let error = #expect(throws: InputError.self) { try HARArchive(parsing: data, file: "s.har") }
        #expect(error?.found == #"string "/api/x?api_key=REDACTED&page=2#token=REDACTED""#)
    }

    @Test func aFixtureStoreNeverWritesOutsideItsFolder() throws {
        let folder = try Self.makeFolder()
        let store = FixtureStore(directory: folder.appendingPathComponent("Stubs"))
        let exchange = Exchange(request: RecordedRequest(url: "https://x.example/"), response: RecordedResponse())
        let error = #expect(throws: InputError.self) { try store.write(exchange, named: "../../escaped") }
        #expect(error?.found == "a path that leads outside it")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("escaped.json").path))

        // A link planted in the folder that points outside it is not written through.
        let outside = folder.appendingPathComponent("outside.txt")
        try Data("keep".utf8).write(to: outside)
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: store.directory.appendingPathComponent("planted.json"), withDestinationURL: outside)
        let linked = #expect(throws: InputError.self) { try store.write(exchange, named: "planted") }
        #expect(linked?.found == "a symbolic link to \(outside.resolvingSymlinksInPath().path), outside it")
        #expect(try String(contentsOf: outside, encoding: .utf8) == "keep")
    }

    // MARK: Atomic writes

    @Test func aRewrittenFileKeepsItsPermissionBits() throws {
        let folder = try Self.makeFolder()
        let file = folder.appendingPathComponent("snapshot.json")
        try Data("old".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        try AtomicFile.write(Data("new".utf8), to: file)
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new")
    }

    @Test func aSymbolicLinkIsFollowedNotReplaced() throws {
        let folder = try Self.makeFolder()
        let target = folder.appendingPathComponent("real.json")
        try Data("old".utf8).write(to: target)
        let link = folder.appendingPathComponent("report.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        try AtomicFile.write(Data("new".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try String(contentsOf: target, encoding: .utf8) == "new")
    }

    @Test func aDeviceIsWrittenThroughNotReplaced() throws {
        let folder = try Self.makeFolder()
        // A link to a character device, as /dev/stdout is: the device is written to, the link stays a link.
        let link = folder.appendingPathComponent("out.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: URL(fileURLWithPath: "/dev/null"))
        try AtomicFile.write(Data("report".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "/dev/null")
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.json"])
    }

    @Test func whatCannotBeWrittenSaysWhy() throws {
        let folder = try Self.makeFolder()
        let long = folder.appendingPathComponent(String(repeating: "n", count: 300) + ".json")
        let tooLong = #expect(throws: InputError.self) { try AtomicFile.write(Data(), to: long) }
        #expect(
            tooLong?.description.hasSuffix(
                "expected a file name of at most 255 bytes, found a name of 305 bytes (too long)") == true)

        let dangling = folder.appendingPathComponent("dangling.json")
        try FileManager.default.createSymbolicLink(
            at: dangling, withDestinationURL: folder.appendingPathComponent("missing/none.json"))
        let toNothing = #expect(throws: InputError.self) { try AtomicFile.write(Data(), to: dangling) }
        #expect(toNothing?.found == "a symbolic link to nothing")

        let isFolder = #expect(throws: InputError.self) { try AtomicFile.write(Data(), to: folder) }
        #expect(isFolder?.found == "a folder")
    }

    @Test func aTemporaryFileLeftByAKilledWriterIsRemovedByTheNextWrite() throws {
        let folder = try Self.makeFolder()
        // What a writer killed between creating and renaming its temporary file leaves (this version's name
        // and the earlier one's); nobody holds them any more.
        let left = [".apiprobe-\(UUID().uuidString).tmp", ".search.json.tmp-\(UUID().uuidString)"]
        for name in left { try Data("half".utf8).write(to: folder.appendingPathComponent(name)) }
        try Data("keep".utf8).write(to: folder.appendingPathComponent(".gitkeep"))
        try AtomicFile.write(Data("{}".utf8), to: folder.appendingPathComponent("search.json"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [".gitkeep", "search.json"])
    }

    @Test func writersSharingAFolderNeverRemoveEachOthersTemporaryFiles() async throws {
        let folder = try Self.makeFolder()
        // Each write cleans the folder of abandoned temporary files while the others are creating theirs.
        let failures = await withTaskGroup(of: [String].self) { group in
            for writer in 0..<8 {
                group.addTask {
                    var failures: [String] = []
                    for round in 0..<40 {
                        let file = folder.appendingPathComponent("w\(writer)-\(round).json")
                        do {
                            try AtomicFile.write(Data("\(round)".utf8), to: file)
                        } catch {
                            failures.append("\(error)")
                        }
                    }
                    return failures
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(failures == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 320)
    }
}
