import CoreMLSpec
import Foundation

/// Core ML's classic `batchnorm`: `y = γ·(x − μ)/√(σ² + ε) + β` per channel, over every sequence
/// position, height and width. γ and β are trainable.
///
/// Statistics:
/// - stored (`computeMeanVar` false): the layer's `mean` and `variance`. Training treats them as
///   constants — a frozen batch norm: they are never updated (even when marked updatable) and the
///   gradient does not flow through them, so `∂y/∂x = γ/√(σ² + ε)`.
/// - computed, `instanceNormalization`: per example, sequence position and channel over H×W.
/// - computed, otherwise: per channel over the whole batch (every example, sequence position,
///   height and width), so examples of a batch influence each other.
///
/// Computed statistics use the biased (population) variance, and backward differentiates through
/// them (the full batch/instance-norm gradient). ε defaults to 1e-5 when 0.
final class BatchNormNode: LayerNode, @unchecked Sendable {
    let channels: Int
    let computesStatistics: Bool
    let perInstance: Bool
    let epsilon: Float
    let gamma: Parameter
    let beta: Parameter
    /// The stored statistics (empty when computed).
    let mean: [Float], variance: [Float]

    /// Computed statistics of the last forward pass: mean and 1/√(σ² + ε) per group.
    private let groupMean = FloatBuffer(), groupInverseDeviation = FloatBuffer()

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_BatchnormLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        channels = try Self.declaredSize(params.channels, "channels", of: spec)
        computesStatistics = params.computeMeanVar
        perInstance = params.instanceNormalization
        epsilon = params.epsilon == 0 ? 1e-5 : params.epsilon
        gamma = try Parameter.required("gamma", of: spec)
        beta = try Parameter.required("beta", of: spec)
        if computesStatistics {
            mean = []
            variance = []
        } else {
            mean = try Parameter.values("mean", of: spec)
            variance = try Parameter.values("variance", of: spec)
        }
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [gamma, beta]
        if !computesStatistics {
            if let negative = variance.firstIndex(where: { $0 + epsilon <= 0 }) {
                throw fail("variance[\(negative)] = \(variance[negative]) is negative")
            }
        }
    }

    private func groups(_ batch: Int) -> Int {
        perInstance ? batch * input.shape.classic.outer * channels : channels
    }

    override func reserve(batch: Int, training: Bool) {
        if computesStatistics {
            groupMean.reserve(groups(batch))
            groupInverseDeviation.reserve(groups(batch))
        }
    }

    /// Calls `body(channel, group, offset)` for every channel plane of the first `batch` examples:
    /// `offset` is where its H×W values start, `group` the statistics group it belongs to.
    @inline(__always)
    private func forEachPlane(batch: Int, _ body: (_ channel: Int, _ group: Int, _ offset: Int) -> Void) {
        let dims = input.shape.classic
        let plane = dims.plane
        for block in 0..<(batch * dims.outer) {
            for c in 0..<channels {
                body(c, perInstance ? block * channels + c : c, (block * channels + c) * plane)
            }
        }
    }

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        let plane = input.shape.classic.plane
        let g = gamma.value.pointer, b = beta.value.pointer
        guard computesStatistics else {
            forEachPlane(batch: batch) { c, _, offset in
                let a = g[c] / (variance[c] + epsilon).squareRoot()
                let shift = b[c] - a * mean[c]
                for i in offset..<(offset + plane) { y[i] = a * x[i] + shift }
            }
            return
        }
        let groups = groups(batch)
        var sums = [Double](repeating: 0, count: groups), squares = [Double](repeating: 0, count: groups)
        var counts = [Int](repeating: 0, count: groups)
        forEachPlane(batch: batch) { _, group, offset in
            var sum = 0.0
            for i in offset..<(offset + plane) { sum += Double(x[i]) }
            sums[group] += sum
            counts[group] += plane
        }
        let m = groupMean.pointer, s = groupInverseDeviation.pointer
        for group in 0..<groups { m[group] = Float(sums[group] / Double(max(counts[group], 1))) }
        forEachPlane(batch: batch) { _, group, offset in
            let mu = m[group]
            var sum = 0.0
            for i in offset..<(offset + plane) {
                let d = Double(x[i] - mu)
                sum += d * d
            }
            squares[group] += sum
        }
        for group in 0..<groups {
            s[group] = Float(1 / (squares[group] / Double(max(counts[group], 1)) + Double(epsilon)).squareRoot())
        }
        forEachPlane(batch: batch) { c, group, offset in
            let a = g[c] * s[group], mu = m[group]
            for i in offset..<(offset + plane) { y[i] = a * (x[i] - mu) + b[c] }
        }
    }

    override func backward(batch: Int) {
        let x = input.value.pointer, dy = output.gradient.pointer
        let plane = input.shape.classic.plane
        let g = gamma.value.pointer
        let n = batch * input.shape.count
        // Per group: Σ dy and Σ dy·x̂ (x̂ the normalized input).
        let groupCount = computesStatistics ? groups(batch) : channels
        var sumDy = [Float](repeating: 0, count: groupCount), sumDyXhat = [Float](repeating: 0, count: groupCount)
        var counts = [Int](repeating: 0, count: groupCount)
        let m = groupMean.pointer, s = groupInverseDeviation.pointer
        forEachPlane(batch: batch) { c, group, offset in
            let slot = computesStatistics ? group : c
            let (mu, inverse) = computesStatistics ? (m[group], s[group]) : (mean[c], 1 / (variance[c] + epsilon).squareRoot())
            var a: Float = 0, d: Float = 0
            for i in offset..<(offset + plane) {
                a += dy[i]
                d += dy[i] * (x[i] - mu) * inverse
            }
            sumDy[slot] += a
            sumDyXhat[slot] += d
            counts[slot] += plane
        }
        if gamma.isTrainable || beta.isTrainable {
            var dGamma = [Float](repeating: 0, count: channels), dBeta = [Float](repeating: 0, count: channels)
            forEachPlaneGroup(batch: batch, computed: computesStatistics) { c, slot in
                dGamma[c] += sumDyXhat[slot]
                dBeta[c] += sumDy[slot]
            }
            if gamma.isTrainable { gamma.gradient.pointer.update(from: dGamma, count: channels) }
            if beta.isTrainable { beta.gradient.pointer.update(from: dBeta, count: channels) }
        }
        guard input.needsGradient else { return }
        setGradient(of: input, count: n) { dx in
            forEachPlane(batch: batch) { c, group, offset in
                if computesStatistics {
                    // dx = γ/σ · (dy − mean(dy) − x̂·mean(dy·x̂)) over the group.
                    let mu = m[group], inverse = s[group], count = Float(counts[group])
                    let meanDy = sumDy[group] / count, meanDyXhat = sumDyXhat[group] / count
                    let a = g[c] * inverse
                    for i in offset..<(offset + plane) {
                        dx[i] = a * (dy[i] - meanDy - (x[i] - mu) * inverse * meanDyXhat)
                    }
                } else {
                    let a = g[c] / (variance[c] + epsilon).squareRoot()
                    for i in offset..<(offset + plane) { dx[i] = a * dy[i] }
                }
            }
        }
    }

    /// Calls `body(channel, slot)` once for every statistics slot (a group, or a channel when the
    /// statistics are stored).
    private func forEachPlaneGroup(batch: Int, computed: Bool, _ body: (_ channel: Int, _ slot: Int) -> Void) {
        if computed && perInstance {
            for group in 0..<groups(batch) { body(group % channels, group) }
        } else {
            for c in 0..<channels { body(c, c) }
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .batchnorm(var params)? = spec.layer else { return }
        gamma.store(in: &params.gamma)
        beta.store(in: &params.beta)
        spec.batchnorm = params
    }
}
