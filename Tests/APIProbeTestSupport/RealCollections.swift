public import Foundation

/// Real vendors' material the tests read (`shared/real-collections`, or the folder `APIPROBE_REAL_COLLECTIONS`
/// names): every vendor folder found there, none named in code, so a vendor added to the folder is tested with no
/// code change (issue 37).
public enum RealCollections {
    /// The folder, when it is there (it holds a README.md listing each file's source).
    public static var folder: URL? {
        TestEnvironment.sharedFolder("real-collections", variable: "APIPROBE_REAL_COLLECTIONS", probe: "README.md")
    }

    /// One vendor's folder: its Postman collection (`collection.json`) and environment (`environment.json`) when
    /// there, and every OpenAPI description in it (`.json`, `.yaml` or `.yml` files other than those two).
    public struct Vendor: Sendable, CustomStringConvertible {
        public var name: String
        public var folder: URL
        public var collection: URL?
        public var environment: URL?
        /// In name order.
        public var specs: [URL]
        public var description: String { name }

        public init(name: String, folder: URL, collection: URL? = nil, environment: URL? = nil, specs: [URL]) {
            self.name = name
            self.folder = folder
            self.collection = collection
            self.environment = environment
            self.specs = specs
        }
    }

    /// Every vendor folder, in name order; empty when the folder is not there.
    public static var vendors: [Vendor] {
        guard let folder,
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return [] }
        return names.sorted().compactMap { name -> Vendor? in
            let vendorFolder = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard !name.hasPrefix("."),
                FileManager.default.fileExists(atPath: vendorFolder.path, isDirectory: &isDirectory),
                isDirectory.boolValue,
                let files = try? FileManager.default.contentsOfDirectory(atPath: vendorFolder.path)
            else { return nil }
            func file(_ file: String) -> URL? {
                files.contains(file) ? vendorFolder.appendingPathComponent(file) : nil
            }
            let specs = files.sorted().filter { file in
                ["json", "yaml", "yml"].contains((file as NSString).pathExtension.lowercased())
                    && !["collection.json", "environment.json"].contains(file)
            }.map { vendorFolder.appendingPathComponent($0) }
            return Vendor(
                name: name, folder: vendorFolder, collection: file("collection.json"),
                environment: file("environment.json"), specs: specs)
        }
    }
}
