/// The loss functions an updatable network can train with.
public enum LossFunction: String, Sendable, CaseIterable {
    /// Categorical cross-entropy on a softmax output, against a class index (or a classifier's label).
    case crossEntropy = "cross-entropy"
    /// Mean squared error against a target of the output's shape.
    case meanSquaredError = "mse"
}
