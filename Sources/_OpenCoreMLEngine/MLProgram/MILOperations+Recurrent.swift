import _OpenCoreMLKernels

/// The recurrent layers over a sequence `x` of shape `[s, b, I]` (time, batch, features), with
/// constant weights: `lstm`, `gru` and `rnn`, in the iOS 15 and iOS 17 forms (they differ only in
/// the float16 types iOS 17 allows, and every value here is float32).
///
/// Weight layouts, rows by gate, `H` hidden units: `lstm` stacks input, forget, output and cell
/// gates (`[i, f, o, z]`, `weight_ih` `[4H, I]`, `weight_hh` `[4H, H]`, one summed bias `[4H]`,
/// optional `peephole` `[3H]` for i, f, o); `gru` stacks reset, output and update gates
/// (`[r, o, z]`, `[3H, …]`; the output gate reads `W_ho·(r ∘ h)`, the reset applied before the
/// product); `rnn` has one gate. Input-to-hidden products for every step are one GEMM; each step
/// adds one hidden-to-hidden GEMM (three for `gru`, one per gate).
///
/// `direction` `forward` or `reverse` (and `bidirectional` for `lstm`, with the `_back` weights).
/// A `reverse` layer reads the sequence from its end and lists its outputs in the order it made
/// them; a `bidirectional` one concatenates the two directions' states along the last axis, the
/// backward outputs put back in time order (as PyTorch does). `output_sequence` keeps every step's
/// hidden state (`[s, b, D·H]`) instead of the last (`[1, b, D·H]`); the other outputs are the final
/// hidden (and for `lstm` cell) states, `[b, D·H]`. Activations: `sigmoid`, `tanh`, `relu`,
/// `linear`, `hard_sigmoid` (0.2·x + 0.5, clipped to [0, 1]), `scaled_tanh` (tanh: its default
/// scales are 1); `lstm`'s `clip` bounds the cell state to [−clip, clip] after each update.
extension MILOperations {
    static let recurrent: [String: Make] = [
        "lstm": recurrentLayer(.lstm), "gru": recurrentLayer(.gru), "rnn": recurrentLayer(.rnn),
    ]

    /// Which recurrent layer: its gates per hidden unit and its outputs.
    enum RecurrentKind: String {
        case lstm, gru, rnn

        var gates: Int { switch self { case .lstm: 4; case .gru: 3; case .rnn: 1 } }
        var outputCount: Int { self == .lstm ? 3 : 2 }
    }

    /// The activation (one of the shared ``Activation``s) a recurrent layer's parameter names:
    /// `relu` keeps NaN (a clamp to [0, ∞)), `linear` is the identity, `hard_sigmoid` is
    /// `min(max(0.2·x + 0.5, 0), 1)`.
    static func recurrentActivation(_ name: String, _ parameter: String, _ context: OperationContext) throws -> Activation {
        switch name.lowercased() {
        case "sigmoid": return .sigmoid
        case "tanh", "scaled_tanh": return .tanh
        case "relu": return .clamp(lower: 0, upper: .infinity)
        case "linear": return .linear(alpha: 1, beta: 0)
        case "hard_sigmoid", "sigmoid_hard": return .sigmoidHard(alpha: 0.2, beta: 0.5)
        default: throw context.fail("\(parameter) '\(name)' is not one of sigmoid, tanh, scaled_tanh, relu, linear, hard_sigmoid")
        }
    }

    /// One direction's constant weights, checked against each other.
    struct RecurrentWeights {
        let input: [Float]      // [G·H, I]
        let hidden: [Float]     // [G·H, H]
        let bias: [Float]       // [G·H]
        let peephole: [Float]?  // [3H], lstm only
        let inputSize: Int
        let hiddenSize: Int

