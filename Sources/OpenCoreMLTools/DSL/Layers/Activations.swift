import CoreMLSpec

/// The element-wise activation layers. Each one is `Name(name:input:output:)` plus its constants.
protocol ActivationLayer: Layer {
    var input: [String] { get }
    var output: [String] { get }
    func activation() throws -> CoreML_Specification_ActivationParams
}

extension ActivationLayer {
    public func layerSpecification() throws -> CoreML_Specification_NeuralNetworkLayer {
        var layer = try baseSpecification(input: input, output: output)
        layer.activation = try activation()
        return layer
    }
}

private func makeActivation(_ set: (inout CoreML_Specification_ActivationParams) -> Void) -> CoreML_Specification_ActivationParams {
    var params = CoreML_Specification_ActivationParams()
    set(&params)
    return params
}

/// `alpha · x + beta`.
public struct Linear: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float, beta: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 1, beta: Float = 0) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.linear.alpha = alpha; $0.linear.beta = beta }
    }
}

/// `max(0, x)`.
public struct ReLu: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.reLu = CoreML_Specification_ActivationReLU() }
    }
}

/// `x` for positive `x`, `alpha · x` otherwise.
public struct LeakyReLu: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 0.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.leakyReLu.alpha = alpha }
    }
}

/// `x` where `x > alpha`, 0 otherwise.
public struct ThresholdedReLu: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 1.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.thresholdedReLu.alpha = alpha }
    }
}

/// Leaky ReLU with a learned slope per channel (`alpha`: one value per channel, or one for all).
public struct PReLu: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: [Float]
    public init(name: String, input: [String], output: [String], alpha: [Float] = [0.25]) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() throws -> CoreML_Specification_ActivationParams {
        let slopes = try weights(alpha, expected: max(1, alpha.count), what: "alpha", updatable: false)
        return makeActivation { $0.preLu.alpha = slopes }
    }
}

/// `tanh(x)`.
public struct Tanh: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.tanh = CoreML_Specification_ActivationTanh() }
    }
}

/// `alpha · tanh(beta · x)`.
public struct ScaledTanh: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float, beta: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 1, beta: Float = 1) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.scaledTanh.alpha = alpha; $0.scaledTanh.beta = beta }
    }
}

/// `1 / (1 + e^−x)`.
public struct Sigmoid: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.sigmoid = CoreML_Specification_ActivationSigmoid() }
    }
}

/// `min(max(alpha · x + beta, 0), 1)`.
public struct SigmoidHard: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float, beta: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 0.2, beta: Float = 0.5) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.sigmoidHard.alpha = alpha; $0.sigmoidHard.beta = beta }
    }
}

/// `x` for positive `x`, `alpha · (e^x − 1)` otherwise.
public struct Elu: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: Float
    public init(name: String, input: [String], output: [String], alpha: Float = 1.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.elu.alpha = alpha }
    }
}

/// `x / (1 + |x|)`.
public struct Softsign: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.softsign = CoreML_Specification_ActivationSoftsign() }
    }
}

/// `log(1 + e^x)`.
public struct Softplus: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.softplus = CoreML_Specification_ActivationSoftplus() }
    }
}

/// `alpha · log(1 + e^(beta · x))` with per-channel `alpha` and `beta` (or one value each).
public struct ParametricSoftplus: ActivationLayer {
    public let name: String, input: [String], output: [String]
    public let alpha: [Float], beta: [Float]
    public init(name: String, input: [String], output: [String], alpha: [Float] = [1], beta: [Float] = [1]) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() throws -> CoreML_Specification_ActivationParams {
        let a = try weights(alpha, expected: max(1, alpha.count), what: "alpha", updatable: false)
        let b = try weights(beta, expected: alpha.count, what: "beta", updatable: false)
        return makeActivation { $0.parametricSoftplus.alpha = a; $0.parametricSoftplus.beta = b }
    }
}
