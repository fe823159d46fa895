package import Foundation

/// A file's path as messages show it: relative to `base` (the current folder by default) when the file is below
/// it, else absolute.
package func displayPath(_ url: URL, relativeTo base: URL? = nil) -> String {
    let root = (base ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
    let path = url.standardizedFileURL.path
    return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
}

/// ``displayPath(_:relativeTo:)`` for many files of one folder, with the folder's part worked out once (it
/// reads the current folder and standardises two URLs: on a store of 2,500 fixtures that was a twentieth of
/// `snapshot check`).
package struct FolderDisplayPath: Sendable {
    let folder: URL
    /// What comes before a relative path: the folder as shown, and a slash (nothing for the current folder).
    let prefix: String

    package init(_ folder: URL, relativeTo base: URL? = nil) {
        self.folder = folder
        let root = (base ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
        let path = folder.standardizedFileURL.path
        if path == root {
            prefix = ""
        } else {
            let shown = displayPath(folder, relativeTo: base)
            prefix = shown.hasSuffix("/") ? shown : shown + "/"
        }
    }

    /// The shown path of `relative` (`recipes/search.json`) in the folder.
    package func path(_ relative: String) -> String {
        // A dot segment or an empty one is left to the standardising rule.
        let plain = relative.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
        return plain ? prefix + relative : displayPath(folder.appendingPathComponent(relative))
    }
}
