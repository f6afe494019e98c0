import CoreMLSpec

/// A model declaration or an edit that cannot be carried out.
///
/// `location` names the part (`layer 'conv1'`, `pipeline model 2 › input 'features'`,
/// `NeuralNetwork › loss 'lossLayer'`); `message` says what is wrong there.
public struct ModelToolsError: LocatedError, Equatable, Sendable {
    public var location: String
    public var message: String

    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String {
        location.isEmpty ? message : "\(location): \(message)"
    }
}
