/// A problem found while compiling a model into a network or feeding it data.
public struct EngineError: Error, CustomStringConvertible, Sendable {
    /// Where: a layer, blob, feature or loss name.
    public var location: String
    public var message: String

    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
