package import Foundation

/// A file's path as messages show it: relative to `base` (the current folder by default) when the file is below
/// it, else absolute.
package func displayPath(_ url: URL, relativeTo base: URL? = nil) -> String {
    let root = (base ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL.path
    let path = url.standardizedFileURL.path
    return path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
}
