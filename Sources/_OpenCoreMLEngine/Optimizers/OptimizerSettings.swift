/// An optimizer and its hyperparameters, with PyTorch's update rules.
package enum OptimizerSettings: Sendable, Equatable {
    /// `v = momentum·v + g; w −= learningRate·v`.
    case sgd(learningRate: Double, momentum: Double)
    /// Adam with bias correction: `w −= learningRate·m̂ / (√v̂ + eps)`.
    case adam(learningRate: Double, beta1: Double, beta2: Double, eps: Double)

    package var learningRate: Double {
        switch self {
        case .sgd(let rate, _), .adam(let rate, _, _, _): return rate
        }
    }
}
