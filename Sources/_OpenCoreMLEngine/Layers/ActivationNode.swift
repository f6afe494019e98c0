import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `activation` layer: an ``Activation`` read from the layer's parameters,
/// forward and backward. PReLU's and parametric softplus's per-channel parameters (one per
/// channel, or one shared) are trainable.
final class ActivationNode: LayerNode, @unchecked Sendable {
    let activation: Activation
    /// PReLU alpha, or parametric softplus alpha then beta.
    private var alpha: Parameter?
    private var beta: Parameter?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ActivationParams, inputs: [Blob], outputs: [Blob]) throws {
        guard let activation = Activation(classic: params) else {
            throw EngineError("layer '\(spec.name)' (activation)", "no activation function is set")
        }
        self.activation = activation
        switch params.nonlinearityType {
        case .preLu?:
            alpha = try Parameter.required("alpha", of: spec)
        case .parametricSoftplus?:
            alpha = try Parameter.required("alpha", of: spec)
            beta = try Parameter.required("beta", of: spec)
        default: break
        }
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [alpha, beta].compactMap { $0 }
    }

    /// The per-channel parameters over the input's `[outer, C, H, W]` layout, nil when the
    /// activation has none.
    private var channels: ChannelParameters? {
        guard let alpha else { return nil }
        let classic = input.shape.classic, c = classic.channels, h = classic.height, w = classic.width
        // Never more channels than values (the layer table checks the counts; this keeps reads inside).
        return ChannelParameters(alpha: alpha.value.pointer, beta: beta.map { UnsafePointer($0.value.pointer) },
                                 count: alpha.count == 1 ? 1 : min(c, alpha.count),
                                 betaCount: beta.map { $0.count == 1 ? 1 : min(c, $0.count) } ?? 1, plane: h * w)
    }

    /// The hardswish this thresholded ReLU runs in place of itself, the hard sigmoid after it and
    /// their product (``Network/fuseHardSwishes(_:keeping:)``), and the product's output, which it
    /// then fills.
    private(set) var fusedHardSwish: (activation: Activation, output: Blob)?

    func fuse(hardSwish: Activation, output: Blob) {
        fusedHardSwish = (hardSwish, output)
    }

    override var producedOutputs: [Blob] { [fusedHardSwish?.output ?? output] }

    override func forward(batch: Int, training: Bool) {
        let (function, y) = fusedHardSwish ?? (activation, output)
        function.forward(input.value.pointer, y.value.pointer, count: batch * input.shape.count, channels: channels)
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        let n = batch * input.shape.count
        let (activation, produced) = fusedHardSwish ?? (activation, output)
        let x = input.value.pointer, y = produced.value.pointer, dy = produced.gradient.pointer
        if let channels, alpha?.isTrainable == true || beta?.isTrainable == true {
            activation.parameterGradients(x: x, dy: dy, count: n, channels: channels,
                                          alphaGradient: alpha?.isTrainable == true ? alpha?.gradient.pointer : nil,
                                          betaGradient: beta?.isTrainable == true ? beta?.gradient.pointer : nil)
        }
        guard input.needsGradient else { return }
        setGradient(of: input, count: n) { dx in
            activation.backward(x: x, y: UnsafePointer(y), dy: dy, into: dx, count: n, channels: channels)
        }
    }

    override func store(in spec: inout CoreML_Specification_NeuralNetworkLayer) {
        guard case .activation(var params)? = spec.layer else { return }
        switch params.nonlinearityType {
        case .preLu(var p)?:
            alpha?.store(in: &p.alpha)
            params.preLu = p
        case .parametricSoftplus(var p)?:
            alpha?.store(in: &p.alpha)
            beta?.store(in: &p.beta)
            params.parametricSoftplus = p
        default: return
        }
        spec.activation = params
    }
}

extension Activation {
    /// The activation a classic `ActivationParams` names (nil when none is set). PReLU's and
    /// parametric softplus's per-channel values are the layer's parameters, not part of it.
    init?(classic params: CoreML_Specification_ActivationParams) {
        switch params.nonlinearityType {
        case .linear(let p)?: self = .linear(alpha: p.alpha, beta: p.beta)
        case .reLu?: self = .relu
        case .leakyReLu(let p)?: self = .leakyReLU(alpha: p.alpha)
        case .thresholdedReLu(let p)?: self = .thresholdedReLU(alpha: p.alpha, inclusive: false)
        case .preLu?: self = .prelu
        case .tanh?: self = .tanh
        case .scaledTanh(let p)?: self = .scaledTanh(alpha: p.alpha, beta: p.beta)
        case .sigmoid?: self = .sigmoid
        case .sigmoidHard(let p)?: self = .sigmoidHard(alpha: p.alpha, beta: p.beta)
        case .elu(let p)?: self = .elu(alpha: p.alpha)
        case .softsign?: self = .softsign
        case .softplus?: self = .softplus
        case .parametricSoftplus?: self = .parametricSoftplus
        case nil: return nil
        }
    }
}
