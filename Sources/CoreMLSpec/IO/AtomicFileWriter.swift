import Foundation

/// Writes files and folders so that readers never see a half-written result:
/// everything goes to a temporary name in the destination's folder and is renamed into place.
enum AtomicFileWriter {
    /// Writes `data` to `url`, replacing any existing file.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = temporaryURL(beside: url)
        do {
            try data.write(to: temporary)
            try renameReplacing(temporary, url)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ModelFileError(.writeFailed, path: url.path, reason: "could not write the model (\(describe(error)))")
        }
    }

    /// Builds a folder with `fill` at a temporary name, then moves it to `url`, replacing any existing folder.
    static func writeDirectory(to url: URL, fill: (URL) throws -> Void) throws {
        let fileManager = FileManager.default
        let temporary = temporaryURL(beside: url)
        do {
            try fileManager.createDirectory(at: temporary, withIntermediateDirectories: false)
            try fill(temporary)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                // A folder cannot be renamed over a non-empty folder: move the old one aside first.
                let old = temporaryURL(beside: url)
                try fileManager.moveItem(at: url, to: old)
                do {
                    try fileManager.moveItem(at: temporary, to: url)
                } catch {
                    try? fileManager.moveItem(at: old, to: url)
                    throw error
                }
                try? fileManager.removeItem(at: old)
            } else {
                try fileManager.moveItem(at: temporary, to: url)
            }
        } catch {
            try? fileManager.removeItem(at: temporary)
            if let error = error as? ModelFileError { throw error }
            throw ModelFileError(.writeFailed, path: url.path, reason: "could not write the compiled model (\(describe(error)))")
        }
    }

    private static func temporaryURL(beside url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).tmp-\(UUID().uuidString)")
    }

    private static func renameReplacing(_ source: URL, _ destination: URL) throws {
        if rename(source.path, destination.path) != 0 {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination.path])
        }
    }

    private static func describe(_ error: Error) -> String {
        (error as NSError).localizedDescription
    }
}
