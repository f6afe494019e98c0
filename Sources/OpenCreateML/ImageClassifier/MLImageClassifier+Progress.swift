import Foundation

extension MLImageClassifier {
    /// One finished logistic-regression iteration: the loss is the mean cross-entropy plus the
    /// penalty; the accuracies count pictures.
    public typealias Iteration = TrainingIteration

    /// What a trainer reports while it works.
    public enum Progress: Sendable {
        /// One picture's features are ready: `completed` of `total` in this phase; `fromCache` when
        /// they were read from the cache rather than extracted.
        case featuresExtracted(file: URL, completed: Int, total: Int, fromCache: Bool)
        /// One logistic-regression iteration is done.
        case iterationFinished(Iteration)
    }
}
