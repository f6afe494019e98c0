import Foundation
import _OpenCoreMLKernels

extension Activation {
    /// The input's gradient `dx = dy·f′(x)` over `count` values, from the forward's input `x`,
    /// output `y` and the output gradient `dy` (the classic trainer's backward).
    func backward(x: UnsafePointer<Float>, y: UnsafePointer<Float>, dy: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>,
                  count n: Int, channels: ChannelParameters? = nil) {
        switch self {
        case .relu: ocm_relu_backward(x, dy, dx, n)
        case .clamp(let lower, let upper):
            // Passed where the input lies inside the bounds, bounds included (as the clip layer
            // differentiates it; `fusedBackward` tests the output strictly instead).
            for i in 0..<n { dx[i] = x[i] >= lower && x[i] <= upper ? dy[i] : 0 }
        case .leakyReLU(let a): ocm_leaky_relu_backward(x, dy, dx, n, a)
        case .sigmoid: ocm_sigmoid_backward(y, dy, dx, n)
        case .tanh: ocm_tanh_backward(y, dy, dx, n)
        case .prelu:
            guard let channels else { return ocm_relu_backward(x, dy, dx, n) }
            ocm_prelu_backward(x, dy, dx, n, channels.alpha, channels.count, channels.plane)
        case .elu(let a): for i in 0..<n { dx[i] = x[i] > 0 ? dy[i] : dy[i] * (y[i] + a) }
        default:
            for i in 0..<n {
                let (a, b) = channels?.values(at: i) ?? (0, 1)
                dx[i] = dy[i] * derivative(x[i], y[i], alpha: a, beta: b)
            }
        }
    }

    /// f′ at `x`, whose value is `y`; per-channel parameters `alpha`, `beta`.
    @inline(__always)
    package func derivative(_ x: Float, _ y: Float, alpha channelAlpha: Float = 0, beta channelBeta: Float = 1) -> Float {
        switch self {
        case .relu: return x > 0 ? 1 : 0
        case .clamp(let lower, let upper): return x >= lower && x <= upper ? 1 : 0
        case .leakyReLU(let alpha): return x > 0 ? 1 : alpha
        case .prelu: return x > 0 ? 1 : channelAlpha
        case .linear(let alpha, _): return alpha
        case .clampedReLU(let alpha, let beta): return y >= beta ? 0 : x >= 0 ? 1 : alpha
        case .thresholdedReLU(let alpha, let inclusive): return (inclusive ? x >= alpha : x > alpha) ? 1 : 0
        case .tanh: return 1 - y * y
        case .scaledTanh(let alpha, let beta):
            let t = Foundation.tanh(beta * x)
            return alpha * beta * (1 - t * t)
        case .sigmoid: return y * (1 - y)
        case .sigmoidHard(let alpha, let beta):
            let v = alpha * x + beta
            return v > 0 && v < 1 ? alpha : 0
        case .elu(let alpha): return x > 0 ? 1 : y + alpha
        case .softsign:
            let d = 1 + abs(x)
            return 1 / (d * d)
        case .softplus: return Self.logistic(x)
        case .parametricSoftplus: return channelAlpha * channelBeta * Self.logistic(channelBeta * x)
        case .silu:
            let s = Self.logistic(x)
            return s * (1 + x * (1 - s))
        case .gelu(.exact):
            let phi = Foundation.exp(-0.5 * x * x) * 0.39894228040143268
            return 0.5 * (1 + Foundation.erf(x * 0.70710678118654752)) + x * phi
        case .gelu(.tanhApproximation):
            let c: Float = 0.79788456080286536, u = c * (x + 0.044715 * x * x * x), t = Foundation.tanh(u)
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)
        case .gelu(.sigmoidApproximation):
            let s = Self.logistic(1.702 * x)
            return s * (1 + 1.702 * x * (1 - s))
        case .hardSwish(let threshold, let alpha, let beta):
            // d/dx x·g(x) = g(x) + x·g′(x) above the threshold, g the hard sigmoid; 0 below it.
            guard x > threshold else { return 0 }
            let v = alpha * x + beta
            return min(max(v, 0), 1) + (v > 0 && v < 1 ? x * alpha : 0)
        }
    }

    /// The gradient of the parameters of a per-channel activation, summed per channel into
    /// `alphaGradient` and `betaGradient` (`channels.count` and `betaCount` values, overwritten;
    /// either may be nil).
    func parameterGradients(x: UnsafePointer<Float>, dy: UnsafePointer<Float>, count n: Int, channels: ChannelParameters,
                            alphaGradient: UnsafeMutablePointer<Float>?, betaGradient: UnsafeMutablePointer<Float>?) {
        alphaGradient?.update(repeating: 0, count: channels.count)
        betaGradient?.update(repeating: 0, count: channels.betaCount)
        switch self {
        case .prelu:
            guard let g = alphaGradient else { return }
            for i in 0..<n where x[i] <= 0 { g[channels.slot(i)] += dy[i] * x[i] }
        case .parametricSoftplus:
            for i in 0..<n {
                let (a, b) = channels.values(at: i)
                alphaGradient?[channels.slot(i)] += dy[i] * Self.softplus(b * x[i])
                betaGradient?[channels.slot(i, among: channels.betaCount)] += dy[i] * a * x[i] * Self.logistic(b * x[i])
            }
        default: return
        }
    }

    /// Whether f′ follows from the output alone, so that an activation fused into the layer before
    /// it needs no copy of its input to train: a clamp (see ``fusedBackward(output:gradient:into:count:)``),
    /// and the activations whose derivative read at the output is the derivative at the input —
    /// ReLU, leaky ReLU and ELU whose output is positive exactly where the input is (a slope or
    /// scale not negative), sigmoid and tanh (written in the output), linear (constant).
    var differentiatesFromOutput: Bool {
        switch self {
        case .relu, .clamp, .sigmoid, .tanh, .linear: return true
        case .leakyReLU(let alpha): return alpha >= 0
        case .elu(let alpha): return alpha >= 0
        default: return false
        }
    }

    /// The gradient before an activation fused into the layer before it, from the activation's
    /// `output` alone (the input is never written), for one that ``differentiatesFromOutput``: a
    /// clamp passes it where the output lies strictly inside the bounds (the clip layer itself
    /// tests its input inclusively; the two differ only for inputs exactly on a bound); the others
    /// are differentiated at the output in place of the input, which gives the same values.
    func fusedBackward(output: UnsafePointer<Float>, gradient: UnsafePointer<Float>, into dx: UnsafeMutablePointer<Float>, count: Int) {
        if let (lower, upper) = clampBounds, self != .relu {
            ocm_clamp_backward(output, gradient, dx, count, lower, upper)
        } else {
            backward(x: output, y: output, dy: gradient, into: dx, count: count)
        }
    }
}
