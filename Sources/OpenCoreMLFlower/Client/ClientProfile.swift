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
final class ClientProfile: @unchecked Sendable {
    private let handle: FileHandle

    /// Appends to the file at `path` (made when missing).
    init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw FlowerClientError.badInstruction("cannot create the profile file \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw FlowerClientError.badInstruction("cannot write the profile file \(path)")
        }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// Writes one event at `time` with `fields` (numbers or strings).
    func record(_ event: String, at time: Date = Date(), _ fields: [(String, PythonJSON.Value)] = []) {
        let seconds = String(format: "%.6f", time.timeIntervalSince1970)
        let rest = fields.map { ", " + PythonJSON.quoted($0.0) + ": " + PythonJSON.dumps($0.1) }.joined()
        handle.write(Data("{\"t\": \(seconds), \"event\": \(PythonJSON.quoted(event))\(rest)}\n".utf8))
    }
}
