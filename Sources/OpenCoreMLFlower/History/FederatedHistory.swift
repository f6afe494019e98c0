import Foundation

/// The per-round record the Flower app in `Federated/flower-app` writes after every round (its
/// `history` run-config key): FedAvg's federated evaluation, each client's loss and accuracy
/// weighted by its number of examples.
///
/// ```json
/// {"rounds": [{"round": 1, "loss": 0.52, "accuracy": 0.81, "num-examples": 6000, "seconds": 4.2}, …]}
/// ```
public struct FederatedHistory: Sendable, Equatable, Codable {
    /// One round's evaluation.
    public struct Round: Sendable, Equatable, Codable {
        public var round: Int
        /// The example-weighted mean loss; nil when the clients sent none.
        public var loss: Double?
        /// The example-weighted mean accuracy (a fraction); nil when the clients sent none.
        public var accuracy: Double?
        /// The evaluated examples over all clients.
        public var examples: Int
        /// Seconds from sending the round's train instructions to aggregating its evaluations.
        public var seconds: Double?

        public init(round: Int, loss: Double?, accuracy: Double?, examples: Int, seconds: Double? = nil) {
            self.round = round
            self.loss = loss
            self.accuracy = accuracy
            self.examples = examples
            self.seconds = seconds
        }

        enum CodingKeys: String, CodingKey {
            case round, loss, accuracy, seconds
            case examples = "num-examples"
        }
    }

    public var rounds: [Round]

    public init(rounds: [Round]) { self.rounds = rounds }

    /// The history in a JSON file.
    /// - Throws: When the file cannot be read or is not such a history (the error names the file).
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw FlowerClientError.badInstruction("\(url.path): cannot be read (\(error.localizedDescription))")
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw FlowerClientError.badInstruction("\(url.path): not a federated history ({\"rounds\": [{\"round\": …, \"loss\": …, \"accuracy\": …, \"num-examples\": …}]}): \(error)")
        }
    }
}
