import Foundation
import _OpenCoreMLKernels

/// Elementwise activations and functions with constant parameters: GELU in its three modes,
/// SiLU, leaky ReLU, ELU, softplus, hard sigmoid, thresholded ReLU, rsqrt and log.
extension MILOperations {
    static let activations: [String: Make] = [
        "gelu": gelu,
        "silu": unary { $0 / (1 + exp(-$0)) },
        "softplus": unary { max($0, 0) + log1p(exp(-abs($0))) },
        "leaky_relu": withAlpha("leaky_relu") { alpha in { $0 >= 0 ? $0 : alpha * $0 } },
        "elu": withAlpha("elu") { alpha in { $0 > 0 ? $0 : alpha * (exp($0) - 1) } },
        "thresholded_relu": withAlpha("thresholded_relu") { alpha in { $0 >= alpha ? $0 : 0 } },
        "sigmoid_hard": sigmoidHard,
        "rsqrt": withEpsilon(1e-12) { epsilon in { 1 / ($0 + epsilon).squareRoot() } },
        // The opsets' default epsilon for log, 1e-45, is float32's smallest positive value.
        "log": withEpsilon(.leastNonzeroMagnitude) { epsilon in { Foundation.log($0 + epsilon) } },
    ]

    /// An activation whose function depends on the constant `alpha` (required by every opset).
    static func withAlpha(_ type: String, _ function: @escaping @Sendable (Float) -> @Sendable (Float) -> Float) -> Make {
        { arguments, outputs, context in
            guard let alpha = try constantFloat(arguments, "alpha", context) else { throw context.fail("\(type) needs a constant alpha") }
            return try unary(function(alpha))(arguments, outputs, context)
        }
    }

    /// A function of `x + epsilon`, epsilon an optional constant.
    static func withEpsilon(_ standard: Float, _ function: @escaping @Sendable (Float) -> @Sendable (Float) -> Float) -> Make {
        { arguments, outputs, context in
            let epsilon = try constantFloat(arguments, "epsilon", context) ?? standard
            return try unary(function(epsilon))(arguments, outputs, context)
        }
    }

    /// `min(max(alpha·x + beta, 0), 1)`.
    static let sigmoidHard: Make = { arguments, outputs, context in
        guard let alpha = try constantFloat(arguments, "alpha", context), let beta = try constantFloat(arguments, "beta", context) else {
            throw context.fail("sigmoid_hard needs constant alpha and beta")
        }
        return try unary { min(max(alpha * $0 + beta, 0), 1) }(arguments, outputs, context)
    }

    /// GELU: `EXACT` (with erf, the default), `TANH_APPROXIMATION` or `SIGMOID_APPROXIMATION`.
    static let gelu: Make = { arguments, outputs, context in
        let mode = try constantString(arguments, "mode", context) ?? "EXACT"
        let kernelMode: Int32
        switch mode {
        case "EXACT": kernelMode = OCM_GELU_EXACT
        case "TANH_APPROXIMATION": kernelMode = OCM_GELU_TANH
        case "SIGMOID_APPROXIMATION": kernelMode = OCM_GELU_SIGMOID
        default:
            throw context.fail("gelu's mode '\(mode)' is not one of EXACT, TANH_APPROXIMATION, SIGMOID_APPROXIMATION")
        }
        let x = try argument(arguments, "x", context)
        // By the C kernel (vectorised erf, tanh and exp), threaded when large.
        return { slots in
            let input = fetch(x, slots)
            var values = try slots.unfilledBuffer(input.shape, context)
            ocm_gelu(input.values, &values, values.count, kernelMode)
            slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
        }
    }
}
