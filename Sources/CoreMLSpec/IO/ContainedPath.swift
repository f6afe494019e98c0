import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds an item inside a model folder (an `.mlpackage` or `.mlmodelc`) so that reading it never
/// reaches outside the folder: the item and every folder on the way to it, with their symbolic
/// links resolved, must stay under the folder's own real location.
///
/// A link that stays inside the folder (`weights` → `weights.v2`, or a target such as
/// `../com.apple.CoreML/weights.bin` that ends up inside) is followed; one that leaves it (to
/// `/etc/passwd`, or to a copy of the weights beside the package) is an error. The folder itself
/// may be a link: its real location is the boundary.
package enum ContainedPath {
    /// The URL of `relativePath` (components separated by `/`, no `..`) inside `folder`, checked.
    ///
    /// Components that do not exist are not checked further (reading them then fails as a missing
    /// file); `.` and empty components are skipped.
    ///
    /// - Parameters:
    ///   - relativePath: The item's path inside `folder`, such as `Data/com.apple.CoreML/model.mlmodel`.
    ///   - folder: The package or compiled model folder.
    ///   - kind: What the folder is, for the message: "package" or "compiled model".
    /// - Throws: ``ModelFileError`` (`.corrupt`) naming the first item on the way whose real path
    ///   leaves the folder, and where it leads; or naming the item when the path holds `..` or
    ///   starts with `/`.
    package static func url(_ relativePath: String, in folder: URL, kind: String = "package") throws -> URL {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        guard !relativePath.hasPrefix("/"), !components.contains("..") else {
            throw ModelFileError(.corrupt, path: folder.appendingPathComponent(relativePath).path,
                                 reason: "the path '\(relativePath)' leaves the \(kind)")
        }
        var url = folder
        guard let root = realPath(folder.path) else {
            // The folder itself is missing or unreadable; reading the item fails and says so.
            for component in components { url.appendPathComponent(String(component)) }
            return url
        }
        let boundary = root == "/" ? "/" : root + "/"
        var exists = true
        for component in components {
            url.appendPathComponent(String(component))
            guard exists else { continue }
            guard let real = realPath(url.path) else {
                // Missing (or a link to nothing): whatever reads it reports it missing.
                exists = false
                continue
            }
            guard real == root || real.hasPrefix(boundary) else {
                throw ModelFileError(.corrupt, path: url.path,
                                     reason: "a symbolic link that leaves the \(kind) (it leads to \(real)); OpenCoreML reads only files inside the \(kind)")
            }
        }
        return url
    }

    /// `path` with every symbolic link resolved, absolute; nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
