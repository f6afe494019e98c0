import Testing
@testable import _OpenCoreMLEngine

/// The LSTM cell both interpreters share (``Recurrent/LSTMCell``), one row worked out by hand.
struct RecurrentCellTests {
    /// Runs one step of two units; returns the activations, cell state, raw cell and hidden output.
    private static func step(_ lstm: Recurrent.LSTMCell, pre: [Float], previous: [Float], peephole: [Float]? = nil)
        -> (act: [Float], cell: [Float], raw: [Float], hidden: [Float]) {
        // pre (8), act (8), previous, cell, raw, cell output, hidden (2 each), peephole (6).
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: 32)
        defer { memory.deallocate() }
        memory.initialize(repeating: 0, count: 32)
        let p = memory, a = memory + 8, previousCell = memory + 16, state = memory + 18, weights = memory + 26
        p.update(from: pre, count: 8)
        previousCell.update(from: previous, count: 2)
        func gates(_ base: UnsafeMutablePointer<Float>) -> Recurrent.Gates {
            Recurrent.Gates(input: base, forget: base + 2, block: base + 4, output: base + 6)
        }
        var peepholeWeights: Recurrent.Peephole? = nil
        if let peephole {
            weights.update(from: peephole, count: 6)
            peepholeWeights = Recurrent.Peephole(input: weights, forget: weights + 2, output: weights + 4)
        }
        lstm.step(pre: gates(p), act: gates(a), previous: previousCell, peephole: peepholeWeights,
                  state: Recurrent.State(rawCell: state + 2, cell: state, cellOutput: state + 4, hidden: state + 6), count: 2)
        func read(_ pointer: UnsafeMutablePointer<Float>, _ count: Int) -> [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
        return (read(a, 8), read(state, 2), read(state + 2, 2), read(state + 6, 2))
    }

    @Test func linearGatesAreClippedAndTheCellClamped() {
        let identity = Activation.linear(alpha: 1, beta: 0)
        let lstm = Recurrent.LSTMCell(gate: identity, cell: identity, output: identity, preactivationClip: 50, cellClip: 60, coupled: false)
        // Unit 0: i = clip(100) = 50, f = 0.5, z = 2, o = 1, c₋ = 4: raw = 4·0.5 + 50·2 = 102, c = 60, h = 60.
        // Unit 1: i = −1, f = 1, z = 3, o = 2, c₋ = 1: raw = 1 − 3 = −2, c = −2, h = −4.
        let r = Self.step(lstm, pre: [100, -1, 0.5, 1, 2, 3, 1, 2], previous: [4, 1])
        #expect(r.act == [50, -1, 0.5, 1, 2, 3, 1, 2])
        #expect(r.raw == [102, -2] && r.cell == [60, -2] && r.hidden == [60, -4])
    }

    @Test func coupledGatesAndPeepholes() {
        let identity = Activation.linear(alpha: 1, beta: 0)
        let lstm = Recurrent.LSTMCell(gate: identity, cell: identity, output: identity, preactivationClip: nil, cellClip: .infinity, coupled: true)
        // Peepholes p_i = (1, 0), p_f unused (coupled), p_o = (0, 2); c₋ = (2, 3).
        // Unit 0: i = 0.25 + 1·2 = 2.25, f = 1 − i = −1.25, z = 1: c = 2·(−1.25) + 2.25 = −0.25; o = 1, h = −0.25.
        // Unit 1: i = 0.5, f = 0.5, z = 2: c = 1.5 + 1 = 2.5; o = 0 + 2·2.5 = 5, h = 12.5.
        let r = Self.step(lstm, pre: [0.25, 0.5, 9, 9, 1, 2, 1, 0], previous: [2, 3], peephole: [1, 0, 7, 7, 0, 2])
        #expect(r.act == [2.25, 0.5, -1.25, 0.5, 1, 2, 1, 5])
        #expect(r.cell == [-0.25, 2.5] && r.hidden == [-0.25, 12.5])
    }
}
