package import Foundation

/// A file's path as messages show it: relative to the current folder when the file is below it, else absolute.
package func displayPath(_ url: URL) -> String {
    let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
    let path = url.standardizedFileURL.path
    return path.hasPrefix(cwd + "/") ? String(path.dropFirst(cwd.count + 1)) : path
}
