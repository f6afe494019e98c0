/// What one iteration (boosting: one round of trees; forests: one tree) leaves: losses and metrics
/// on the training and validation rows, and the time it took.
///
/// Losses: squared error → the root mean squared error; logistic → log loss; softmax → the
/// multi-class log loss; forests' classes → the log loss of the averaged class shares (each
/// clipped to [1e-15, 1]). Metrics: the root mean squared error (regression) or the accuracy.
package struct TreeTrainingIteration: Sendable {
    package var iteration: Int
    package var trainingLoss: Double
    package var validationLoss: Double?
    package var trainingMetric: Double
    package var validationMetric: Double?
    package var seconds: Double

    package init(iteration: Int, trainingLoss: Double, validationLoss: Double?, trainingMetric: Double,
                 validationMetric: Double?, seconds: Double) {
        self.iteration = iteration
        self.trainingLoss = trainingLoss
        self.validationLoss = validationLoss
        self.trainingMetric = trainingMetric
        self.validationMetric = validationMetric
        self.seconds = seconds
    }
}
