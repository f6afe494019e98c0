import CoreMLSpec

/// Inverted dropout, training only: in a training pass each value is zeroed with probability `rate`
/// and the others are scaled by `1 / (1 − rate)`, so inference (a plain copy) needs no rescaling and
/// an exported model simply leaves the layer out. Backward multiplies the output gradient by the
/// same mask.
///
/// Core ML has no dropout layer: the network inserts this node after a blob named in
/// ``TrainingGraphExtras/dropout``. Masks come from a seeded generator, one draw per training pass;
/// ``freezesMask`` keeps the last mask (finite-difference gradient checks need a fixed one).
package final class DropoutNode: LayerNode, @unchecked Sendable {
    package let rate: Float
    /// When set, training passes reuse the last mask drawn for at least as many values.
    package var freezesMask = false
    private var state: UInt64
    private let mask = FloatBuffer()
    private var maskCount = 0
    /// Whether the last forward pass applied the mask (backward then applies it too).
    private var masked = false

    init(after blob: Blob, output: Blob, rate: Float, seed: UInt64) {
        var spec = CoreML_Specification_NeuralNetworkLayer()
        spec.name = output.name
        self.rate = rate
        state = seed &+ 0x9E37_79B9_7F4A_7C15
        super.init(spec, inputs: [blob], outputs: [output])
    }

    /// SplitMix64: small, fast and good enough for masks.
    private func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    override func reserve(batch: Int, training: Bool) {
        if training { mask.reserve(batch * input.shape.count) }
    }

    override func forward(batch: Int, training: Bool) {
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer
        masked = training && rate > 0
        guard masked else {
            y.update(from: x, count: n)
            return
        }
        if !(freezesMask && maskCount >= n) {
            mask.reserve(n)
            let m = mask.pointer
            let keep = 1 / (1 - rate)
            let threshold = UInt64(Double(rate) * Double(1 << 53))
            for index in 0..<n { m[index] = next() >> 11 < threshold ? 0 : keep }
            maskCount = n
        }
        let m = mask.pointer
        for index in 0..<n { y[index] = x[index] * m[index] }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        let dy = output.gradient.pointer, m = mask.pointer
        setGradient(of: input, count: n) { dx in
            if masked {
                for index in 0..<n { dx[index] = dy[index] * m[index] }
            } else {
                dx.update(from: dy, count: n)
            }
        }
    }
}
