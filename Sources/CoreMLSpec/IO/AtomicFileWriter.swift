import Foundation
import _OpenCoreMLFileSystem

/// Writes files and folders so that readers never see a half-written result and a crash at any
/// moment leaves either the old or the new content in place:
/// - everything is written to a temporary name in the destination's folder
///   (`.NAME.tmp-PID-UUID`), then renamed into place;
/// - a folder replaces an existing one by an atomic exchange of the two names (Linux
///   `renameat2(RENAME_EXCHANGE)`, `renamex_np(RENAME_SWAP)` on Apple platforms), after which the old
///   content, now under the temporary name, is removed;
/// - temporary names left by a process that no longer runs (killed mid-write) are removed by the
///   next write to the same destination.
enum AtomicFileWriter {
    /// Writes `data` to `url`, replacing any existing file.
    static func write(_ data: Data, to url: URL) throws {
        try OutputLocation.check(url)
        removeStaleTemporaries(of: url)
        let temporary = temporaryURL(beside: url)
        do {
            try data.write(to: temporary)
            if rename(temporary.path, url.path) != 0 { throw POSIXError(errno: errno, path: url.path) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw ModelFileError(.writeFailed, path: url.path, reason: "could not write the model (\(describe(error)))")
        }
    }

    /// Builds a folder with `fill` at a temporary name, then puts it at `url`, replacing any
    /// existing folder in one atomic step.
    static func writeDirectory(to url: URL, fill: (URL) throws -> Void) throws {
        try OutputLocation.check(url)
        removeStaleTemporaries(of: url)
        let fileManager = FileManager.default
        let temporary = temporaryURL(beside: url)
        do {
            try fileManager.createDirectory(at: temporary, withIntermediateDirectories: false)
            try fill(temporary)
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                try replace(url, with: temporary, isDirectory: isDirectory.boolValue)
            } else if rename(temporary.path, url.path) != 0 {
                throw POSIXError(errno: errno, path: url.path)
            }
        } catch {
            try? fileManager.removeItem(at: temporary)
            if let error = error as? ModelFileError { throw error }
            throw ModelFileError(.writeFailed, path: url.path, reason: "could not write the model folder (\(describe(error)))")
        }
    }

    /// Puts the finished `temporary` at `destination`: an atomic exchange, then the old content
    /// (now at `temporary`) is removed. Where the file system cannot exchange, a file is renamed
    /// over the old one; an old folder is moved aside first (the only window in which a crash
    /// leaves no model at the destination — its content stays at a `.tmp-` name, and the next write
    /// cleans it up).
    private static func replace(_ destination: URL, with temporary: URL, isDirectory: Bool) throws {
        let fileManager = FileManager.default
        if ocm_exchange_paths(temporary.path, destination.path) == 0 {
            try? fileManager.removeItem(at: temporary)
            return
        }
        guard errno == ENOSYS || errno == EINVAL || errno == ENOTSUP else { throw POSIXError(errno: errno, path: destination.path) }
        guard isDirectory else {
            if rename(temporary.path, destination.path) != 0 { throw POSIXError(errno: errno, path: destination.path) }
            return
        }
        let old = temporaryURL(beside: destination)
        try fileManager.moveItem(at: destination, to: old)
        do {
            try fileManager.moveItem(at: temporary, to: destination)
        } catch {
            try? fileManager.moveItem(at: old, to: destination)
            throw error
        }
        try? fileManager.removeItem(at: old)
    }

    /// The prefix of every temporary name this writer uses for `url`.
    static func temporaryPrefix(of url: URL) -> String { ".\(url.lastPathComponent).tmp-" }

    private static func temporaryURL(beside url: URL) -> URL {
        url.deletingLastPathComponent()
            .appendingPathComponent("\(temporaryPrefix(of: url))\(getpid())-\(UUID().uuidString)")
    }

    /// Removes the temporary files and folders of earlier writes to `url` whose process no longer
    /// runs. Names from running processes (a concurrent write) are left alone.
    static func removeStaleTemporaries(of url: URL) {
        let folder = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(of: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = Int32(rest[..<dash]) else { continue }
            if ocm_process_is_alive(pid) == 0 {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    private static func describe(_ error: Error) -> String {
        if let error = error as? POSIXError { return error.description }
        return (error as NSError).localizedDescription
    }
}

/// A failed system call: the `errno` text.
private struct POSIXError: Error, CustomStringConvertible {
    let errno: Int32
    let path: String
    var description: String { String(cString: strerror(errno)) }
}
