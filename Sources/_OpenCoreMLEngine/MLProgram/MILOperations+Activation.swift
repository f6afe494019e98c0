import _OpenCoreMLKernels

/// The ML Program's activation operations: each an ``Activation`` read from its constant
/// arguments, run by ``MILOperations/map(_:)`` on the C kernels into the run's pool. `relu` is a
/// clamp to [0, ∞) here (NaN stays NaN, as the opsets' `max(x, 0)` on Core ML's CPU gives), where
/// the classic ReLU layer turns NaN to 0. Also `rsqrt` and `log`, functions of `x + epsilon`.
extension MILOperations {
    static let activations: [String: Make] = {
        var table: [String: Make] = [
            "rsqrt": withEpsilon(1e-12) { .rsqrt(epsilon: $0) },
            // The opsets' default epsilon for log, 1e-45, is float32's smallest positive value.
            "log": withEpsilon(.leastNonzeroMagnitude) { .log(epsilon: $0) },
            "inverse": withEpsilon(1e-4) { .inverse(epsilon: $0) },
            "threshold": { arguments, outputs, context in
                guard let alpha = try constantFloat(arguments, "alpha", context) else { throw context.fail("threshold needs a constant alpha") }
                return try function(.threshold(alpha))(arguments, outputs, context)
            },
            "prelu": prelu,
            "softplus_parametric": softplusParametric,
        ]
        for type in ["relu", "relu6", "clip", "sigmoid", "tanh", "gelu", "silu", "softplus", "softsign", "leaky_relu", "elu",
                     "thresholded_relu", "sigmoid_hard", "scaled_tanh", "linear_activation", "clamped_relu"] {
            table[type] = { arguments, outputs, context in
                let activation = try Activation(milType: type, arguments, context)
                return try map { x, y, count, _ in activation.forward(x, y, count: count) }(arguments, outputs, context)
            }
        }
        return table
    }()

    /// A function of `x + epsilon`, epsilon an optional constant.
    static func withEpsilon(_ standard: Float, _ function: @escaping @Sendable (Float) -> UnaryFunction) -> Make {
        { arguments, outputs, context in
            let epsilon = try constantFloat(arguments, "epsilon", context) ?? standard
            return try MILOperations.function(function(epsilon))(arguments, outputs, context)
        }
    }

    /// `prelu`: x of rank 3 or more, `[B, C, …]`, and one constant slope per channel in `alpha` (`[C]`).
    static let prelu: Make = { arguments, outputs, context in
        guard let alpha = try constantTensor(arguments, "alpha", context), alpha.count > 0 else { throw context.fail("prelu needs a constant alpha") }
        return try perChannel(.prelu, alpha: alpha.values, beta: [1])(arguments, outputs, context)
    }

    /// `softplus_parametric`: `alpha·log(1 + exp(beta·x))`, alpha and beta constants of one value per channel.
    static let softplusParametric: Make = { arguments, outputs, context in
        guard let alpha = try constantTensor(arguments, "alpha", context), let beta = try constantTensor(arguments, "beta", context),
              alpha.count > 0, beta.count > 0 else {
            throw context.fail("softplus_parametric needs constant alpha and beta")
        }
        return try perChannel(.parametricSoftplus, alpha: alpha.values, beta: beta.values)(arguments, outputs, context)
    }

