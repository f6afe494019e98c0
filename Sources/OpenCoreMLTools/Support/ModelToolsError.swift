import CoreMLSpec

/// A model declaration or an edit that cannot be carried out.
///
/// `location` names the part (`layer 'conv1'`, `pipeline model 2 › input 'features'`,
/// `NeuralNetwork › loss 'lossLayer'`); `message` says what is wrong there.
public struct ModelToolsError: LocatedError, Equatable, Sendable {
    /// The part at fault, such as `layer 'conv1'`; empty when the message says it all.
    public var location: String
    /// What is wrong there.
    public var message: String

    /// An error at `location` saying `message`.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    /// `location: message`, or the message alone when there is no location.
    public var description: String {
        location.isEmpty ? message : "\(location): \(message)"
    }
}
