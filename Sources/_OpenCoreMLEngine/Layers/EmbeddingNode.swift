import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's `embedding` layer: each position of the sequence holds one integer index (stored as a
/// float, C = H = W = 1) and becomes column `index` of the `[outputChannels, inputDim]` weight
/// matrix, plus the optional bias: `y = W[:, index] + b`, an `[outputChannels, 1, 1]` vector.
///
/// Indices are rounded to the nearest integer. An index that is not finite or lies outside
/// `0..<inputDim` (which Core ML forbids but a forward pass cannot report) looks up a zero vector:
/// the output is the bias alone, and no weight receives a gradient from that position.
///
/// Backward scatter-adds the output gradient into the looked-up weight columns. The indices are
/// discrete, so the input's gradient is zero.
final class EmbeddingNode: LayerNode, @unchecked Sendable {
    let inputDim: Int
    let outputChannels: Int
    let weights: Parameter
    let bias: Parameter?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_EmbeddingLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        inputDim = try Self.declaredSize(params.inputDim, "inputDim", of: spec)
        outputChannels = try Self.declaredSize(params.outputChannels, "outputChannels", of: spec)
        guard inputDim > 0, outputChannels > 0 else {
            throw EngineError("layer '\(spec.name)' (embedding)", "inputDim (\(inputDim)) and outputChannels (\(outputChannels)) must be positive")
        }
        weights = try Parameter.required("weights", of: spec)
        bias = try Parameter.optional("bias", of: spec)
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [weights] + (bias.map { [$0] } ?? [])
    }

    /// Positions per example: every element of the input is one index.
    private var positions: Int { input.shape.count }

    /// The weight column for `value`, or nil for an index outside the table.
    @inline(__always)
    private func column(_ value: Float) -> Int? {
        guard value.isFinite else { return nil }
        let rounded = value.rounded()
        guard rounded >= 0, rounded < Float(inputDim) else { return nil }
        return Int(rounded)
    }

    override func forward(batch: Int, training: Bool) {
        let rows = batch * positions
        let x = input.value.pointer, y = output.value.pointer, table = weights.value.pointer
        let n = outputChannels, k = inputDim
        for row in 0..<rows {
            let out = y + row * n
            if let index = column(x[row]) {
                for channel in 0..<n { out[channel] = table[channel * k + index] }
            } else {
                out.update(repeating: 0, count: n)
            }
        }
        if let bias { ocm_add_row_vector(y, bias.value.pointer, Int32(rows), Int32(n), Int32(n)) }
    }

    override var hasBackward: Bool { true }

    /// Indices are piecewise constant: no gradient reaches a layer before an embedding.
    override func passesGradient(toInput index: Int) -> Bool { false }

    override func backward(batch: Int) {
        let rows = batch * positions
        let n = outputChannels, k = inputDim
        let x = input.value.pointer, dy = output.gradient.pointer
        if weights.isTrainable {
            let dw = weights.gradient.pointer
            dw.update(repeating: 0, count: n * k)
            for row in 0..<rows {
                guard let index = column(x[row]) else { continue }
                let g = dy + row * n
                for channel in 0..<n { dw[channel * k + index] += g[channel] }
            }
        }
        if let bias, bias.isTrainable { ocm_sum_rows(dy, bias.gradient.pointer, Int32(rows), Int32(n), Int32(n), false) }
        if input.needsGradient {
            // Indices are piecewise constant: nothing flows back to them.
            setGradient(of: input, count: batch * input.shape.count) { dx in dx.update(repeating: 0, count: batch * input.shape.count) }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .embedding(var params)? = spec.layer else { return }
        weights.store(in: &params.weights)
        bias?.store(in: &params.bias)
        spec.embedding = params
    }
}
