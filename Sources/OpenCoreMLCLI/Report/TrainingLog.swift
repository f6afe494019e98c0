import Foundation

/// A training run's numbers, one JSON object per epoch and line (JSON Lines), written as each epoch
/// ends so that an interrupted run keeps its log:
/// `{"epoch":1,"loss":0.5,"accuracy":0.8,"seconds":1.2}`. `accuracy` is left out when unknown,
/// a non-finite loss is written as `null`, seconds are rounded to milliseconds.
final class TrainingLog {
    let path: String
    private let handle: FileHandle

    /// Creates the file at `path`, or empties it if it exists.
    init(path: String) throws {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: Data()),
              let handle = FileHandle(forWritingAtPath: path)
        else {
            throw CLIError.file(path, "cannot create the training log")
        }
        self.handle = handle
    }

    deinit { try? handle.close() }

    /// Appends one epoch's line.
    func append(epoch: Int, loss: Double, accuracy: Double? = nil, seconds: Double) throws {
        try append(line: Self.line(epoch: epoch, loss: loss, accuracy: accuracy, seconds: seconds))
    }

    /// A value of a line that is not an epoch's (`append(_:)`).
    enum Value {
        case number(Double)
        case text(String)
    }

    /// Appends one line holding `fields` in their order; a nil value is left out, a non-finite
    /// number is written as `null`.
    func append(_ fields: [(String, Value?)]) throws {
        let members = fields.compactMap { key, value -> String? in
            guard let value else { return nil }
            switch value {
            case .number(let number): return "\(Self.quoted(key)):\(Self.json(number))"
            case .text(let text): return "\(Self.quoted(key)):\(Self.quoted(text))"
            }
        }
        try append(line: "{" + members.joined(separator: ",") + "}")
    }

    private func append(line: String) throws {
        do {
            try handle.write(contentsOf: Data((line + "\n").utf8))
        } catch {
            throw CLIError.file(path, "cannot write the training log (\(error.localizedDescription))")
        }
    }

    /// One epoch's JSON object, keys in a fixed order.
    static func line(epoch: Int, loss: Double, accuracy: Double?, seconds: Double) -> String {
        var fields = ["\"epoch\":\(epoch)", "\"loss\":\(json(loss))"]
        if let accuracy { fields.append("\"accuracy\":\(json(accuracy))") }
        fields.append("\"seconds\":\(json((seconds * 1000).rounded() / 1000))")
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A JSON number, or `null` for NaN and infinities (which JSON cannot hold).
    private static func json(_ value: Double) -> String {
        value.isFinite ? formatted(value) : "null"
    }

    /// A JSON string.
    private static func quoted(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
