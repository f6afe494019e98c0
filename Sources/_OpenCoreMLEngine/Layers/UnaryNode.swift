import CoreMLSpec
import _OpenCoreMLKernels

/// Core ML's classic `unary` function layer: `y = f(scale·x + shift)` with f one of
/// sqrt, rsqrt `1/√(v + ε)`, inverse `1/(v + ε)`, power `v^α`, exp, log `log(v + ε)`, abs and
/// threshold `max(α, v)` (a ``UnaryFunction``). `scale` defaults to 1 when 0, ε to 1e-6 when 0
/// (for log: 0, so that a layer without ε is `log(v)`; coremltools writes 1e-45 or the MIL
/// `log`'s epsilon, and its tests expect `log(v + ε)` of Core ML).
///
/// Outside a function's domain the result follows IEEE arithmetic (NaN or ±∞), as on Core ML's
/// CPU. The gradient of abs at 0 and of threshold at v = α is taken as 0.
final class UnaryNode: LayerNode, @unchecked Sendable {
    let function: UnaryFunction
    let shift: Float, scale: Float

    init(_ spec: CoreML_Specification_NeuralNetworkLayer, _ params: CoreML_Specification_UnaryFunctionLayerParams, inputs: [Blob], outputs: [Blob]) throws {
        let function = Self.function(params)
        self.function = function ?? .abs
        shift = params.shift
        scale = params.scale == 0 ? 1 : params.scale
        super.init(spec, inputs: inputs, outputs: outputs)
        if case .UNRECOGNIZED(let value) = params.type { throw fail("unknown unary operation \(value)") }
    }

    /// The function `params` names, nil for an unknown one.
    private static func function(_ params: CoreML_Specification_UnaryFunctionLayerParams) -> UnaryFunction? {
        let epsilon = params.epsilon == 0 ? 1e-6 : params.epsilon
        switch params.type {
        case .sqrt: return .sqrt
        case .rsqrt: return .rsqrt(epsilon: epsilon)
        case .inverse: return .inverse(epsilon: epsilon)
        case .power: return .power(params.alpha)
        case .exp: return .exp
        case .log: return .log(epsilon: params.epsilon)
        case .abs: return .abs
        case .threshold: return .threshold(params.alpha)
        case .UNRECOGNIZED: return nil
        }
    }

    override func forward(batch: Int, training: Bool) {
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer
        if scale == 1 && shift == 0 {
            function.forward(x, y, count: n)
        } else {
            ocm_unary(OCM_UNARY_AFFINE, x, y, n, scale, shift)
            function.forward(y, y, count: n)
        }
    }

    override var hasBackward: Bool { true }

    override func backward(batch: Int) {
        guard input.needsGradient else { return }
        let n = batch * input.shape.count
        let x = input.value.pointer, y = output.value.pointer, dy = output.gradient.pointer
        setGradient(of: input, count: n) { dx in
            for i in 0..<n { dx[i] = dy[i] * scale * function.derivative(scale * x[i] + shift, y[i]) }
        }
    }
}
