import CoreMLSpec

/// A one-directional LSTM over a sequence: inputs `[x]` or `[x, h₀, c₀]`, outputs `[y, h, c]`.
/// Gates use sigmoid, the cell and output tanh. Weights are Glorot-uniform, seeded by the layer's
/// name (`W` matrices `outputVectorSize × inputVectorSize`, `R` matrices `outputVectorSize ×
/// outputVectorSize`); biases are zero except the forget gate's, which is 1.
public struct UniDirectionalLstm: Layer {
    /// The layer's name, unique in the network.
    public let name: String
    /// The blobs the layer reads: the sequence, optionally followed by the initial hidden and cell states.
    public let input: [String]
    /// The blobs the layer writes: the output, the final hidden state and the final cell state.
    public let output: [String]
    /// The number of values per step of the input sequence.
    public let inputVectorSize: UInt
    /// The number of values per step of the output, and of the hidden and cell states.
    public let outputVectorSize: UInt
    /// Whether the output holds every step (true) or only the last one (false, the default).
    public let sequenceOutput: Bool
    /// Whether the sequence is read from its last step to its first (false by default).
    public let reverseInput: Bool
    /// Whether training may change the weights (false by default).
    public let updatable: Bool

    /// A one-directional LSTM layer.
    public init(name: String, input: [String], output: [String], inputVectorSize: UInt, outputVectorSize: UInt,
                sequenceOutput: Bool = false, reverseInput: Bool = false, updatable: Bool = false) {
        self.name = name
        self.input = input
        self.output = output
        self.inputVectorSize = inputVectorSize
        self.outputVectorSize = outputVectorSize
        self.sequenceOutput = sequenceOutput
        self.reverseInput = reverseInput
        self.updatable = updatable
    }

    /// The layer as the format stores it, with its `uniDirectionalLSTM` parameters and weights set.
    ///
    /// - Throws: A ``ModelToolsError`` when the inputs or outputs are not 1 or 3 and 3 blobs, or a size
    ///   is not positive.
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        guard input.count == 1 || input.count == 3, output.count == 3 else {
            throw ModelToolsError(location, "an LSTM takes 1 or 3 inputs (x, h, c) and gives 3 outputs (y, h, c); got \(input.count) and \(output.count)")
        }
        guard inputVectorSize > 0, outputVectorSize > 0 else {
            throw ModelToolsError(location, "inputVectorSize and outputVectorSize must be positive")
        }
        var layer = try baseSpecification(input: input, output: output, updatable: updatable)
        let (x, h) = (Int(inputVectorSize), Int(outputVectorSize))
        var params = CoreML_Specification_UniDirectionalLSTMLayerParams()
        params.inputVectorSize = UInt64(x)
        params.outputVectorSize = UInt64(h)
        params.reverseInput = reverseInput
        var sigmoid = CoreML_Specification_ActivationParams()
        sigmoid.sigmoid = CoreML_Specification_ActivationSigmoid()
        var tanh = CoreML_Specification_ActivationParams()
        tanh.tanh = CoreML_Specification_ActivationTanh()
        params.activations = [sigmoid, tanh, tanh]
        params.params.sequenceOutput = sequenceOutput
        params.params.hasBiasVectors_p = true
        layer.uniDirectionalLstm = params
        for blob in layer.weightBlobs {
            if blob.name.hasSuffix("Matrix") {
                // W matrices read the input, R matrices the previous output.
                let columns = blob.name.hasSuffix("WeightMatrix") ? x : h
                try setWeights(blob.name, of: &layer, to: nil, what: blob.name, fanIn: columns, fanOut: h, updatable: updatable)
            } else {
                let fill: Float = blob.name == "forgetGateBiasVector" ? 1 : 0
                try setWeights(blob.name, of: &layer, to: nil, what: blob.name, fill: fill, updatable: updatable)
            }
        }
        return layer
    }
}
