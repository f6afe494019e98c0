import CoreMLSpec

/// The optimizer of an updatable network, with the default and allowed values of each
/// hyperparameter (what `MLModelConfiguration.parameters` may override).
public protocol Optimizer {
    /// The optimizer as the format stores it; throws when a default lies outside its allowed values.
    func optimizerSpecification() throws -> CoreML_Specification_Optimizer
}

/// Stochastic gradient descent with momentum. `miniBatchSizeRange` is the set of allowed batch
/// sizes (SwiftCoreMLTools' name); the learning rate and momentum may range over
/// `[…Min, …Max]`.
public struct SGD: Optimizer, Equatable, Sendable {
    /// The default learning rate.
    public let learningRateDefault: Double
    /// The smallest learning rate an app may choose (0 by default).
    public let learningRateMin: Double
    /// The largest learning rate an app may choose (1 by default).
    public let learningRateMax: Double
    /// The default number of examples per step.
    public let miniBatchSizeDefault: UInt
    /// The mini-batch sizes an app may choose (by default only the default).
    public let miniBatchSizeRange: [UInt]
    /// The default momentum (0 by default: plain gradient descent).
    public let momentumDefault: Double
    /// The smallest momentum an app may choose (0 by default).
    public let momentumMin: Double
    /// The largest momentum an app may choose (1 by default).
    public let momentumMax: Double

    /// Stochastic gradient descent with these defaults and allowed values.
    ///
    /// Each default must lie within its allowed values, or building the model throws.
    public init(learningRateDefault: Double, learningRateMin: Double = 0, learningRateMax: Double = 1,
                miniBatchSizeDefault: UInt, miniBatchSizeRange: [UInt]? = nil,
                momentumDefault: Double = 0, momentumMin: Double = 0, momentumMax: Double = 1) {
        self.learningRateDefault = learningRateDefault
        self.learningRateMin = learningRateMin
        self.learningRateMax = learningRateMax
        self.miniBatchSizeDefault = miniBatchSizeDefault
        self.miniBatchSizeRange = miniBatchSizeRange ?? [miniBatchSizeDefault]
        self.momentumDefault = momentumDefault
        self.momentumMin = momentumMin
        self.momentumMax = momentumMax
    }

    /// The optimizer, with its `sgdOptimizer` set: learning rate and momentum as ranges, the mini-batch
    /// size as a set.
    public func optimizerSpecification() throws -> CoreML_Specification_Optimizer {
        var sgd = CoreML_Specification_SGDOptimizer()
        sgd.learningRate = try .parameter("learningRate", learningRateDefault, learningRateMin...learningRateMax)
        sgd.miniBatchSize = try .parameter("miniBatchSize", miniBatchSizeDefault, allowed: miniBatchSizeRange)
        sgd.momentum = try .parameter("momentum", momentumDefault, momentumMin...momentumMax)
        var optimizer = CoreML_Specification_Optimizer()
        optimizer.sgdOptimizer = sgd
        return optimizer
    }
}

/// Adam. `miniBatchSizeRange` is the set of allowed batch sizes; every other hyperparameter may
/// range over `[…Min, …Max]`.
public struct Adam: Optimizer, Equatable, Sendable {
    /// The default learning rate.
    public let learningRateDefault: Double
    /// The smallest learning rate an app may choose (0 by default).
    public let learningRateMin: Double
    /// The largest learning rate an app may choose (1 by default).
    public let learningRateMax: Double
    /// The default number of examples per step.
    public let miniBatchSizeDefault: UInt
    /// The mini-batch sizes an app may choose (by default only the default).
    public let miniBatchSizeRange: [UInt]
    /// The default decay rate of the gradients' moving average (0.9).
    public let beta1Default: Double
    /// The largest `beta1` an app may choose (1 by default; the smallest is 0).
    public let beta1Max: Double
    /// The default decay rate of the squared gradients' moving average (0.999).
    public let beta2Default: Double
    /// The largest `beta2` an app may choose (1 by default; the smallest is 0).
    public let beta2Max: Double
    /// The default epsilon added to the root of the squared-gradient average (1e-8).
    public let epsDefault: Double
    /// The largest epsilon an app may choose (1 by default; the smallest is 0).
    public let epsMax: Double

    /// Adam with these defaults and allowed values.
    ///
    /// Each default must lie within its allowed values, or building the model throws.
    public init(learningRateDefault: Double, learningRateMin: Double = 0, learningRateMax: Double = 1,
                miniBatchSizeDefault: UInt, miniBatchSizeRange: [UInt]? = nil,
                beta1Default: Double = 0.9, beta1Max: Double = 1, beta2Default: Double = 0.999, beta2Max: Double = 1,
                epsDefault: Double = 1e-8, epsMax: Double = 1) {
        self.learningRateDefault = learningRateDefault
        self.learningRateMin = learningRateMin
        self.learningRateMax = learningRateMax
        self.miniBatchSizeDefault = miniBatchSizeDefault
        self.miniBatchSizeRange = miniBatchSizeRange ?? [miniBatchSizeDefault]
        self.beta1Default = beta1Default
        self.beta1Max = beta1Max
        self.beta2Default = beta2Default
        self.beta2Max = beta2Max
        self.epsDefault = epsDefault
        self.epsMax = epsMax
    }

    /// The optimizer, with its `adamOptimizer` set: every hyperparameter as a range except the
    /// mini-batch size, a set.
    public func optimizerSpecification() throws -> CoreML_Specification_Optimizer {
        var adam = CoreML_Specification_AdamOptimizer()
        adam.learningRate = try .parameter("learningRate", learningRateDefault, learningRateMin...learningRateMax)
        adam.miniBatchSize = try .parameter("miniBatchSize", miniBatchSizeDefault, allowed: miniBatchSizeRange)
        adam.beta1 = try .parameter("beta1", beta1Default, 0...beta1Max)
        adam.beta2 = try .parameter("beta2", beta2Default, 0...beta2Max)
        adam.eps = try .parameter("eps", epsDefault, 0...epsMax)
        var optimizer = CoreML_Specification_Optimizer()
        optimizer.adamOptimizer = adam
        return optimizer
    }
}
