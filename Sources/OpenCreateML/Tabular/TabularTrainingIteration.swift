/// One finished iteration of a tabular trainer (an OpenCoreML addition): a boosting round, a tree
/// of a forest, or a solver iteration of a linear model. The trainers' `iterations` hold them and
/// their `progress` callbacks receive them; a callback returning false stops training, keeping the
/// model trained so far.
public struct TabularTrainingIteration: Sendable, Equatable {
    /// What ``trainingMetric`` and ``validationMetric`` measure.
    public enum Metric: String, Sendable, Equatable {
        /// The fraction of rows classified correctly (classifiers).
        case accuracy
        /// The root mean squared error (regressors).
        case rmse
    }

    /// 1 for the first.
    public var iteration: Int
    /// The loss on the training rows after the iteration. What it is depends on the trainer:
    ///
    /// - Boosted trees, random forests and decision trees: for a regressor the root mean squared
    ///   error (the same as ``trainingMetric``); for a classifier the mean log loss (cross-entropy)
    ///   of the predicted class probabilities (forests clip each probability to [1e-15, 1]).
    /// - ``MLLinearRegressor``: the solver's objective, ½ · mean squared error plus the penalties
    ///   (`l1Penalty · ‖w‖₁ + l2Penalty/2 · ‖w‖²`, on the standardized weights with `featureRescaling`).
    /// - ``MLLogisticRegressionClassifier``: the solver's objective, the mean cross-entropy plus
    ///   the penalties.
    public var trainingLoss: Double
    /// The loss on the validation rows; nil without validation data. For the tree trainers the
    /// same quantity as ``trainingLoss``; for the linear models *without* the penalties: ½ · mean
    /// squared error (``MLLinearRegressor``) or the mean cross-entropy
    /// (``MLLogisticRegressionClassifier``).
    public var validationLoss: Double?
    /// Accuracy or RMSE on the training rows (``metric`` says which).
    public var trainingMetric: Double
    /// Accuracy or RMSE on the validation rows; nil without validation data.
    public var validationMetric: Double?
    /// Which metric the two metric values are.
    public var metric: Metric
    /// Wall-clock seconds since training started.
    public var seconds: Double

    public init(iteration: Int, trainingLoss: Double, validationLoss: Double?, trainingMetric: Double, validationMetric: Double?,
                metric: Metric, seconds: Double) {
        self.iteration = iteration
        self.trainingLoss = trainingLoss
        self.validationLoss = validationLoss
        self.trainingMetric = trainingMetric
        self.validationMetric = validationMetric
        self.metric = metric
        self.seconds = seconds
    }
}