    /// A per-channel activation over `x`'s axis 1 (`[B, C, …]`), `alpha` and `beta` one value per
    /// channel (or one shared).
    static func perChannel(_ activation: Activation, alpha: [Float], beta: [Float]) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            return { slots in
                let input = fetch(x, slots)
                guard input.shape.count >= 2 else { throw context.fail("x \(input.shape) has no channel axis (rank 2 or more needed)") }
                let channels = input.shape[1], plane = input.shape.dropFirst(2).reduce(1, *)
                for parameter in [alpha, beta] where parameter.count != 1 && parameter.count != channels {
                    throw context.fail("\(parameter.count) per-channel values for \(channels) channels")
                }
                var values = try slots.unfilledBuffer(input.shape, context)
                if !values.isEmpty {
                    alpha.withUnsafeBufferPointer { a in
                        beta.withUnsafeBufferPointer { b in
                            let parameters = ChannelParameters(alpha: a.baseAddress!, beta: b.baseAddress!, count: a.count, betaCount: b.count, plane: plane)
                            input.values.withUnsafeBufferPointer { x in
                                values.withUnsafeMutableBufferPointer { y in
                                    activation.forward(x.baseAddress!, y.baseAddress!, count: y.count, channels: parameters)
                                }
                            }
                        }
                    }
                }
                slots[outputs[0]] = MILTensor(shape: input.shape, values: values)
            }
        }
    }
}

extension Activation {
    /// The activation of the ML Program operation type `type` whose parameters are the constants
    /// in `arguments` (an error for a type that is not one of these activations).
    init(milType type: String, _ arguments: MILOperations.Arguments, _ context: OperationContext) throws {
        /// A constant parameter the operation needs.
        func required(_ name: String) throws -> Float {
            guard let value = try MILOperations.constantFloat(arguments, name, context) else { throw context.fail("\(type) needs a constant \(name)") }
            return value
        }
        /// Constant `alpha` and `beta`, both needed.
        func alphaAndBeta() throws -> (Float, Float) {
            guard let alpha = try MILOperations.constantFloat(arguments, "alpha", context),
                  let beta = try MILOperations.constantFloat(arguments, "beta", context) else {
                throw context.fail("\(type) needs constant alpha and beta")
            }
            return (alpha, beta)
        }
        // gelu's mode, when given, is read below.
        if type != "gelu", let activation = Activation(parameterlessMILType: type) {
            self = activation
            return
        }
        switch type {
        case "clip":
            let (lower, upper) = try alphaAndBeta()
            self = .clamp(lower: lower, upper: upper)
        case "gelu":
            switch try MILOperations.constantString(arguments, "mode", context) ?? "EXACT" {
            case "EXACT": self = .gelu(.exact)
            case "TANH_APPROXIMATION": self = .gelu(.tanhApproximation)
            case "SIGMOID_APPROXIMATION": self = .gelu(.sigmoidApproximation)
            case let mode: throw context.fail("gelu's mode '\(mode)' is not one of EXACT, TANH_APPROXIMATION, SIGMOID_APPROXIMATION")
            }
        case "leaky_relu": self = .leakyReLU(alpha: try required("alpha"))
        case "elu": self = .elu(alpha: try required("alpha"))
        case "thresholded_relu": self = .thresholdedReLU(alpha: try required("alpha"), inclusive: true)
        case "sigmoid_hard":
            let (alpha, beta) = try alphaAndBeta()
            self = .sigmoidHard(alpha: alpha, beta: beta)
        case "scaled_tanh":
            let (alpha, beta) = try alphaAndBeta()
            self = .scaledTanh(alpha: alpha, beta: beta)
        case "clamped_relu":
            let (alpha, beta) = try alphaAndBeta()
            self = .clampedReLU(alpha: alpha, beta: beta)
        case "linear_activation": self = .linear(alpha: try required("alpha"), beta: try MILOperations.constantFloat(arguments, "beta", context) ?? 0)
        default: throw context.fail("'\(type)' is not an activation")
        }
    }

    /// The activation of an ML Program operation type that takes no argument but `x` (nil for
    /// any other type): the activations a producer may run itself (``ActivationProducer``).
    init?(parameterlessMILType type: String) {
        switch type {
        case "relu": self = .clamp(lower: 0, upper: .infinity)
        case "relu6": self = .clamp(lower: 0, upper: 6)
        case "sigmoid": self = .sigmoid
        case "tanh": self = .tanh
        case "silu": self = .silu
        case "softplus": self = .softplus
        case "softsign": self = .softsign
        case "gelu": self = .gelu(.exact)
        default: return nil
        }
    }
}
