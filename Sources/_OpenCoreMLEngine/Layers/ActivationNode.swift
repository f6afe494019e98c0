import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

/// The activation functions of Core ML's `activation` layer, forward and backward.
/// PReLU's and parametric softplus's per-channel parameters are trainable.
final class ActivationNode: LayerNode, @unchecked Sendable {
    enum Kind {
        case linear(alpha: Float, beta: Float)
        case relu
        case leakyRelu(alpha: Float)
        case thresholdedRelu(alpha: Float)
        case prelu
        case tanh
        case scaledTanh(alpha: Float, beta: Float)
        case sigmoid
        case sigmoidHard(alpha: Float, beta: Float)
        case elu(alpha: Float)
        case softsign
        case softplus
        case parametricSoftplus
    }

    let kind: Kind
    /// PReLU alpha, or parametric softplus alpha then beta (one per channel, or one shared).
    private var alpha: Parameter?
    private var beta: Parameter?

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_ActivationParams, inputs: [Blob], outputs: [Blob]) throws {
        var alpha: Parameter?, beta: Parameter?
        switch params.nonlinearityType {
        case .linear(let p)?: kind = .linear(alpha: p.alpha, beta: p.beta)
        case .reLu?: kind = .relu
        case .leakyReLu(let p)?: kind = .leakyRelu(alpha: p.alpha)
        case .thresholdedReLu(let p)?: kind = .thresholdedRelu(alpha: p.alpha)
        case .preLu?:
            kind = .prelu
            alpha = try Parameter.required("alpha", of: spec)
        case .tanh?: kind = .tanh
        case .scaledTanh(let p)?: kind = .scaledTanh(alpha: p.alpha, beta: p.beta)
        case .sigmoid?: kind = .sigmoid
        case .sigmoidHard(let p)?: kind = .sigmoidHard(alpha: p.alpha, beta: p.beta)
        case .elu(let p)?: kind = .elu(alpha: p.alpha)
        case .softsign?: kind = .softsign
        case .softplus?: kind = .softplus
        case .parametricSoftplus?:
            kind = .parametricSoftplus
            alpha = try Parameter.required("alpha", of: spec)
            beta = try Parameter.required("beta", of: spec)
        case nil:
            throw EngineError("layer '\(spec.name)' (activation)", "no activation function is set")
        }
        self.alpha = alpha
        self.beta = beta
        super.init(spec, inputs: inputs, outputs: outputs)
        parameters = [alpha, beta].compactMap { $0 }
    }

    /// Whether this is a plain ReLU, which a convolution before it can apply itself.
    var isPlainReLU: Bool {
        if case .relu = kind { return true }
        return false
    }

    /// The per-channel parameter value for flat index `index` of an example-major blob whose
    /// channels repeat every `plane` values, `channels` times.
    @inline(__always)
    private func channelValue(_ parameter: Parameter, _ index: Int, plane: Int, channels: Int) -> (value: Float, slot: Int) {
        if parameter.count == 1 { return (parameter.value.pointer[0], 0) }
        let slot = (index / plane) % channels
        return (parameter.value.pointer[slot], slot)
    }

    /// `(plane, channels)` of the input, for `channelValue`.
    private var channelLayout: (plane: Int, channels: Int) {
        let classic = input.shape.classic, c = classic.channels, h = classic.height, w = classic.width
        return (h * w, c)
    }

    override func forward(batch: Int, training: Bool) {
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer
        let (plane, channels) = channelLayout
        switch kind {
        case .relu: ocm_relu(x, y, n)
        case .leakyRelu(let a): ocm_leaky_relu(x, y, n, a)
        case .sigmoid: ocm_sigmoid(x, y, n)
        case .tanh: ocm_tanh(x, y, n)
        case .linear(let a, let b): for i in 0..<n { y[i] = a * x[i] + b }
        case .thresholdedRelu(let a): for i in 0..<n { y[i] = x[i] > a ? x[i] : 0 }
        case .scaledTanh(let a, let b): for i in 0..<n { y[i] = a * Foundation.tanh(b * x[i]) }
        case .sigmoidHard(let a, let b): for i in 0..<n { y[i] = min(max(a * x[i] + b, 0), 1) }
        case .elu(let a): for i in 0..<n { y[i] = x[i] > 0 ? x[i] : a * (Foundation.exp(x[i]) - 1) }
        case .softsign: for i in 0..<n { y[i] = x[i] / (1 + abs(x[i])) }
        case .softplus: for i in 0..<n { y[i] = Self.softplus(x[i]) }
        case .prelu:
            for i in 0..<n {
                let a = channelValue(alpha!, i, plane: plane, channels: channels).value
                y[i] = x[i] > 0 ? x[i] : a * x[i]
            }
        case .parametricSoftplus:
            for i in 0..<n {
                let a = channelValue(alpha!, i, plane: plane, channels: channels).value, b = channelValue(beta!, i, plane: plane, channels: channels).value
                y[i] = a * Self.softplus(b * x[i])
            }
        }
    }

    private static func softplus(_ v: Float) -> Float {
        v > 20 ? v : Foundation.log1p(Foundation.exp(v))
    }

    private static func logistic(_ v: Float) -> Float { 1 / (1 + Foundation.exp(-v)) }

    override func backward(batch: Int) {
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer, dy = output.gradient.pointer
        let (plane, channels) = channelLayout
        switch kind {
        case .prelu where alpha!.isTrainable:
            let g = alpha!.gradient.pointer
            g.update(repeating: 0, count: alpha!.count)
            for i in 0..<n where x[i] <= 0 { g[channelValue(alpha!, i, plane: plane, channels: channels).slot] += dy[i] * x[i] }
        case .parametricSoftplus:
            if alpha!.isTrainable {
                let g = alpha!.gradient.pointer
                g.update(repeating: 0, count: alpha!.count)
                for i in 0..<n { g[channelValue(alpha!, i, plane: plane, channels: channels).slot] += dy[i] * Self.softplus(channelValue(beta!, i, plane: plane, channels: channels).value * x[i]) }
            }
            if beta!.isTrainable {
                let g = beta!.gradient.pointer
                g.update(repeating: 0, count: beta!.count)
                for i in 0..<n {
                    let a = channelValue(alpha!, i, plane: plane, channels: channels).value, b = channelValue(beta!, i, plane: plane, channels: channels)
                    g[b.slot] += dy[i] * a * x[i] * Self.logistic(b.value * x[i])
                }
            }
        default: break
        }
        guard input.needsGradient else { return }
        setGradient(of: input, count: n) { dx in
            switch kind {
            case .relu: ocm_relu_backward(x, dy, dx, n)
            case .leakyRelu(let a): ocm_leaky_relu_backward(x, dy, dx, n, a)
            case .sigmoid: ocm_sigmoid_backward(y, dy, dx, n)
            case .tanh: ocm_tanh_backward(y, dy, dx, n)
            case .linear(let a, _): for i in 0..<n { dx[i] = a * dy[i] }
            case .thresholdedRelu(let a): for i in 0..<n { dx[i] = x[i] > a ? dy[i] : 0 }
            case .scaledTanh(let a, let b):
                for i in 0..<n {
                    let t = Foundation.tanh(b * x[i])
                    dx[i] = dy[i] * a * b * (1 - t * t)
                }
            case .sigmoidHard(let a, let b):
                for i in 0..<n {
                    let v = a * x[i] + b
                    dx[i] = v > 0 && v < 1 ? a * dy[i] : 0
                }
            case .elu(let a): for i in 0..<n { dx[i] = x[i] > 0 ? dy[i] : dy[i] * (y[i] + a) }
            case .softsign:
                for i in 0..<n {
                    let d = 1 + abs(x[i])
                    dx[i] = dy[i] / (d * d)
                }
            case .softplus: for i in 0..<n { dx[i] = dy[i] * Self.logistic(x[i]) }
            case .prelu:
                for i in 0..<n { dx[i] = x[i] > 0 ? dy[i] : channelValue(alpha!, i, plane: plane, channels: channels).value * dy[i] }
            case .parametricSoftplus:
                for i in 0..<n {
                    let a = channelValue(alpha!, i, plane: plane, channels: channels).value, b = channelValue(beta!, i, plane: plane, channels: channels).value
                    dx[i] = dy[i] * a * b * Self.logistic(b * x[i])
                }
            }
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