        init(_ arguments: Arguments, suffix: String, kind: RecurrentKind, _ context: OperationContext) throws {
            guard let input = try constantTensor(arguments, "weight_ih" + suffix, context),
                  let hidden = try constantTensor(arguments, "weight_hh" + suffix, context) else {
                throw context.fail("\(kind) needs constant weight_ih\(suffix) and weight_hh\(suffix)")
            }
            let g = kind.gates
            guard input.shape.count == 2, hidden.shape.count == 2, hidden.shape[1] > 0, hidden.shape[0] == g * hidden.shape[1],
                  input.shape[0] == hidden.shape[0], input.shape[1] > 0 else {
                throw context.fail("weight_ih\(suffix) \(input.shape) and weight_hh\(suffix) \(hidden.shape) are not [\(g)H, I] and [\(g)H, H]")
            }
            hiddenSize = hidden.shape[1]
            inputSize = input.shape[1]
            self.input = input.values
            self.hidden = hidden.values
            if let bias = try constantTensor(arguments, "bias" + suffix, context) {
                guard bias.count == g * hiddenSize else { throw context.fail("bias\(suffix) holds \(bias.count) values; it needs \(g * hiddenSize)") }
                self.bias = bias.values
            } else {
                bias = [Float](repeating: 0, count: g * hiddenSize)
            }
            if kind == .lstm, let peephole = try constantTensor(arguments, "peephole" + suffix, context) {
                guard peephole.count == 3 * hiddenSize else { throw context.fail("peephole\(suffix) holds \(peephole.count) values; it needs \(3 * hiddenSize)") }
                self.peephole = peephole.values
            } else {
                peephole = nil
            }
        }
    }

    /// What a layer does at each step besides the products: its kind, activations and clip.
    struct RecurrentCell {
        let kind: RecurrentKind
        let recurrentActivation: Activation
        let cellActivation: Activation
        let activation: Activation
        let clip: Float?

