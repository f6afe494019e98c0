/// A problem found while compiling a model into a network or feeding it data.
package struct EngineError: Error, CustomStringConvertible, Sendable {
    /// Where: a layer, blob, feature or loss name.
    package var location: String
    package var message: String

    package init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    package var description: String { location.isEmpty ? message : "\(location): \(message)" }
}
