import Foundation

extension MLActivityClassifier {
    /// One finished pass over the training data (an OpenCoreML addition): the mean weighted
    /// cross-entropy of its steps; the fraction of training windows its own (dropout) forward passes
    /// classified correctly, as Turi Create reports it; the fraction of validation windows right after it.
    public typealias Iteration = TrainingIteration

    /// What the trainer reports while it works (an OpenCoreML addition).
    public enum Progress: Sendable {
        /// A training step of `iteration` is done: `step` of `of`, with the mean loss of the pass so far.
        case stepFinished(iteration: Int, step: Int, of: Int, loss: Double)
        /// A pass over the training data is done.
        case iterationFinished(Iteration)
    }
}
