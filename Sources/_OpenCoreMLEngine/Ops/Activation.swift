import Foundation
import _OpenCoreMLKernels

/// Every activation function of both interpreters, written once: the classic `activation` layer,
/// LSTM gates, the ML Program's activation operations and recurrent layers, and what a
/// convolution or a residual `add` runs on its own output (``ActivationProducer``). Forward runs on
/// the C kernels (vectorised and threaded where networks spend time: ReLU, clip, leaky ReLU and
/// PReLU, sigmoid, tanh, GELU, SiLU, ELU), backward gives the input's gradient for the classic
/// trainer, and a clamp-like activation gives the GEMM epilogue that applies it while the product
/// is in cache.
///
/// PReLU's slopes and parametric softplus's alpha and beta are per channel and may be trainable
/// (a classic layer's), so they are not part of the case: each call lends them (``ChannelParameters``).
package enum Activation: Equatable, Sendable {
    /// `max(x, 0)`, NaN to 0.
    case relu
    /// `min(max(x, lower), upper)`, NaN staying NaN (ReLU6, clip; an infinite bound is none).
    case clamp(lower: Float, upper: Float)
    /// `min(x >= 0 ? x : alpha·x, beta)`, NaN staying NaN (MIL's `clamped_relu`).
    case clampedReLU(alpha: Float, beta: Float)
    /// `x > 0 ? x : alpha·x`.
    case leakyReLU(alpha: Float)
    /// Leaky ReLU with one slope per channel (``ChannelParameters/alpha``).
    case prelu
    /// `alpha·x + beta`.
    case linear(alpha: Float, beta: Float)
    /// `x > alpha ? x : 0` (`x >= alpha` when `inclusive`: MIL's, where the classic layer's is strict).
    case thresholdedReLU(alpha: Float, inclusive: Bool)
    case tanh
    /// `alpha·tanh(beta·x)`.
    case scaledTanh(alpha: Float, beta: Float)
    case sigmoid
    /// `min(max(alpha·x + beta, 0), 1)`.
    case sigmoidHard(alpha: Float, beta: Float)
    /// `x > 0 ? x : alpha·(eˣ − 1)`.
    case elu(alpha: Float)
    /// `x / (1 + |x|)`.
    case softsign
    /// `log(1 + eˣ)`.
    case softplus
    /// `alpha·softplus(beta·x)`, alpha and beta per channel.
    case parametricSoftplus
    case gelu(GELUMode)
    /// `x·sigmoid(x)`.
    case silu
    /// `t·min(max(alpha·t + beta, 0), 1)` with `t = x > threshold ? x : 0` (NaN to 0): hardswish as
    /// converters write it, a thresholded ReLU, a hard sigmoid of it and their product (MobileNetV3's
    /// `x·relu6(x + 3)/6` is threshold −3, alpha 1/6, beta 1/2), run as one pass (``ocm_hardswish``).
    /// Made only by fusing those operations (``ProgramPlan/Builder/hardSwishPatterns(in:readers:)``).
    case hardSwish(threshold: Float, alpha: Float, beta: Float)

    /// GELU's three forms (MIL's `mode`).
    package enum GELUMode: Sendable {
        case exact, tanhApproximation, sigmoidApproximation

        var kernelMode: Int32 {
            switch self {
            case .exact: OCM_GELU_EXACT
            case .tanhApproximation: OCM_GELU_TANH
            case .sigmoidApproximation: OCM_GELU_SIGMOID
            }
        }
    }

    /// Whether the activation reads per-channel parameters.
    var isPerChannel: Bool { self == .prelu || self == .parametricSoftplus }

    // MARK: Forward

    /// `y = f(x)` over `count` values (y may be x: in place). A per-channel activation needs `channels`.
    func forward(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, count: Int, channels: ChannelParameters? = nil) {
        switch self {
        case .relu: ocm_relu(x, y, count)
        case .clamp(let lower, let upper): ocm_clamp(x, y, count, lower, upper)
        case .leakyReLU(let alpha): ocm_leaky_relu(x, y, count, alpha)
        case .sigmoid: ocm_sigmoid(x, y, count)
        case .tanh: ocm_tanh(x, y, count)
        case .gelu(let mode): ocm_gelu(x, y, count, mode.kernelMode)
        case .silu: ocm_unary(OCM_UNARY_SILU, x, y, count, 0, 0)
        case .linear(let alpha, let beta): ocm_unary(OCM_UNARY_AFFINE, x, y, count, alpha, beta)
        case .clampedReLU(let alpha, let beta): ocm_unary(OCM_UNARY_CLAMPED_RELU, x, y, count, alpha, beta)
        case .thresholdedReLU(let alpha, let inclusive): ocm_unary(OCM_UNARY_THRESHOLDED_RELU, x, y, count, alpha, inclusive ? 1 : 0)
        case .scaledTanh(let alpha, let beta): ocm_unary(OCM_UNARY_SCALED_TANH, x, y, count, alpha, beta)
        case .sigmoidHard(let alpha, let beta): ocm_unary(OCM_UNARY_HARD_SIGMOID, x, y, count, alpha, beta)
        case .elu(let alpha): ocm_unary(OCM_UNARY_ELU, x, y, count, alpha, 0)
        case .softsign: ocm_unary(OCM_UNARY_SOFTSIGN, x, y, count, 0, 0)
        case .softplus: ocm_unary(OCM_UNARY_SOFTPLUS, x, y, count, 0, 0)
        case .hardSwish(let threshold, let alpha, let beta): ocm_hardswish(x, y, count, threshold, alpha, beta)
        case .prelu:
            guard let channels else { return ocm_relu(x, y, count) }
            ocm_prelu(x, y, count, channels.alpha, channels.count, channels.plane)
        case .parametricSoftplus:
            guard let channels else { return ocm_unary(OCM_UNARY_SOFTPLUS, x, y, count, 0, 0) }
            for i in 0..<count {
                let (a, b) = channels.values(at: i)
                y[i] = a * Self.softplus(b * x[i])
            }
        }
    }

    /// `forward` on `values` in place (an activation fused into the step that wrote them).
    func apply(_ values: UnsafeMutablePointer<Float>, count: Int, channels: ChannelParameters? = nil) {
        forward(values, values, count: count, channels: channels)
    }

    /// `f(x)` for one value (a recurrent cell's element loops); per-channel parameters `alpha`, `beta`.
    @inline(__always)
    package func value(_ x: Float, alpha channelAlpha: Float = 0, beta channelBeta: Float = 1) -> Float {
        switch self {
        case .relu: return x > 0 ? x : 0
        case .clamp(let lower, let upper): return x < lower ? lower : x > upper ? upper : x
        case .leakyReLU(let alpha): return x > 0 ? x : alpha * x
        case .prelu: return x > 0 ? x : channelAlpha * x
        case .linear(let alpha, let beta): return alpha * x + beta
        case .clampedReLU(let alpha, let beta):
            let t = x >= 0 ? x : alpha * x
            return t > beta ? beta : t
        case .thresholdedReLU(let alpha, let inclusive): return (inclusive ? x >= alpha : x > alpha) ? x : 0
        case .tanh: return Foundation.tanh(x)
        case .scaledTanh(let alpha, let beta): return alpha * Foundation.tanh(beta * x)
        case .sigmoid: return Self.logistic(x)
        case .sigmoidHard(let alpha, let beta): return min(max(alpha * x + beta, 0), 1)
        case .elu(let alpha): return x > 0 ? x : alpha * (Foundation.exp(x) - 1)
        case .softsign: return x / (1 + abs(x))
        case .softplus: return Self.softplus(x)
        case .parametricSoftplus: return channelAlpha * Self.softplus(channelBeta * x)
        case .gelu(.exact): return 0.5 * x * (1 + Foundation.erf(x * 0.70710678118654752))
        case .gelu(.tanhApproximation): return 0.5 * x * (1 + Foundation.tanh(0.79788456080286536 * (x + 0.044715 * x * x * x)))
        case .gelu(.sigmoidApproximation): return x * Self.logistic(1.702 * x)
        case .silu: return x * Self.logistic(x)
        case .hardSwish(let threshold, let alpha, let beta):
            let t = x > threshold ? x : 0
            return t * min(max(alpha * t + beta, 0), 1)
        }
    }

    static func softplus(_ v: Float) -> Float { max(v, 0) + Foundation.log1p(Foundation.exp(-abs(v))) }
    static func logistic(_ v: Float) -> Float { 1 / (1 + Foundation.exp(-v)) }

    // MARK: Fusion

    /// The bounds a kernel that clamps as it stores applies (a convolution's depthwise and
    /// Winograd paths, and its GEMM epilogue): nil for an activation that is not a clamp.
    var clampBounds: (lower: Float, upper: Float)? {
        switch self {
        case .relu: return (0, .infinity)
        case .clamp(let lower, let upper): return (lower, upper)
        default: return nil
        }
    }

    /// The bounds for an optional fused activation that ``ActivationProducer/convolution`` absorbed
    /// (none is the whole line).
    static func bounds(_ activation: Activation?) -> (lower: Float, upper: Float) {
        activation?.clampBounds ?? (-.infinity, .infinity)
    }

    /// What a GEMM applies to each finished block of its product: `rowBias` (one value per row, or
    /// none), then `activation`, which must be nil, have ``clampBounds`` (a ReLU is the GEMM's own,
    /// NaN to 0 as ``relu`` is) or be ``hardSwish(threshold:alpha:beta:)``.
    static func epilogue(_ activation: Activation?, rowBias: UnsafePointer<Float>?) -> ocm_gemm_epilogue {
        if case .hardSwish(let threshold, let alpha, let beta)? = activation {
            return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_HARDSWISH, lo: threshold, hi: 0, col_bias: nil, alpha: alpha, beta: beta)
        }
        if activation == .relu {
            return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_RELU, lo: 0, hi: 0, col_bias: nil, alpha: 0, beta: 0)
        }
        if let (lower, upper) = activation?.clampBounds {
            return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_CLAMP, lo: lower, hi: upper, col_bias: nil, alpha: 0, beta: 0)
        }
        return ocm_gemm_epilogue(row_bias: rowBias, activation: OCM_EPILOGUE_NONE, lo: 0, hi: 0, col_bias: nil, alpha: 0, beta: 0)
    }
}

