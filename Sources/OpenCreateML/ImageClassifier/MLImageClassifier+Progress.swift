import Foundation

extension MLImageClassifier {
    /// One finished training iteration (logistic regression).
    public struct Iteration: Sendable, Equatable {
        /// 1 for the first.
        public var iteration: Int
        /// Mean cross-entropy plus penalty.
        public var loss: Double
        /// The fraction of training pictures classified correctly.
        public var trainingAccuracy: Double
        /// nil without validation data.
        public var validationAccuracy: Double?
    }

    /// What a trainer reports while it works.
    public enum Progress: Sendable {
        /// One picture's features are ready: `completed` of `total` in this phase; `fromCache` when
        /// they were read from the cache rather than extracted.
        case featuresExtracted(file: URL, completed: Int, total: Int, fromCache: Bool)
        /// One logistic-regression iteration is done.
        case iterationFinished(Iteration)
    }
}
