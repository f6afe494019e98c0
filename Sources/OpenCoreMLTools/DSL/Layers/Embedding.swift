import CoreMLSpec

/// A lookup table from indices `0..<inputDim` to vectors of `outputChannels` values. `weight` is
/// `[outputChannels, inputDim]`; without it, Glorot-uniform values seeded by the layer's name.
public struct Embedding: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let weight: [Float]?
    public let bias: [Float]?
    public let inputDim: UInt
    public let outputChannels: UInt
    public let updatable: Bool

    public init(name: String, input: [String], output: [String], weight: [Float]? = nil, bias: [Float]? = nil,
                inputDim: UInt, outputChannels: UInt, updatable: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.weight = weight
        self.bias = bias
        self.inputDim = inputDim
        self.outputChannels = outputChannels
        self.updatable = updatable
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard inputDim > 0, outputChannels > 0 else {
            throw ModelToolsError(location, "inputDim and outputChannels must be positive (got \(inputDim), \(outputChannels))")
        }
        var layer = try baseSpecification(input: input, output: output, updatable: updatable)
        let (rows, columns) = (Int(outputChannels), Int(inputDim))
        var params = CoreML_Specification_EmbeddingLayerParams()
        params.inputDim = UInt64(columns)
        params.outputChannels = UInt64(rows)
        params.hasBias_p = bias != nil
        layer.embedding = params
        try setWeights("weights", of: &layer, to: weight, what: "weight", fanIn: columns, fanOut: rows, updatable: updatable)
        if let bias { try setWeights("bias", of: &layer, to: bias, what: "bias", fill: 0, updatable: updatable) }
        return layer
    }
}
