import CoreMLSpec

/// A lookup table from indices `0..<inputDim` to vectors of `outputChannels` values. `weight` is
/// `[outputChannels, inputDim]`; without it, Glorot-uniform values seeded by the layer's name.
public struct Embedding: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blob of indices the layer reads.
    public let input: [String]
    /// The blob of vectors the layer writes.
    public let output: [String]
    /// The table, `outputChannels × inputDim` values; nil for Glorot-uniform values seeded by the
    /// layer's name.
    public let weight: [Float]?
    /// A bias added to every vector, `outputChannels` values; nil for none.
    public let bias: [Float]?
    /// The number of indices: the size of the vocabulary.
    public let inputDim: UInt
    /// The length of each vector.
    public let outputChannels: UInt
    /// Whether training may change the table (false by default).
    public let updatable: Bool

    /// An embedding layer.
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

    /// The layer as the format stores it, with its `embedding` parameters set.
    ///
    /// - Throws: A ``ModelToolsError`` when a size is not positive or the table or bias has the wrong
    ///   count.
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
