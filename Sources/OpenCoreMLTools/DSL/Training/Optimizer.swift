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
    public let learningRateDefault: Double
    public let learningRateMin: Double
    public let learningRateMax: Double
    public let miniBatchSizeDefault: UInt
    public let miniBatchSizeRange: [UInt]
    public let momentumDefault: Double
    public let momentumMin: Double
    public let momentumMax: Double

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
    public let learningRateDefault: Double
    public let learningRateMin: Double
    public let learningRateMax: Double
    public let miniBatchSizeDefault: UInt
    public let miniBatchSizeRange: [UInt]
    public let beta1Default: Double
    public let beta1Max: Double
    public let beta2Default: Double
    public let beta2Max: Double
    public let epsDefault: Double
    public let epsMax: Double

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
