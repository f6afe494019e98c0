import _OpenCoreMLKernels

/// A classic activation or clip layer that runs inside the layer before it, by
/// ``ActivationProducer``'s rule: a ReLU or clip (ReLU6 in MobileNet and EfficientNet) inside a
/// convolution (`Network.fuseConvolutionChains`), any activation without per-channel parameters
/// inside a residual `add` (`Network.fuseResidualAdds`). Its ``Activation`` runs forward on that
/// layer's output in place, and backward from its own output, since the input it would read is
/// never written (an `add` keeps the sum while training for the activations whose derivative needs
/// it, ``Activation/differentiatesFromOutput``).
struct FusedActivation {
    /// The activation or clip layer; its output blob is the one the fusing layer fills.
    let node: LayerNode
    let activation: Activation

    /// The activation of `node` when `producer` absorbs it; nil otherwise.
    init?(_ node: LayerNode, into producer: ActivationProducer) {
        switch node {
        case let layer as ActivationNode: activation = layer.activation
        case let clip as ClipNode: activation = clip.activation
        default: return nil
        }
        guard producer.absorbs(activation) else { return nil }
        self.node = node
    }

    var output: Blob { node.output }

    /// nil for a ReLU (`max(x, 0)`, NaN to 0, which a max pooling after it may fuse with); a clip's
    /// bounds otherwise.
    var bounds: (lower: Float, upper: Float)? { activation == .relu ? nil : activation.clampBounds }

    /// The bounds a kernel that clamps its own output applies (a ReLU's are 0 and infinity).
    var clampBounds: (lower: Float, upper: Float) { Activation.bounds(activation) }

    /// What a GEMM applies to each finished block of its product (``Activation/epilogue(_:rowBias:)``).
    static func epilogue(_ activation: FusedActivation?, rowBias: UnsafePointer<Float>?) -> ocm_gemm_epilogue {
        Activation.epilogue(activation?.activation, rowBias: rowBias)
    }

    func forward(_ values: UnsafeMutablePointer<Float>, count: Int) {
        activation.apply(values, count: count)
    }

    /// The gradient before the activation from its `output` and output `gradient`
    /// (``Activation/fusedBackward(output:gradient:into:count:)``), for an activation that
    /// ``Activation/differentiatesFromOutput``.
    func backward(output: UnsafePointer<Float>, gradient: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, count: Int) {
        activation.fusedBackward(output: output, gradient: gradient, into: dx, count: count)
    }
}
