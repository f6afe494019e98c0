import CoreMLSpec

/// The recurrent layers as MIL's `lstm`, `gru` and `rnn`, over the sequence axis of their input.
extension LayerLowering {
    /// Core ML's LSTM over the sequence axis of `x` (`[Seq, …, I, 1, 1]`): outputs `y` (every step,
    /// or the last), the final hidden and cell states.
    mutating func lstm(_ p: CoreML_Specification_UniDirectionalLSTMLayerParams, _ inputs: [Value]) throws -> [Value] {
        let i = try declared(p.inputVectorSize, "inputVectorSize"), h = try declared(p.outputVectorSize, "outputVectorSize")
        if p.params.coupledInputAndForgetGate { throw LayerSpecificationError("coupledInputAndForgetGate is not supported in this network") }
        var arguments = [
            "direction": emitter.string(p.reverseInput ? "reverse" : "forward"), "output_sequence": emitter.bool(p.params.sequenceOutput),
            "clip": emitter.float(p.params.cellClipThreshold == 0 ? 50 : p.params.cellClipThreshold),
        ]
        try lstmWeights(p.weightParams, p.params, inputSize: i, hiddenSize: h, suffix: "", into: &arguments)
        let names = ["recurrent_activation", "cell_activation", "activation"], defaults = ["sigmoid", "tanh", "tanh"]
        for (index, name) in names.enumerated() {
            arguments[name] = emitter.string(index < p.activations.count ? try Self.recurrentActivation(p.activations[index]) : defaults[index])
        }
        return try recurrent("lstm", arguments, inputs, inputSize: i, hiddenSize: h, states: 2, sequenceOutput: p.params.sequenceOutput)
    }

    /// A MIL recurrent operation over `inputs[0]` (`[Seq, …, I, 1, 1]`, or `[I, 1, 1]` for one step),
    /// its initial states from the other inputs: `y` `[Seq or 1, …, H, 1, 1]` and the final states
    /// `[H, 1, 1]` (rank kept under the exact mapping).
    mutating func recurrent(_ type: String, _ arguments: [String: String], _ inputs: [Value], inputSize: Int, hiddenSize h: Int,
                            states: Int, sequenceOutput: Bool, outputSize: Int? = nil) throws -> [Value] {
        let x = inputs[0]
        var arguments = arguments
        // Under the exact mapping a rank-5 input is [Seq, Batch, C, 1, 1]: its batch is MIL's.
        let batched = x.rank == 5
        arguments["x"] = batched ? reshape(x.name, keeping: 2, then: [inputSize]) : reshape(x.name, keeping: 0, then: [-1, 1, inputSize])
        let stateNames = ["initial_h", "initial_c"]
        for index in 0..<states {
            arguments[stateNames[index]] = inputs.count > index + 1
                ? reshape(inputs[index + 1].name, keeping: 0, then: [-1, h])
                : zeroState(x, width: h)
        }
        let outputs = (0...states).map { _ in emitter.name(type) }
        emitter.operation(type, arguments.mapValues { [$0] }, outputs: outputs)
        let width = outputSize ?? h
        if batched {
            // y [Seq, Batch, H] → [Seq, Batch, H, 1, 1]; states [Batch, H] → [1, Batch, H, 1, 1].
            var result = [Value(name: reshape(outputs[0], keeping: 2, then: [width, 1, 1]), rank: 5)]
            for state in outputs.dropFirst() {
                result.append(Value(name: expandDims(reshape(state, keeping: 1, then: [width, 1, 1]), [0]), rank: 5))
            }
            return result
        }
        // Otherwise [Seq, C, 1, 1] or [C, 1, 1].
        let sequenceShape: [Int] = x.rank >= 5 ? [-1] + [Int](repeating: 1, count: x.rank - 4) + [width, 1, 1] : (x.rank == 4 ? [-1, width, 1, 1] : [width, 1, 1])
        let stateShape: [Int] = x.rank >= 5 ? [Int](repeating: 1, count: x.rank - 3) + [width, 1, 1] : [width, 1, 1]
        let y = sequenceOutput || x.rank >= 4 ? reshape(outputs[0], keeping: 0, then: sequenceShape) : reshape(outputs[0], keeping: 0, then: [width, 1, 1])
        var result = [Value(name: y, rank: sequenceOutput || x.rank >= 4 ? sequenceShape.count : 3)]
        for state in outputs.dropFirst() { result.append(Value(name: reshape(state, keeping: 0, then: stateShape), rank: stateShape.count)) }
        return result
    }

    /// Zeros for a recurrent layer's initial state of `width` values per sequence of `x`: `[Batch,
    /// width]` (the batch of a rank-5 `[Seq, Batch, C, 1, 1]` input, else 1).
    mutating func zeroState(_ x: Value, width: Int) -> String {
        let batch = x.rank == 5 ? dimensions(of: x.name, from: 1, to: 2) : emitter.ints([1])
        return op("fill", ["shape": concat([batch, emitter.ints([width])], axis: 0), "value": emitter.float(0)])
    }

