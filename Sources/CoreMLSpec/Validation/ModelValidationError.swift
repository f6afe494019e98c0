/// A rule of the Core ML format that a model breaks.
///
/// `location` names the part (`pipeline model 2 › layer 'conv1'`, `input 'image'`,
/// `update parameters › optimizer`); `message` says what is wrong there.
public struct ModelValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var location: String
    public var message: String

    public init(location: String, message: String) {
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? "invalid model: \(message)" : "invalid model: \(location): \(message)"
    }
}

extension ModelValidationError: LocatedError {}
