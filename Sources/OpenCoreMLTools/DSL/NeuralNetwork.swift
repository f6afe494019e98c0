import CoreMLSpec

/// A neural network: its layers, in order, and — for an updatable model — its losses, optimizer,
/// epochs and shuffling.
///
/// ```swift
/// NeuralNetwork(losses: [CategoricalCrossEntropy(name: "lossLayer", input: "output", target: "output_true")],
///               optimizer: Adam(learningRateDefault: 1e-4, miniBatchSizeDefault: 128),
///               epochDefault: 10, epochSet: [10], shuffle: true) {
///     InnerProduct(name: "dense", input: ["features"], output: ["logits"], inputChannels: 4, outputChannels: 3, updatable: true)
///     Softmax(name: "softmax", input: ["logits"], output: ["output"])
/// }
/// ```
///
/// `epochRange` (instead of `epochSet`), `seed` (the shuffling seed) and `preprocessing` (image
/// scale and bias) are OpenCoreML additions.
public struct NeuralNetwork: ModelItem {
    public var losses: [any Loss]?
    public var optimizer: (any Optimizer)?
    public var epochDefault: UInt?
    public var epochSet: [UInt]?
    public var epochRange: ClosedRange<UInt>?
    public var shuffle: Bool?
    public var seed: UInt?
    public var preprocessing: [ImagePreprocessing]
    public var layers: [any Layer]

    public init(losses: [any Loss]? = nil, optimizer: (any Optimizer)? = nil, epochDefault: UInt? = nil, epochSet: [UInt]? = nil,
                epochRange: ClosedRange<UInt>? = nil, shuffle: Bool? = nil, seed: UInt? = nil,
                preprocessing: [ImagePreprocessing] = [], @LayerBuilder _ layers: () -> [any Layer]) {
        self.losses = losses
        self.optimizer = optimizer
        self.epochDefault = epochDefault
        self.epochSet = epochSet
        self.epochRange = epochRange
        self.shuffle = shuffle
        self.seed = seed
        self.preprocessing = preprocessing
        self.layers = layers()
    }

    /// A network without layers yet; add them with `addLayer(_:)`.
    public init(losses: [any Loss]? = nil, optimizer: (any Optimizer)? = nil, epochDefault: UInt? = nil, epochSet: [UInt]? = nil,
                epochRange: ClosedRange<UInt>? = nil, shuffle: Bool? = nil, seed: UInt? = nil, preprocessing: [ImagePreprocessing] = []) {
        self.init(losses: losses, optimizer: optimizer, epochDefault: epochDefault, epochSet: epochSet, epochRange: epochRange,
                  shuffle: shuffle, seed: seed, preprocessing: preprocessing) {}
    }

    public mutating func addLayer(_ layer: any Layer) {
        layers.append(layer)
    }

    /// Whether the network declares losses, which makes the model updatable.
    var isUpdatable: Bool { !(losses ?? []).isEmpty }

    /// The layers as the format stores them.
    func layerSpecifications() throws -> [CoreML_Specification_NeuralNetworkLayer] {
        guard !layers.isEmpty else { throw ModelToolsError("NeuralNetwork", "the network has no layers") }
        return try layers.map { try $0.layerSpecification() }
    }

    /// The update parameters, or nil for a network that is not trained on device.
    func updateParameters() throws -> CoreML_Specification_NetworkUpdateParameters? {
        guard let losses, !losses.isEmpty else {
            if optimizer != nil || epochDefault != nil {
                throw ModelToolsError("NeuralNetwork", "an optimizer or epochs are given but no loss; an updatable network needs losses")
            }
            return nil
        }
        let location = "NeuralNetwork"
        guard let optimizer else { throw ModelToolsError(location, "an updatable network needs an optimizer (SGD or Adam)") }
        guard let epochDefault else { throw ModelToolsError(location, "an updatable network needs epochDefault") }
        var parameters = CoreML_Specification_NetworkUpdateParameters()
        parameters.lossLayers = losses.map(\.lossSpecification)
        do {
            parameters.optimizer = try optimizer.optimizerSpecification()
        } catch let error as ModelToolsError {
            throw ModelToolsError("\(location) › optimizer › \(error.location)", error.message)
        }
        switch (epochSet, epochRange) {
        case (let set?, nil): parameters.epochs = try .parameter("\(location) › epochs", epochDefault, allowed: set)
        case (nil, let range?): parameters.epochs = try .parameter("\(location) › epochs", epochDefault, range: range)
        case (nil, nil): parameters.epochs = try .parameter("\(location) › epochs", epochDefault, range: 1...max(epochDefault, 1000))
        case (_?, _?): throw ModelToolsError(location, "give epochSet or epochRange, not both")
        }
        parameters.shuffle.defaultValue = shuffle ?? true
        if let seed { parameters.seed.defaultValue = Int64(seed) }
        return parameters
    }
}

/// Scale and bias applied to an image input before the first layer:
/// `scale · pixel + bias` per channel (Core ML's `NeuralNetworkImageScaler`).
public struct ImagePreprocessing: Equatable, Sendable {
    public var featureName: String
    public var scale: Float
    public var redBias: Float
    public var greenBias: Float
    public var blueBias: Float
    public var grayBias: Float

    public init(featureName: String, scale: Float = 1, redBias: Float = 0, greenBias: Float = 0, blueBias: Float = 0, grayBias: Float = 0) {
        self.featureName = featureName
        self.scale = scale
        self.redBias = redBias
        self.greenBias = greenBias
        self.blueBias = blueBias
        self.grayBias = grayBias
    }

    var specification: CoreML_Specification_NeuralNetworkPreprocessing {
        var step = CoreML_Specification_NeuralNetworkPreprocessing()
        step.featureName = featureName
        step.scaler.channelScale = scale
        step.scaler.redBias = redBias
        step.scaler.greenBias = greenBias
        step.scaler.blueBias = blueBias
        step.scaler.grayBias = grayBias
        return step
    }
}
