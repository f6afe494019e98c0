/// One finished iteration of a Create ML-style trainer (an OpenCoreML addition): what the
/// trainers' `iterations` hold and their progress callbacks report.
///
/// - `MLImageClassifier`: one L-BFGS iteration of the logistic regression; the loss is the mean
///   cross-entropy plus the penalty, the accuracies count pictures.
/// - `MLActivityClassifier`: one pass over the training chunks; the loss is the mean weighted
///   cross-entropy of the pass's steps, the training accuracy counts the windows its own (dropout)
///   forward passes got right, as Turi Create reports it, and the validation accuracy counts
///   validation windows after the pass.
public struct TrainingIteration: Sendable, Equatable {
    /// 1 for the first.
    public var iteration: Int
    /// The training loss of the iteration.
    public var loss: Double
    /// The fraction of training examples classified correctly.
    public var trainingAccuracy: Double
    /// The fraction of validation examples classified correctly; nil without validation data.
    public var validationAccuracy: Double?
    /// Wall-clock seconds the iteration's training took (measuring the accuracies not included).
    public var seconds: Double

    public init(iteration: Int, loss: Double, trainingAccuracy: Double, validationAccuracy: Double?, seconds: Double) {
        self.iteration = iteration
        self.loss = loss
        self.trainingAccuracy = trainingAccuracy
        self.validationAccuracy = validationAccuracy
        self.seconds = seconds
    }
}