    /// The MIL name of a recurrent layer's activation.
    static func recurrentActivation(_ p: CoreML_Specification_ActivationParams) throws -> String {
        switch p.nonlinearityType {
        case .sigmoid?: return "sigmoid"
        case .tanh?: return "tanh"
        case .reLu?: return "relu"
        case .linear?: return "linear"
        case .scaledTanh?: return "scaled_tanh"
        case .sigmoidHard?: return "sigmoid_hard"
        default: throw LayerSpecificationError("a recurrent layer's activation must be sigmoid, tanh, relu, linear, scaledTanh or sigmoidHard")
        }
    }

    /// Core ML's GRU: MIL stacks the reset, output and update gates (`[r, o, z]`).
    mutating func gru(_ p: CoreML_Specification_GRULayerParams, _ inputs: [Value]) throws -> [Value] {
        let i = try declared(p.inputVectorSize, "inputVectorSize"), h = try declared(p.outputVectorSize, "outputVectorSize")
        let ih = try [(p.resetGateWeightMatrix, "resetGateWeightMatrix"), (p.outputGateWeightMatrix, "outputGateWeightMatrix"),
                      (p.updateGateWeightMatrix, "updateGateWeightMatrix")].flatMap { try weights($0.0, $0.1, count: h * i) }
        let hh = try [(p.resetGateRecursionMatrix, "resetGateRecursionMatrix"), (p.outputGateRecursionMatrix, "outputGateRecursionMatrix"),
                      (p.updateGateRecursionMatrix, "updateGateRecursionMatrix")].flatMap { try weights($0.0, $0.1, count: h * h) }
        var bias = [Float](repeating: 0, count: 3 * h)
        if p.hasBiasVectors_p {
            bias = try [(p.resetGateBiasVector, "resetGateBiasVector"), (p.outputGateBiasVector, "outputGateBiasVector"),
                        (p.updateGateBiasVector, "updateGateBiasVector")].flatMap { try weights($0.0, $0.1, count: h) }
        }
        var arguments = [
            "weight_ih": emitter.floats(ih, shape: [3 * h, i]), "weight_hh": emitter.floats(hh, shape: [3 * h, h]),
            "bias": emitter.floats(bias, shape: [3 * h]), "direction": emitter.string(p.reverseInput ? "reverse" : "forward"),
            "output_sequence": emitter.bool(p.sequenceOutput),
        ]
        let names = ["recurrent_activation", "activation"], defaults = ["sigmoid", "tanh"]
        for (index, name) in names.enumerated() {
            arguments[name] = emitter.string(index < p.activations.count ? try Self.recurrentActivation(p.activations[index]) : defaults[index])
        }
        return try recurrent("gru", arguments, inputs, inputSize: i, hiddenSize: h, states: 1, sequenceOutput: p.sequenceOutput)
    }

    mutating func simpleRecurrent(_ p: CoreML_Specification_SimpleRecurrentLayerParams, _ inputs: [Value]) throws -> [Value] {
        let i = try declared(p.inputVectorSize, "inputVectorSize"), h = try declared(p.outputVectorSize, "outputVectorSize")
        let bias = p.hasBiasVector_p ? try weights(p.biasVector, "biasVector", count: h) : [Float](repeating: 0, count: h)
        let arguments = [
            "weight_ih": emitter.floats(try weights(p.weightMatrix, "weightMatrix", count: h * i), shape: [h, i]),
            "weight_hh": emitter.floats(try weights(p.recursionMatrix, "recursionMatrix", count: h * h), shape: [h, h]),
            "bias": emitter.floats(bias, shape: [h]), "direction": emitter.string(p.reverseInput ? "reverse" : "forward"),
            "output_sequence": emitter.bool(p.sequenceOutput),
            "activation": emitter.string(p.hasActivation ? try Self.recurrentActivation(p.activation) : "tanh"),
        ]
        return try recurrent("rnn", arguments, inputs, inputSize: i, hiddenSize: h, states: 1, sequenceOutput: p.sequenceOutput)
    }

