import CoreMLSpec

/// Batch normalization per channel: `gamma · (x − mean) / √(variance + epsilon) + beta`. Defaults:
/// γ = 1, β = 0, mean 0, variance 1 (an identity until trained or given statistics). When updatable,
/// every blob is marked so, as Core ML requires; training changes γ and β only.
public struct BatchNorm: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob to normalize.
    public let input: [String]
    /// The blob the result is written to.
    public let output: [String]
    /// The number of channels; each has its own γ, β, mean and variance.
    public let channels: UInt
    /// The scale per channel; nil for ones.
    public let gamma: [Float]?
    /// The offset per channel; nil for zeros.
    public let beta: [Float]?
    /// The mean per channel; nil for zeros. Not written when ``computeMeanVar`` is true.
    public let mean: [Float]?
    /// The variance per channel; nil for ones. Not written when ``computeMeanVar`` is true.
    public let variance: [Float]?
    /// Added to the variance before the square root (1e-5 by default; must be positive).
    public let epsilon: Float
    /// Whether the mean and variance are computed from each input instead of stored (false by default).
    public let computeMeanVar: Bool
    /// With ``computeMeanVar``, whether each example is normalized on its own (false by default).
    public let instanceNormalization: Bool
    /// Whether training may change the layer (false by default).
    public let updatable: Bool

    /// A batch-normalization layer; every parameter but the blobs and `channels` has a default.
    public init(name: String, input: [String], output: [String], channels: UInt, gamma: [Float]? = nil, beta: [Float]? = nil,
                mean: [Float]? = nil, variance: [Float]? = nil, epsilon: Float = 1e-5, computeMeanVar: Bool = false,
                instanceNormalization: Bool = false, updatable: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.channels = channels
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.epsilon = epsilon
        self.computeMeanVar = computeMeanVar
        self.instanceNormalization = instanceNormalization
        self.updatable = updatable
    }

    /// The layer as the format stores it, with its `batchnorm` parameters set.
    ///
    /// - Throws: A ``ModelToolsError`` when `channels` or `epsilon` is not positive or a parameter array
    ///   does not hold one value per channel.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard channels > 0 else { throw ModelToolsError(location, "channels must be positive") }
        guard epsilon > 0 else { throw ModelToolsError(location, "epsilon must be positive, got \(epsilon)") }
        var layer = try baseSpecification(input: input, output: output, updatable: updatable)
        let count = Int(channels)
        var params = CoreML_Specification_BatchnormLayerParams()
        params.channels = UInt64(count)
        params.epsilon = epsilon
        params.computeMeanVar = computeMeanVar
        params.instanceNormalization = instanceNormalization
        layer.batchnorm = params
        try setWeights("gamma", of: &layer, to: gamma, what: "gamma", fill: 1, updatable: updatable)
        try setWeights("beta", of: &layer, to: beta, what: "beta", fill: 0, updatable: updatable)
        if !computeMeanVar {
            try setWeights("mean", of: &layer, to: mean, what: "mean", fill: 0, updatable: updatable)
            try setWeights("variance", of: &layer, to: variance, what: "variance", fill: 1, updatable: updatable)
        }
        return layer
    }
}
