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
        var w = CoreML_Specification_LSTMWeightParams()
        func matrix(_ gate: String, columns: Int) throws -> CoreML_Specification_WeightParams {
            try weights(nil, expected: h * columns, fanIn: columns, fanOut: h, what: gate, updatable: updatable)
        }
        w.inputGateWeightMatrix = try matrix("inputGateWeightMatrix", columns: x)
        w.forgetGateWeightMatrix = try matrix("forgetGateWeightMatrix", columns: x)
        w.blockInputWeightMatrix = try matrix("blockInputWeightMatrix", columns: x)
        w.outputGateWeightMatrix = try matrix("outputGateWeightMatrix", columns: x)
        w.inputGateRecursionMatrix = try matrix("inputGateRecursionMatrix", columns: h)
        w.forgetGateRecursionMatrix = try matrix("forgetGateRecursionMatrix", columns: h)
        w.blockInputRecursionMatrix = try matrix("blockInputRecursionMatrix", columns: h)
        w.outputGateRecursionMatrix = try matrix("outputGateRecursionMatrix", columns: h)
        w.inputGateBiasVector = try weights(nil, count: h, fill: 0, what: "inputGateBiasVector", updatable: updatable)
        w.forgetGateBiasVector = try weights(nil, count: h, fill: 1, what: "forgetGateBiasVector", updatable: updatable)
        w.blockInputBiasVector = try weights(nil, count: h, fill: 0, what: "blockInputBiasVector", updatable: updatable)
        w.outputGateBiasVector = try weights(nil, count: h, fill: 0, what: "outputGateBiasVector", updatable: updatable)
        params.weightParams = w
        layer.uniDirectionalLstm = params
        return layer
    }
}
