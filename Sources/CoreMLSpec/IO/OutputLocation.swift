import Foundation

/// Checks, before any work starts, that a file or folder can be written at a path: its folder
/// exists and is writable, and the path itself is not a folder where a file is wanted (or the other
/// way round). Commands that write several outputs check them all first, so a late failure never
/// leaves some outputs replaced and others not.
package enum OutputLocation {
    /// Throws a ``ModelFileError`` (`.writeFailed`) naming the path and the problem.
    package static func check(_ url: URL) throws {
        let fileManager = FileManager.default
        let path = url.path
        guard !url.lastPathComponent.isEmpty, url.lastPathComponent != "/" else {
            throw ModelFileError(.writeFailed, path: path, reason: "not a file name")
        }
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: folder, isDirectory: &isDirectory) else {
            throw ModelFileError(.writeFailed, path: path, reason: "the folder \(folder) does not exist")
        }
        guard isDirectory.boolValue else {
            throw ModelFileError(.writeFailed, path: path, reason: "\(folder) is not a folder")
        }
        guard fileManager.isWritableFile(atPath: folder) else {
            throw ModelFileError(.writeFailed, path: path, reason: "the folder \(folder) is not writable")
        }
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory) {
            let wantsFolder = CompiledModelLayout.isCompiledModelURL(url) || ModelPackage.isPackageURL(url)
            if isDirectory.boolValue && !wantsFolder {
                throw ModelFileError(.writeFailed, path: path, reason: "a folder is in the way")
            }
            if !isDirectory.boolValue && wantsFolder {
                throw ModelFileError(.writeFailed, path: path, reason: "a file is in the way of the \(ModelPackage.isPackageURL(url) ? "model package" : "compiled model") folder")
            }
        }
    }
}