        /// Runs one direction over `x` (`[s, b, I]`) from states `h` and `c` (`[b, H]`): every step's
        /// hidden state in the order made (`[s, b, H]`), and the final states.
        func run(_ x: UnsafePointer<Float>, steps: Int, batch: Int, weights w: RecurrentWeights, reverse: Bool,
                 h initialH: [Float], c initialC: [Float], _ context: OperationContext) throws -> (sequence: [Float], h: [Float], c: [Float]) {
            let hs = w.hiddenSize, width = kind.gates * hs
            // Every step's input products at once: [s·b, G·H], bias included.
            var projected = try context.buffer([steps * batch, width])
            if steps * batch > 0 {
                ocm_sgemm(false, true, Int32(steps * batch), Int32(width), Int32(w.inputSize), 1, x, Int32(w.inputSize),
                          w.input, Int32(w.inputSize), 0, &projected, Int32(width))
            }
            for row in 0..<(steps * batch) { for j in 0..<width { projected[row * width + j] += w.bias[j] } }
            var sequence = try context.buffer([steps, batch, hs])
            // No examples or no hidden units: nothing to compute (and no storage to point at).
            guard batch > 0, hs > 0 else { return (sequence, initialH, initialC) }
            var h = initialH, c = initialC
            var gates = [Float](repeating: 0, count: batch * width)
            var scratch = [Float](repeating: 0, count: batch * hs)
            for k in 0..<steps {
                let t = reverse ? steps - 1 - k : k
                gates.withUnsafeMutableBufferPointer { g in
                    projected.withUnsafeBufferPointer { p in g.baseAddress!.update(from: p.baseAddress! + t * batch * width, count: batch * width) }
                    // gru makes its own hidden products (its o gate reads r∘h).
                    if kind != .gru {
                        ocm_sgemm(false, true, Int32(batch), Int32(width), Int32(hs), 1, h, Int32(hs), w.hidden, Int32(hs), 1, g.baseAddress!, Int32(width))
                    }
                }
                switch kind {
                case .lstm: lstmStep(&gates, &h, &c, batch: batch, hs: hs, peephole: w.peephole)
                case .gru: gruStep(&gates, &h, &scratch, batch: batch, hs: hs, hidden: w.hidden)
                case .rnn:
                    gates.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: batch * hs) }
                    h = gates
                }
                sequence.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: k * batch * hs).update(from: h, count: batch * hs) }
            }
            return (sequence, h, c)
        }

        /// The LSTM cell (``Recurrent/LSTMCell``) on gates `[i, f, o, z]`, peepholes on c (i, f) and c' (o).
        private func lstmStep(_ gates: inout [Float], _ h: inout [Float], _ c: inout [Float], batch: Int, hs: Int, peephole: [Float]?) {
            let width = 4 * hs
            let lstm = Recurrent.LSTMCell(gate: recurrentActivation, cell: cellActivation, output: activation,
                                          preactivationClip: nil, cellClip: clip ?? .infinity, coupled: false)
            gates.withUnsafeMutableBufferPointer { buffer in
                h.withUnsafeMutableBufferPointer { h in
                    c.withUnsafeMutableBufferPointer { c in
                        withOptionalPointer(peephole) { peephole in
                            let p = peephole.map { Recurrent.Peephole(input: $0, forget: $0 + hs, output: $0 + 2 * hs) }
                            for b in 0..<batch {
                                let row = buffer.baseAddress! + b * width, cell = c.baseAddress! + b * hs
                                let rowGates = Recurrent.Gates(input: row, forget: row + hs, block: row + 3 * hs, output: row + 2 * hs)
                                // The block input's slot receives act(c') once z has been used.
                                let state = Recurrent.State(rawCell: nil, cell: cell, cellOutput: row + 3 * hs, hidden: h.baseAddress! + b * hs)
                                lstm.step(pre: rowGates, act: rowGates, previous: cell, peephole: p, state: state, count: hs)
                            }
                        }
                    }
                }
            }
        }

        /// r = ra(… + W_hr·h), z = ra(… + W_hz·h), o = act(… + W_ho·(r∘h)), h' = (1 − z)∘o + z∘h;
        /// gates `[r, o, z]`, each hidden product one GEMM into its gate's columns.
        private func gruStep(_ gates: inout [Float], _ h: inout [Float], _ reset: inout [Float], batch: Int, hs: Int, hidden: [Float]) {
            let width = 3 * hs
            gates.withUnsafeMutableBufferPointer { buffer in
                let g = buffer.baseAddress!
                hidden.withUnsafeBufferPointer { w in
                    for gate in [0, 2] {
                        ocm_sgemm(false, true, Int32(batch), Int32(hs), Int32(hs), 1, h, Int32(hs), w.baseAddress! + gate * hs * hs, Int32(hs),
                                  1, g + gate * hs, Int32(width))
                    }
                    h.withUnsafeBufferPointer { h in
                        reset.withUnsafeMutableBufferPointer { reset in
                            for b in 0..<batch {
                                recurrentActivation.apply(g + b * width, count: hs)
                                recurrentActivation.apply(g + b * width + 2 * hs, count: hs)
                                Recurrent.gruReset(reset: g + b * width, hidden: h.baseAddress! + b * hs, into: reset.baseAddress! + b * hs, count: hs)
                            }
                        }
                    }
                    ocm_sgemm(false, true, Int32(batch), Int32(hs), Int32(hs), 1, reset, Int32(hs), w.baseAddress! + hs * hs, Int32(hs),
                              1, g + hs, Int32(width))
                }
                h.withUnsafeMutableBufferPointer { h in
                    for b in 0..<batch {
                        let row = g + b * width
                        activation.apply(row + hs, count: hs)
                        Recurrent.gruUpdate(output: row + hs, update: row + 2 * hs, hidden: h.baseAddress! + b * hs, count: hs)
                    }
                }
            }
        }
    }

    static func recurrentLayer(_ kind: RecurrentKind) -> Make {
        { arguments, outputs, context in
            guard outputs.count == kind.outputCount else { throw context.fail("\(outputs.count) outputs; \(kind) has \(kind.outputCount)") }
            let x = try argument(arguments, "x", context), initialH = try argument(arguments, "initial_h", context)
            let initialC = kind == .lstm ? try argument(arguments, "initial_c", context) : nil
            let direction = try constantString(arguments, "direction", context) ?? "forward"
            guard direction == "forward" || direction == "reverse" || (kind == .lstm && direction == "bidirectional") else {
                throw context.fail("direction '\(direction)' is not one of forward, reverse\(kind == .lstm ? ", bidirectional" : "")")
            }
            let outputSequence = (try constantInts(arguments, "output_sequence", context)?.first ?? 0) != 0
            let forward = try RecurrentWeights(arguments, suffix: "", kind: kind, context)
            let backward = direction == "bidirectional" ? try RecurrentWeights(arguments, suffix: "_back", kind: kind, context) : nil
            if let backward, backward.inputSize != forward.inputSize || backward.hiddenSize != forward.hiddenSize {
                throw context.fail("the _back weights (\(backward.inputSize) inputs, \(backward.hiddenSize) units) do not match the forward ones (\(forward.inputSize), \(forward.hiddenSize))")
            }
            let clip = try constantFloat(arguments, "clip", context)
            if let clip, !(clip >= 0) { throw context.fail("clip \(clip) is not a bound of 0 or more") }
            let cell = RecurrentCell(
                kind: kind,
                recurrentActivation: try recurrentActivation(try constantString(arguments, "recurrent_activation", context) ?? "sigmoid", "recurrent_activation", context),
                cellActivation: try recurrentActivation(try constantString(arguments, "cell_activation", context) ?? "tanh", "cell_activation", context),
                activation: try recurrentActivation(try constantString(arguments, "activation", context) ?? "tanh", "activation", context),
                clip: clip)
            let directions = backward == nil ? 1 : 2, hs = forward.hiddenSize
            return { slots in
                let input = fetch(x, slots)
                guard input.shape.count == 3, input.shape[2] == forward.inputSize else {
                    throw context.fail("x \(input.shape) is not [sequence, batch, \(forward.inputSize)]")
                }
                let (steps, batch) = (input.shape[0], input.shape[1])
                try slots.countMultiplyAdds(directions, steps, batch, kind.gates * hs, forward.inputSize + hs, context: context)
                let h0 = fetch(initialH, slots), c0 = initialC.map { fetch($0, slots) }
                for (name, state) in [("initial_h", h0), ("initial_c", c0)] where state != nil && state!.count != batch * directions * hs {
                    throw context.fail("\(name) \(state!.shape) does not hold [\(batch), \(directions * hs)] values")
                }
                // One direction's slice of a `[b, D·H]` state.
                func part(_ state: MILTensor?, _ d: Int) -> [Float] {
                    guard let state else { return [Float](repeating: 0, count: batch * hs) }
                    var values: [Float] = []
                    values.reserveCapacity(batch * hs)
                    for b in 0..<batch {
                        let start: Int = (b * directions + d) * hs
                        values += state.values[start..<(start + hs)]
                    }
                    return values
                }
                let runs = try input.values.withUnsafeBufferPointer { xs in
                    try [forward, backward].compactMap { $0 }.enumerated().map { d, weights in
                        try cell.run(xs.baseAddress!, steps: steps, batch: batch, weights: weights, reverse: direction == "reverse" || d == 1,
                                     h: part(h0, d), c: part(c0, d), context)
                    }
                }
                let width = directions * hs, kept = outputSequence ? steps : 1
                var y = try slots.buffer([kept, batch, width], context)
                for (d, run) in runs.enumerated() {
                    for k in 0..<kept {
                        // Bidirectional: the backward direction's outputs go back in time order.
                        let made = outputSequence ? (d == 1 ? steps - 1 - k : k) : steps - 1
                        guard made >= 0 else { continue }
                        for b in 0..<batch {
                            for j in 0..<hs { y[(k * batch + b) * width + d * hs + j] = run.sequence[(made * batch + b) * hs + j] }
                        }
                    }
                }
                func joined(_ states: [[Float]]) -> MILTensor {
                    var values = [Float](repeating: 0, count: batch * width)
                    for (d, state) in states.enumerated() { for b in 0..<batch { for j in 0..<hs { values[b * width + d * hs + j] = state[b * hs + j] } } }
                    return MILTensor(shape: [batch, width], values: values)
                }
                slots[outputs[0]] = MILTensor(shape: [kept, batch, width], values: y)
                slots[outputs[1]] = joined(runs.map(\.h))
                if kind == .lstm { slots[outputs[2]] = joined(runs.map(\.c)) }
            }
        }
    }
}
