import Foundation

extension MLImageClassifier {
    /// Where labelled pictures come from.
    public enum DataSource: Sendable {
        /// One sub-folder per class, named by its label, holding JPEG and PNG files (as Create ML's
        /// `.labeledDirectories(at:)`). Hidden files and other files are skipped.
        case labeledDirectories(at: URL)
        /// Picture files by label (as Create ML's `.filesByLabel(_:)`). Labels are sorted; each
        /// label's files keep their order. A label with no file counts as no class.
        case filesByLabel([String: [URL]])

        /// The pictures with their labels, sorted by label then file name. Throws for a missing
        /// folder or one without any picture.
        public func labeledImages() throws -> [LabeledImage] {
            switch self {
            case .labeledDirectories(let root):
                let manager = FileManager.default
                var isDirectory: ObjCBool = false
                guard manager.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw CreateMLError(root.path, "no such folder")
                }
                var images: [LabeledImage] = []
                let folders = try manager.contentsOfDirectory(atPath: root.path).filter { !$0.hasPrefix(".") }.sorted()
                for folder in folders {
                    let directory = root.appendingPathComponent(folder, isDirectory: true)
                    guard manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
                    let files = try manager.contentsOfDirectory(atPath: directory.path).filter { name in
                        !name.hasPrefix(".") && Self.imageExtensions.contains((name as NSString).pathExtension.lowercased())
                    }.sorted()
                    images += files.map { LabeledImage(url: directory.appendingPathComponent($0), label: folder) }
                }
                guard !images.isEmpty else {
                    throw CreateMLError(root.path, "no pictures: expected one sub-folder per class holding .jpg, .jpeg or .png files")
                }
                return images
            case .filesByLabel(let files):
                let images = files.keys.sorted().flatMap { label in files[label]!.map { LabeledImage(url: $0, label: label) } }
                guard !images.isEmpty else { throw CreateMLError("filesByLabel", "no pictures") }
                return images
            }
        }

        static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

        var description: String {
            switch self {
            case .labeledDirectories(let url): return url.path
            case .filesByLabel: return "filesByLabel"
            }
        }
    }
}

/// A picture file and its class label.
public struct LabeledImage: Sendable, Equatable {
    /// The picture file.
    public var url: URL
    /// The picture's class label.
    public var label: String
}
