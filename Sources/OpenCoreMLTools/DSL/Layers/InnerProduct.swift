import CoreMLSpec

/// A dense layer: `output = weight · input + bias`, with `weight` stored row by row
/// (`outputChannels` rows of `inputChannels` values). Without weights, Glorot-uniform values seeded
/// by the layer's name; without a bias, zeros.
public struct InnerProduct: Layer {
    public let name: String
    public let input: [String]
    public let output: [String]
    public let weight: [Float]?
    public let bias: [Float]?
    public let inputChannels: UInt
    public let outputChannels: UInt
    public let updatable: Bool

    public init(name: String, input: [String], output: [String], weight: [Float]? = nil, bias: [Float]? = nil,
                inputChannels: UInt, outputChannels: UInt, updatable: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.weight = weight
        self.bias = bias
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.updatable = updatable
    }

    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard inputChannels > 0, outputChannels > 0 else {
            throw ModelToolsError(location, "inputChannels and outputChannels must be positive (got \(inputChannels), \(outputChannels))")
        }
        var layer = try baseSpecification(input: input, output: output, updatable: updatable)
        let (inputs, outputs) = (Int(inputChannels), Int(outputChannels))
        var params = CoreML_Specification_InnerProductLayerParams()
        params.inputChannels = UInt64(inputs)
        params.outputChannels = UInt64(outputs)
        params.hasBias_p = true
        layer.innerProduct = params
        try setWeights("weights", of: &layer, to: weight, what: "weight", fanIn: inputs, fanOut: outputs, updatable: updatable)
        try setWeights("bias", of: &layer, to: bias, what: "bias", fill: 0, updatable: updatable)
        return layer
    }
}
