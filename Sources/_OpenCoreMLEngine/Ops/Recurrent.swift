import _OpenCoreMLKernels

/// Recurrent cell math written once, for `count` hidden units at a time (one example's row): the
/// LSTM gates, cell update and output shared by the classic `uniDirectionalLSTM` layer and the ML
/// Program's `lstm`, and the GRU and simple RNN updates of the ML Program's `gru` and `rnn`. The
/// callers own the products (input and recurrent GEMMs), the layouts and the loops over steps,
/// examples and directions; the activations are the shared ``Activation``s on the C kernels.
enum Recurrent {
    /// An LSTM's three activations, its clips and its gate coupling.
    struct LSTMCell {
        /// Applied to the input, forget and output gates.
        let gate: Activation
        /// Applied to the block input `z`.
        let cell: Activation
        /// Applied to the cell state for the output.
        let output: Activation
        /// The bound on every gate's pre-activation (Core ML's classic layer: 50), nil for none.
        let preactivationClip: Float?
        /// The bound on the cell state (∞ for none).
        let cellClip: Float
        /// Coupled input and forget gates: `f = 1 − i` (the forget gate's own values unused).
        let coupled: Bool


        /// `y = activation(clip(x))` (y may be x: in place).
        @inline(__always)
        private func activate(_ activation: Activation, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
            if let bound = preactivationClip {
                ocm_clamp(x, y, count, -bound, bound)
                activation.apply(y, count: count)
            } else {
                activation.forward(x, y, count: count)
            }
        }

        /// One step for one row of `count` units. `pre` holds the gates' pre-activations (products
        /// and biases; peepholes are added into it here), `act` receives the gate activations
        /// (it may be `pre`: in place); `previous` is the cell state entering the step, and
        /// `state` receives the step's cell state (clamped; the unclamped sum into `rawCell` when
        /// given), the output activation of it and the hidden output. `state.cell` may be
        /// `previous` (updated in place).
        func step(pre: Gates, act: Gates, previous: UnsafePointer<Float>, peephole: Peephole?, state: State, count: Int) {
            if let peephole {
                addProduct(peephole.input, previous, into: pre.input, count)
                if !coupled { addProduct(peephole.forget, previous, into: pre.forget, count) }
            }
            activate(gate, pre.input, act.input, count)
            if coupled {
                for j in 0..<count { act.forget[j] = 1 - act.input[j] }
            } else {
                activate(gate, pre.forget, act.forget, count)
            }
            activate(cell, pre.block, act.block, count)
            // c = clamp(f ⊙ c₋ + i ⊙ z, ±cellClip).
            let bound = cellClip
            for j in 0..<count {
                let raw = previous[j] * act.forget[j] + act.input[j] * act.block[j]
                state.rawCell?[j] = raw
                state.cell[j] = min(max(raw, -bound), bound)
            }
            if let peephole { addProduct(peephole.output, state.cell, into: pre.output, count) }
            activate(gate, pre.output, act.output, count)
            // h = o ⊙ output(c).
            output.forward(state.cell, state.cellOutput, count: count)
            ocm_mul(act.output, state.cellOutput, state.hidden, count)
        }

        /// `y += a ⊙ b`.
        @inline(__always)
        private func addProduct(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, _ count: Int) {
            for j in 0..<count { y[j] += a[j] * b[j] }
        }
    }

    /// Where an LSTM row's four gates lie (any layout: the classic layer keeps each gate in its
    /// own block, the ML Program's rows are `[i, f, o, z]`).
    struct Gates {
        var input: UnsafeMutablePointer<Float>
        var forget: UnsafeMutablePointer<Float>
        var block: UnsafeMutablePointer<Float>
        var output: UnsafeMutablePointer<Float>
    }

    /// An LSTM row's peephole weights: the input and forget gates' meet the previous cell state,
    /// the output gate's the new one.
    struct Peephole {
        var input: UnsafePointer<Float>
        var forget: UnsafePointer<Float>
        var output: UnsafePointer<Float>
    }

    /// Where an LSTM step writes one row's state.
    struct State {
        /// The cell state before the clamp (kept for the classic layer's gradient), or nil.
        var rawCell: UnsafeMutablePointer<Float>?
        var cell: UnsafeMutablePointer<Float>
        /// `output(c)`.
        var cellOutput: UnsafeMutablePointer<Float>
        var hidden: UnsafeMutablePointer<Float>
    }

    /// A GRU's new hidden state from its gates `o` and `z`: `h' = (1 − z) ⊙ o + z ⊙ h` (in place in h).
    static func gruUpdate(output o: UnsafePointer<Float>, update z: UnsafePointer<Float>, hidden h: UnsafeMutablePointer<Float>, count: Int) {
        for j in 0..<count { h[j] = (1 - z[j]) * o[j] + z[j] * h[j] }
    }

    /// A GRU's reset hidden state, the input of its output gate's product: `r ⊙ h`.
    static func gruReset(reset r: UnsafePointer<Float>, hidden h: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>, count: Int) {
        ocm_mul(r, h, y, count)
    }
}
