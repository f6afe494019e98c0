import CoreMLSpec

/// The element-wise activation layers. Each one is `Name(name:input:output:)` plus its constants.
protocol ActivationLayer: Layer {
    var input: [String] { get }
    var output: [String] { get }
    func activation() throws -> CoreML_Specification_ActivationParams
}

extension ActivationLayer {
    /// The layer as the format stores it, with its `activation` parameters set.
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
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The slope `alpha` (1 by default) and the offset `beta` (0 by default).
    public let alpha: Float, beta: Float
    /// A linear activation, `alpha · x + beta`; writes the layer's `activation.linear`.
    public init(name: String, input: [String], output: [String], alpha: Float = 1, beta: Float = 0) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.linear.alpha = alpha; $0.linear.beta = beta }
    }
}

/// `max(0, x)`.
public struct ReLu: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// A ReLU activation; writes the layer's `activation.ReLU`.
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.reLu = CoreML_Specification_ActivationReLU() }
    }
}

/// `x` for positive `x`, `alpha · x` otherwise.
public struct LeakyReLu: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The slope for negative inputs (0 by default, which makes it a plain ReLU).
    public let alpha: Float
    /// A leaky ReLU activation; writes the layer's `activation.leakyReLU`.
    public init(name: String, input: [String], output: [String], alpha: Float = 0.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.leakyReLu.alpha = alpha }
    }
}

/// `x` where `x > alpha`, 0 otherwise.
public struct ThresholdedReLu: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The threshold: inputs at or below it give 0 (1 by default).
    public let alpha: Float
    /// A thresholded ReLU activation; writes the layer's `activation.thresholdedReLU`.
    public init(name: String, input: [String], output: [String], alpha: Float = 1.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.thresholdedReLu.alpha = alpha }
    }
}

/// Leaky ReLU with a learned slope per channel (`alpha`: one value per channel, or one for all).
public struct PReLu: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The slopes for negative inputs: one per channel, or one for all (0.25 by default). Not updatable.
    public let alpha: [Float]
    /// A parametric ReLU activation; writes the layer's `activation.PReLU`.
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
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// A hyperbolic-tangent activation; writes the layer's `activation.tanh`.
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.tanh = CoreML_Specification_ActivationTanh() }
    }
}

/// `alpha · tanh(beta · x)`.
public struct ScaledTanh: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The output scale `alpha` and the input scale `beta` (both 1 by default).
    public let alpha: Float, beta: Float
    /// A scaled hyperbolic tangent, `alpha · tanh(beta · x)`; writes the layer's `activation.scaledTanh`.
    public init(name: String, input: [String], output: [String], alpha: Float = 1, beta: Float = 1) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.scaledTanh.alpha = alpha; $0.scaledTanh.beta = beta }
    }
}

/// `1 / (1 + e^−x)`.
public struct Sigmoid: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// A logistic sigmoid activation; writes the layer's `activation.sigmoid`.
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.sigmoid = CoreML_Specification_ActivationSigmoid() }
    }
}

/// `min(max(alpha · x + beta, 0), 1)`.
public struct SigmoidHard: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The slope `alpha` (0.2 by default) and the offset `beta` (0.5 by default) before clipping to 0…1.
    public let alpha: Float, beta: Float
    /// A hard (piecewise-linear) sigmoid; writes the layer's `activation.sigmoidHard`.
    public init(name: String, input: [String], output: [String], alpha: Float = 0.2, beta: Float = 0.5) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.sigmoidHard.alpha = alpha; $0.sigmoidHard.beta = beta }
    }
}

/// `x` for positive `x`, `alpha · (e^x − 1)` otherwise.
public struct Elu: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The scale of the negative part (1 by default).
    public let alpha: Float
    /// An exponential linear unit; writes the layer's `activation.ELU`.
    public init(name: String, input: [String], output: [String], alpha: Float = 1.0) {
        (self.name, self.input, self.output, self.alpha) = (name, input, output, alpha)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.elu.alpha = alpha }
    }
}

/// `x / (1 + |x|)`.
public struct Softsign: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// A softsign activation; writes the layer's `activation.softsign`.
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.softsign = CoreML_Specification_ActivationSoftsign() }
    }
}

/// `log(1 + e^x)`.
public struct Softplus: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// A softplus activation; writes the layer's `activation.softplus`.
    public init(name: String, input: [String], output: [String]) {
        (self.name, self.input, self.output) = (name, input, output)
    }
    func activation() -> CoreML_Specification_ActivationParams {
        makeActivation { $0.softplus = CoreML_Specification_ActivationSoftplus() }
    }
}

/// `alpha · log(1 + e^(beta · x))` with per-channel `alpha` and `beta` (or one value each).
public struct ParametricSoftplus: ActivationLayer {
    /// The layer's name, the blob it reads and the blob it writes.
    public let name: String, input: [String], output: [String]
    /// The per-channel `alpha` and `beta` (one value each for all channels by default, 1 and 1).
    public let alpha: [Float], beta: [Float]
    /// A parametric softplus activation; writes the layer's `activation.parametricSoftplus`.
    public init(name: String, input: [String], output: [String], alpha: [Float] = [1], beta: [Float] = [1]) {
        (self.name, self.input, self.output, self.alpha, self.beta) = (name, input, output, alpha, beta)
    }
    func activation() throws -> CoreML_Specification_ActivationParams {
        let a = try weights(alpha, expected: max(1, alpha.count), what: "alpha", updatable: false)
        let b = try weights(beta, expected: alpha.count, what: "beta", updatable: false)
        return makeActivation { $0.parametricSoftplus.alpha = a; $0.parametricSoftplus.beta = b }
    }
}
