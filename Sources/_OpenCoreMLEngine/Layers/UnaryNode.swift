import CoreMLSpec
import Foundation

/// Core ML's classic `unary` function layer: `y = f(scale·x + shift)` with f one of
/// sqrt, rsqrt `1/√(v + ε)`, inverse `1/(v + ε)`, power `v^α`, exp, log, abs and threshold
/// `max(α, v)`. `scale` defaults to 1 when 0, ε to 1e-6 when 0.
///
/// Outside a function's domain the result follows IEEE arithmetic (NaN or ±∞), as on Core ML's
/// CPU. The gradient of abs at 0 and of threshold at v = α is taken as 0.
final class UnaryNode: LayerNode, @unchecked Sendable {
    typealias Operation = CoreML_Specification_UnaryFunctionLayerParams.Operation

    let operation: Operation
    let alpha: Float, epsilon: Float, shift: Float, scale: Float

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_UnaryFunctionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        operation = params.type
        alpha = params.alpha
        epsilon = params.epsilon == 0 ? 1e-6 : params.epsilon
        shift = params.shift
        scale = params.scale == 0 ? 1 : params.scale
        super.init(spec, inputs: inputs, outputs: outputs)
        if case .UNRECOGNIZED(let value) = operation { throw fail("unknown unary operation \(value)") }
    }

    @inline(__always)
    private func value(_ v: Float) -> Float {
        switch operation {
        case .sqrt: return v.squareRoot()
        case .rsqrt: return 1 / (v + epsilon).squareRoot()
        case .inverse: return 1 / (v + epsilon)
        case .power: return Foundation.pow(v, alpha)
        case .exp: return Foundation.exp(v)
        case .log: return Foundation.log(v)
        case .abs: return Swift.abs(v)
        case .threshold: return Swift.max(alpha, v)
        case .UNRECOGNIZED: return .nan
        }
    }

    /// f′(v), given v and y = f(v).
    @inline(__always)
    private func derivative(_ v: Float, _ y: Float) -> Float {
        switch operation {
        case .sqrt: return 0.5 / y
        case .rsqrt: return -0.5 * y * y * y
        case .inverse: return -y * y
        case .power: return alpha * Foundation.pow(v, alpha - 1)
        case .exp: return y
        case .log: return 1 / v
        case .abs: return v > 0 ? 1 : v < 0 ? -1 : 0
        case .threshold: return v > alpha ? 1 : 0
        case .UNRECOGNIZED: return .nan
        }
    }

    override func forward(batch: Int, training: Bool) {
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer
        for i in 0..<n { y[i] = value(scale * x[i] + shift) }
    }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: n) { dx in
            for i in 0..<n { dx[i] = dy[i] * scale * derivative(scale * x[i] + shift, y[i]) }
        }
    }
}
