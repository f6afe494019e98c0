/// What ``MLModel/updated(with:parameters:events:progress:)`` returns: the trained model and one
/// summary per epoch (an OpenCoreML addition).
public struct MLUpdateResult: @unchecked Sendable {
    /// One epoch of training.
    public struct Epoch: Sendable, Equatable, Codable {
        /// From 0, as Core ML's `.epochIndex`.
        public var index: Int
        /// The mean loss over the epoch's mini-batches; nil for models trained without a loss (k-NN).
        public var loss: Double?
        /// Classifiers: the fraction of the epoch's examples classified correctly.
        public var accuracy: Double?
        /// Elapsed seconds.
        public var seconds: Double
        /// Processor seconds of the whole process (every thread) during the epoch.
        public var processorSeconds: Double

        /// A summary of one epoch.
        public init(index: Int, loss: Double?, accuracy: Double?, seconds: Double, processorSeconds: Double) {
            self.index = index
            self.loss = loss
            self.accuracy = accuracy
            self.seconds = seconds
            self.processorSeconds = processorSeconds
        }
    }

    /// The trained copy of the model (the original is untouched).
    public let model: MLModel
    /// One entry per epoch that ran, in order (fewer than asked for when training was stopped).
    public let epochs: [Epoch]
}
