import Foundation

/// The timestamped phases of a client's exchanges, one JSON object a line, for lining up with the
/// ServerApp's profile (`Federated/flower-app`, run config `profile`):
/// `{"t": seconds since 1970, "event": "…", "type": "train", "round": "3", …}`.
///
/// Events of one instruction, in order: `poll` (the PullMessages that found it was sent),
/// `message` (it arrived), `objects` (its objects pulled; `fetched` and `cached` counts),
/// `confirmed`, `inflated` (the records rebuilt), `applied` (its arrays set into the model, or
/// `reused` when they are the arrays the model already holds), `done` (training or evaluation
/// finished), `packed` (the reply deflated into objects), `pushed` (the reply and its objects
/// sent; `objects` pushed).
///
/// Profiling is a side channel: when a write fails (a full disk, a closed file) the profile stops
/// after that event and the client goes on; only opening the file at start-up is an error
/// (``ClientProfileError``, a local configuration problem).
final class ClientProfile: @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()
    private var failed = false

    /// Appends to the file at `path` (made when missing).
    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ClientProfileError(path: path, reason: "cannot create it")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw ClientProfileError(path: path, reason: "cannot open it for writing")
        }
        do {
            try handle.seekToEnd()
        } catch {
            try? handle.close()
            throw ClientProfileError(path: path, reason: "cannot seek to its end: \(error)")
        }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// Writes one event at `time` with `fields` (numbers or strings); does nothing once a write failed.
    func record(_ event: String, at time: Date = Date(), _ fields: [(String, PythonJSON.Value)] = []) {
        let seconds = String(format: "%.6f", time.timeIntervalSince1970)
        let rest = fields.map { ", " + PythonJSON.quoted($0.0) + ": " + PythonJSON.dumps($0.1) }.joined()
        let line = Data("{\"t\": \(seconds), \"event\": \(PythonJSON.quoted(event))\(rest)}\n".utf8)
        lock.lock()
        defer { lock.unlock() }
        guard !failed else { return }
        // `write(contentsOf:)` throws where the legacy `write(_:)` traps (a full disk would end the client).
        do { try handle.write(contentsOf: line) } catch { failed = true }
    }
}

/// The client's profile file (``FlowerClient/Configuration/profilePath``) cannot be opened: a local
/// configuration error, found before the client joins the federation.
public struct ClientProfileError: Error, CustomStringConvertible, Equatable {
    /// The profile file's path.
    public var path: String
    /// What went wrong with it.
    public var reason: String

    public var description: String { "the client's profile file \(path): \(reason)" }
}
