import CoreMLSpec

/// A dense layer: `output = weight · input + bias`, with `weight` stored row by row
/// (`outputChannels` rows of `inputChannels` values). Without weights, Glorot-uniform values seeded
/// by the layer's name; without a bias, zeros.
public struct InnerProduct: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob the layer reads, `inputChannels` values per example.
    public let input: [String]
    /// The blob the layer writes, `outputChannels` values per example.
    public let output: [String]
    /// The weight matrix, `outputChannels` rows of `inputChannels` values; nil for Glorot-uniform values
    /// seeded by the layer's name.
    public let weight: [Float]?
    /// One bias per output; nil for zeros.
    public let bias: [Float]?
    /// The number of values the layer reads per example.
    public let inputChannels: UInt
    /// The number of values the layer writes per example.
    public let outputChannels: UInt
    /// Whether training may change the weights and bias (false by default).
    public let updatable: Bool

    /// A dense layer.
    ///
    /// ```swift
    /// InnerProduct(name: "dense1", input: ["flatten_out"], output: ["dense1_out"],
    ///              inputChannels: 1152, outputChannels: 500, updatable: true)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The layer's name, unique in the network.
    ///   - input: The blob the layer reads.
    ///   - output: The blob the layer writes.
    ///   - weight: The weight matrix, row by row; nil for Glorot-uniform values.
    ///   - bias: One bias per output; nil for zeros.
    ///   - inputChannels: The number of values read per example.
    ///   - outputChannels: The number of values written per example.
    ///   - updatable: Whether training may change the weights and bias.
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

    /// The layer as the format stores it, with its `innerProduct` parameters, weights and bias set.
    ///
    /// - Throws: A ``ModelToolsError`` when a channel count is not positive or the weights or bias have
    ///   the wrong count.
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
