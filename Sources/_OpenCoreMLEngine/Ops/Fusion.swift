/// Which operation can run an activation on its own output, and how, for both interpreters: the
/// classic network's `fuseConvolutionChains` and the ML Program builder's `fusion(at:in:readers:)`
/// ask the same rule. A fused activation's input tensor is never made; the producer writes the
/// activation's output directly.
package enum ActivationProducer: Sendable {
    /// A convolution: its kernels clamp as they store (the depthwise and Winograd paths) or in
    /// the GEMM epilogue with the bias (``Activation/epilogue(_:rowBias:)``), so it takes the
    /// activations that are clamps (ReLU, ReLU6, clip), and hardswish, which the epilogue and the
    /// depthwise kernel run on each finished block. PReLU after an ML Program convolution runs
    /// in the convolution's step instead, on its output in place (``ProgramPlan/Builder``).
    case convolution
    /// A residual `add`: the sum's step (the classic `AddNode`, `Network.fuseResidualAdds`)
    /// applies any activation without per-channel parameters to its output in place.
    case residualAdd

    /// Whether this producer can run `activation` itself.
    func absorbs(_ activation: Activation) -> Bool {
        switch self {
        case .convolution:
            if case .hardSwish = activation { return true }
            return activation.clampBounds != nil
        case .residualAdd: return !activation.isPerChannel
        }
    }
}
