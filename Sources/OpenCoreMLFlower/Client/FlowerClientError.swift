import Foundation

/// What can go wrong between a ``FlowerClient`` and a SuperLink, each with a message that says what
/// and where.
public enum FlowerClientError: Error, CustomStringConvertible, Equatable {
    /// The SuperLink address is not `HOST:PORT`.
    case badAddress(String)
    /// No answer from the SuperLink (refused, reset, timed out); the client retries.
    case unreachable(String, String)
    /// The SuperLink answered a route with an HTTP error.
    case rejected(String, status: Int, String)
    /// The SuperLink sent something that is not what Flower's protocol says.
    case protocolViolation(String)
    /// An instruction this client cannot carry out (wrong arrays, bad config value, unknown type);
    /// the client replies with an error message and goes on.
    case badInstruction(String)
    /// The SuperLink stayed unreachable for longer than the client waits.
    case superlinkGone(address: String, seconds: Double, lastError: String)

    public var description: String {
        switch self {
        case .badAddress(let address):
            return "'\(address)' is not a SuperLink address; give HOST:PORT (the SuperLink's Fleet API, 127.0.0.1:8000 by default)"
        case .unreachable(let address, let reason):
            return "the SuperLink at \(address) does not answer: \(reason)"
        case .rejected(let route, let status, let text):
            return "the SuperLink refused \(route) (HTTP \(status)): \(text)"
        case .protocolViolation(let text):
            return "unexpected data from the SuperLink: \(text)"
        case .badInstruction(let text):
            return text
        case .superlinkGone(let address, let seconds, let lastError):
            return "gave up: the SuperLink at \(address) has not answered for \(Int(seconds.rounded())) s (last: \(lastError))"
        }
    }
}