    /// LSTM weights in MIL's gate order (input, forget, output, cell) with the bias adjustments of
    /// `params`, as `weight_ih`, `weight_hh`, `bias` and `peephole` (+ `suffix`).
    mutating func lstmWeights(_ w: CoreML_Specification_LSTMWeightParams, _ params: CoreML_Specification_LSTMParams, inputSize i: Int, hiddenSize h: Int,
                              suffix: String, into arguments: inout [String: String]) throws {
        func stacked(_ parts: [(CoreML_Specification_WeightParams, String)], count: Int) throws -> [Float] {
            try parts.flatMap { try weights($0.0, $0.1, count: count) }
        }
        let ih = try stacked([(w.inputGateWeightMatrix, "inputGateWeightMatrix"), (w.forgetGateWeightMatrix, "forgetGateWeightMatrix"),
                              (w.outputGateWeightMatrix, "outputGateWeightMatrix"), (w.blockInputWeightMatrix, "blockInputWeightMatrix")], count: h * i)
        let hh = try stacked([(w.inputGateRecursionMatrix, "inputGateRecursionMatrix"), (w.forgetGateRecursionMatrix, "forgetGateRecursionMatrix"),
                              (w.outputGateRecursionMatrix, "outputGateRecursionMatrix"), (w.blockInputRecursionMatrix, "blockInputRecursionMatrix")], count: h * h)
        var bias = [Float](repeating: 0, count: 4 * h)
        if params.hasBiasVectors_p {
            bias = try stacked([(w.inputGateBiasVector, "inputGateBiasVector"), (w.forgetGateBiasVector, "forgetGateBiasVector"),
                                (w.outputGateBiasVector, "outputGateBiasVector"), (w.blockInputBiasVector, "blockInputBiasVector")], count: h)
        }
        if params.forgetBias { for k in h..<(2 * h) { bias[k] += 1 } }
        arguments["weight_ih" + suffix] = emitter.floats(ih, shape: [4 * h, i])
        arguments["weight_hh" + suffix] = emitter.floats(hh, shape: [4 * h, h])
        arguments["bias" + suffix] = emitter.floats(bias, shape: [4 * h])
        if params.hasPeepholeVectors_p {
            arguments["peephole" + suffix] = emitter.floats(
                try stacked([(w.inputGatePeepholeVector, "inputGatePeepholeVector"), (w.forgetGatePeepholeVector, "forgetGatePeepholeVector"),
                             (w.outputGatePeepholeVector, "outputGatePeepholeVector")], count: h), shape: [3 * h])
        }
    }

    /// Both directions over the sequence: `y` holds the forward and backward outputs side by side
    /// (`2H` values per step), then the forward direction's final h and c, then the backward's.
    mutating func biDirectionalLSTM(_ p: CoreML_Specification_BiDirectionalLSTMLayerParams, _ inputs: [Value]) throws -> [Value] {
        let i = try declared(p.inputVectorSize, "inputVectorSize"), h = try declared(p.outputVectorSize, "outputVectorSize")
        if p.params.coupledInputAndForgetGate { throw LayerSpecificationError("coupledInputAndForgetGate is not supported in this network") }
        guard p.weightParams.count == 2 else { throw LayerSpecificationError("weightParams holds \(p.weightParams.count) directions, not 2") }
        var arguments = [
            "direction": emitter.string("bidirectional"), "output_sequence": emitter.bool(p.params.sequenceOutput),
            "clip": emitter.float(p.params.cellClipThreshold == 0 ? 50 : p.params.cellClipThreshold),
        ]
        try lstmWeights(p.weightParams[0], p.params, inputSize: i, hiddenSize: h, suffix: "", into: &arguments)
        try lstmWeights(p.weightParams[1], p.params, inputSize: i, hiddenSize: h, suffix: "_back", into: &arguments)
        let names = ["recurrent_activation", "cell_activation", "activation"], defaults = ["sigmoid", "tanh", "tanh"]
        for (index, name) in names.enumerated() {
            arguments[name] = emitter.string(index < p.activationsForwardLstm.count ? try Self.recurrentActivation(p.activationsForwardLstm[index]) : defaults[index])
        }
        // Initial states: inputs 1–4 are h and c of the forward direction, then of the backward one.
        var states = [inputs[0]]
        for (forward, backward) in [(1, 3), (2, 4)] {
            let parts = [forward, backward].map { index in
                inputs.count > index ? reshape(inputs[index].name, keeping: 0, then: [-1, h]) : zeroState(inputs[0], width: h)
            }
            states.append(Value(name: concat(parts, axis: -1), rank: 2))
        }
        let results = try recurrent("lstm", arguments, states, inputSize: i, hiddenSize: 2 * h, states: 2, sequenceOutput: p.params.sequenceOutput)
        var outputs = [results[0]]
        for state in results.dropFirst() {
            for half in 0..<2 {
                let part = op("slice_by_index", ["x": state.name, "begin": emitter.ints([0] * (state.rank - 3) + [half * h, 0, 0]),
                                                 "end": emitter.ints([0] * (state.rank - 3) + [(half + 1) * h, 0, 0]),
                                                 "begin_mask": emitter.ints([1] * (state.rank - 3) + [0, 1, 1]),
                                                 "end_mask": emitter.ints([1] * (state.rank - 3) + [0, 1, 1])])
                outputs.append(Value(name: part, rank: state.rank))
            }
        }
        // [y, h_fwd, h_bwd, c_fwd, c_bwd] in MIL's order; Core ML lists h and c of one direction first.
        return [outputs[0], outputs[1], outputs[3], outputs[2], outputs[4]]
    }
}

private func * (values: [Int], count: Int) -> [Int] { Array(repeating: values, count: max(0, count)).flatMap { $0 } }