/// Per-channel parameters lent to one call: `alpha` (PReLU's slopes, parametric softplus's alpha)
/// of `count` values and `beta` of `betaCount` (1: one shared by every channel), the channel
/// changing every `plane` values and repeating every `count` channels (NCHW, the examples of a
/// batch one after another).
package struct ChannelParameters {
    package var alpha: UnsafePointer<Float>
    package var beta: UnsafePointer<Float>?
    package var count: Int
    package var betaCount: Int
    package var plane: Int

    package init(alpha: UnsafePointer<Float>, beta: UnsafePointer<Float>? = nil, count: Int, betaCount: Int = 1, plane: Int) {
        self.alpha = alpha
        self.beta = beta
        self.count = max(count, 1)
        self.betaCount = max(betaCount, 1)
        self.plane = max(plane, 1)
    }

    /// The slot of flat index `index` among `count` per-channel values.
    @inline(__always)
    func slot(_ index: Int, among count: Int) -> Int { count == 1 ? 0 : (index / plane) % count }

    /// The alpha slot of flat index `index`.
    @inline(__always)
    func slot(_ index: Int) -> Int { slot(index, among: count) }

    @inline(__always)
    func values(at index: Int) -> (alpha: Float, beta: Float) {
        (alpha[slot(index)], beta?[slot(index, among: betaCount)] ?? 1)
    }
}
