import CoreMLSpec

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
    /// Stored statistics folded with the current γ and β: one scale and shift per channel.
    private let foldedScale = FloatBuffer(), foldedShift = FloatBuffer()

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

    /// The channel planes of the first `batch` examples, grouped for their statistics.
    private func groups(_ batch: Int) -> Normalization.PlaneGroups {
        let dims = input.shape.classic
        return Normalization.PlaneGroups(blocks: batch * dims.outer, channels: channels, plane: dims.plane, perInstance: perInstance)
    }

    override func reserve(batch: Int, training: Bool) {
        if computesStatistics {
            groupMean.reserve(groups(batch).count)
            groupInverseDeviation.reserve(groups(batch).count)
        } else {
            foldedScale.reserve(channels)
            foldedShift.reserve(channels)
        }
    }

    /// The statistics the last forward pass used.
    private var statistics: Normalization.Statistics {
        computesStatistics ? .computed(mean: groupMean.pointer, inverseDeviation: groupInverseDeviation.pointer)
            : .stored(mean: mean, variance: variance, epsilon: epsilon)
    }

    override func forward(batch: Int, training: Bool) {
        let x = input.value.pointer, y = output.value.pointer
        let g = gamma.value.pointer, b = beta.value.pointer
        let groups = groups(batch)
        guard computesStatistics else {
            Normalization.fold(mean: mean, variance: variance, gamma: g, beta: b, epsilon: epsilon, channels: channels,
                               scale: foldedScale.pointer, shift: foldedShift.pointer)
            Normalization.scaleAndShift(x, y, scale: foldedScale.pointer, shift: foldedShift.pointer,
                                        blocks: groups.blocks, channels: channels, plane: groups.plane)
            return
        }
        Normalization.statistics(x, groups, epsilon: epsilon, mean: groupMean.pointer, inverseDeviation: groupInverseDeviation.pointer)
        Normalization.normalize(x, y, groups, mean: groupMean.pointer, inverseDeviation: groupInverseDeviation.pointer, gamma: g, beta: b)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let x = input.value.pointer, dy = output.gradient.pointer
        let groups = groups(batch), statistics = statistics
        let (sumDy, sumDyXhat) = Normalization.gradientSums(x: x, dy: dy, groups, statistics)
        if gamma.isTrainable || beta.isTrainable {
            Normalization.parameterGradients(sumDy: sumDy, sumDyXhat: sumDyXhat, groups, statistics,
                                             dGamma: gamma.isTrainable ? gamma.gradient.pointer : nil,
                                             dBeta: beta.isTrainable ? beta.gradient.pointer : nil)
        }
        guard input.needsGradient else { return }
        let g = gamma.value.pointer
        setGradient(of: input, count: batch * input.shape.count) { dx in
            Normalization.inputGradient(x: x, dy: dy, dx: dx, groups, statistics, gamma: g, sumDy: sumDy, sumDyXhat: sumDyXhat)
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .batchnorm(var params)? = spec.layer else { return }
        gamma.store(in: &params.gamma)
        beta.store(in: &params.beta)
        spec.batchnorm = params
    }
}
