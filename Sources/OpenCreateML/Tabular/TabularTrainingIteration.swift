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
    /// The training objective after the iteration (log loss for classifiers, mean squared error
    /// for regressors, plus any penalty).
    public var trainingLoss: Double
    /// The same objective on the validation rows; nil without validation data.
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
