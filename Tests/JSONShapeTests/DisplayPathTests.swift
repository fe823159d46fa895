import APIProbeShared
import Foundation
import Testing

/// APIProbeShared's shown paths: the folder's part worked out once gives what the one-file rule gives.
struct DisplayPathTests {
    @Test func aFoldersPathsAreShownAsEachFilesPathIs() {
        let current = FileManager.default.currentDirectoryPath
        let folders = [
            current, current + "/Stubs", current + "/Stubs/", current + "/./Stubs/../Stubs", "/tmp/elsewhere",
            "/", current + "-sibling",
        ]
        let files = ["a.json", "recipes/search.json", "recipes/../x.json", "./y.json", "a//b.json", "z.json.json"]
        for folder in folders {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            let shown = FolderDisplayPath(url)
            for file in files {
                #expect(
                    shown.path(file) == displayPath(url.appendingPathComponent(file)), "\(folder) + \(file)")
            }
        }
    }
}
