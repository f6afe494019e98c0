import Foundation

extension MLActivityClassifier {
    /// One finished pass over the training data (an OpenCoreML addition).
    public struct Iteration: Sendable, Equatable {
        /// 1 for the first.
        public var iteration: Int
        /// The mean weighted cross-entropy of the pass's steps.
        public var loss: Double
        /// The fraction of training windows the pass's own (dropout) forward passes classified
        /// correctly, as Turi Create reports it during training.
        public var trainingAccuracy: Double
        /// The fraction of validation windows classified correctly after the pass; nil without validation.
        public var validationAccuracy: Double?
    }

    /// What the trainer reports while it works (an OpenCoreML addition).
    public enum Progress: Sendable {
        /// A training step of `iteration` is done: `step` of `of`, with the mean loss of the pass so far.
        case stepFinished(iteration: Int, step: Int, of: Int, loss: Double)
        /// A pass over the training data is done.
        case iterationFinished(Iteration)
    }
}
