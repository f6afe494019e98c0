import Foundation

nonisolated(unsafe) private var scratchPath = ""

/// A scratch folder for the files a target writes, in memory when /dev/shm exists: one per
/// process (`opencoreml-TARGET-PID`), removed when the process exits. `Fuzz/run.sh` removes those
/// of processes that died on a finding. Call once, at start.
public func makeScratchFolder(target: String) -> URL {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("opencoreml-\(target)-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    scratchPath = url.path
    atexit { try? FileManager.default.removeItem(atPath: scratchPath) }
    return url
}
