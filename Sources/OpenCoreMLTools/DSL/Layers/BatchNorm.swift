import CoreMLSpec

/// Batch normalization per channel: `gamma · (x − mean) / √(variance + epsilon) + beta`. Defaults:
/// γ = 1, β = 0, mean 0, variance 1 (an identity until trained or given statistics). When updatable,
/// every blob is marked so, as Core ML requires; training changes γ and β only.
public struct BatchNorm: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let channels: UInt
    public let gamma: [Float]?
    public let beta: [Float]?
    public let mean: [Float]?
    public let variance: [Float]?
    public let epsilon: Float
    public let computeMeanVar: Bool
    public let instanceNormalization: Bool
    public let updatable: Bool

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
