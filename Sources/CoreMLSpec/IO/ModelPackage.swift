import Foundation

/// An `.mlpackage` folder, the form coremltools saves ML Programs in: `Manifest.json` lists the
/// package's items (paths under `Data/`) and names the root model, usually
/// `Data/com.apple.CoreML/model.mlmodel`; an ML Program's weights sit beside it in `weights/`.
public struct ModelPackage: Sendable, Equatable {
    /// One entry of the manifest's `itemInfoEntries`.
    public struct Item: Sendable, Equatable {
        public var identifier: String
        public var name: String
        /// The item's path under `Data/`.
        public var path: String
        public var author: String
        public var description: String
    }

    /// The manifest's name inside a package.
    public static let manifestName = "Manifest.json"

    /// The package folder.
    public let url: URL
    /// The manifest's `fileFormatVersion` ("1.0.0").
    public let fileFormatVersion: String
    /// Every item, in identifier order.
    public let items: [Item]
    /// The root model's item.
    public let rootItem: Item

    /// The root model file.
    public var rootModelURL: URL { url.appendingPathComponent("Data").appendingPathComponent(rootItem.path) }

    /// The folder `@model_path` means in an ML Program's blob file names: the root model's folder.
    public var modelPathFolder: URL { rootModelURL.deletingLastPathComponent() }

    /// Whether `url` is a folder with a package manifest.
    public static func isPackage(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.fileExists(atPath: url.appendingPathComponent(manifestName).path)
    }

    /// Reads the package's manifest.
    ///
    /// The manifest, every item it lists and every folder on the way to them must stay inside the
    /// package once symbolic links are resolved (see ``ContainedPath``); links that stay inside are
    /// followed.
    ///
    /// - Throws: ``ModelFileError`` naming the manifest when it is missing, not JSON, of a newer
    ///   major format version, or names no root model or a root model file that is not there; naming
    ///   the manifest, an item or a folder on its way that is a symbolic link leaving the package.
    public init(contentsOf url: URL) throws {
        self.url = url
        let manifestURL = try ContainedPath.url(Self.manifestName, in: url)
        let path = manifestURL.path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ModelFileError(.notAModel, path: url.path, reason: "not a model package: no \(Self.manifestName)")
        }
        guard let manifest = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw ModelFileError(.corrupt, path: path, reason: "not a JSON object")
        }
        guard let version = manifest["fileFormatVersion"] as? String,
              let major = version.split(separator: ".").first.flatMap({ Int($0) }) else {
            throw ModelFileError(.corrupt, path: path, reason: "no fileFormatVersion")
        }
        guard major <= 1 else {
            throw ModelFileError(.notCoreML, path: path, reason: "package format \(version) is newer than the 1.x OpenCoreML reads")
        }
        fileFormatVersion = version
        let entries = manifest["itemInfoEntries"] as? [String: Any] ?? [:]
        var items: [Item] = []
        for identifier in entries.keys.sorted() {
            guard let entry = entries[identifier] as? [String: Any], let itemPath = entry["path"] as? String,
                  let name = entry["name"] as? String else {
                throw ModelFileError(.corrupt, path: path, reason: "item \(identifier) has no path or name")
            }
            guard !itemPath.hasPrefix("/") && !itemPath.split(separator: "/").contains("..") else {
                throw ModelFileError(.corrupt, path: path, reason: "item \(identifier): path '\(itemPath)' leaves the package")
            }
            items.append(Item(identifier: identifier, name: name, path: itemPath, author: entry["author"] as? String ?? "",
                              description: entry["description"] as? String ?? ""))
        }
        self.items = items
        guard let root = manifest["rootModelIdentifier"] as? String else {
            throw ModelFileError(.corrupt, path: path, reason: "no rootModelIdentifier")
        }
        guard let rootItem = items.first(where: { $0.identifier == root }) else {
            throw ModelFileError(.corrupt, path: path, reason: "the root model \(root) is not among the items")
        }
        self.rootItem = rootItem
        for item in items { _ = try ContainedPath.url("Data/" + item.path, in: url) }
        guard FileManager.default.fileExists(atPath: rootModelURL.path) else {
            throw ModelFileError(.notFound, path: rootModelURL.path, reason: "the package's root model file is missing")
        }
    }

    /// The file a blob file value names: `@model_path/…` is relative to the root model's folder.
    ///
    /// - Throws: ``ModelFileError`` when the name is not under `@model_path`, holds `..`, or the
    ///   file or a folder on its way is a symbolic link leaving the package.
    public func blobFileURL(_ fileName: String) throws -> URL {
        let prefix = "@model_path/"
        guard fileName.hasPrefix(prefix) else {
            throw ModelFileError(.corrupt, path: rootModelURL.path, reason: "blob file '\(fileName)' is not under @model_path")
        }
        let relative = String(fileName.dropFirst(prefix.count))
        guard !relative.split(separator: "/").contains("..") else {
            throw ModelFileError(.corrupt, path: rootModelURL.path, reason: "blob file '\(fileName)' leaves the package")
        }
        let rootFolder = rootItem.path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        return try ContainedPath.url((["Data"] + rootFolder.map(String.init) + [relative]).joined(separator: "/"), in: url)
    }
}
