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
    /// The losses that make the network updatable; nil or empty for a network that is only run.
    /// Writes `updateParams.lossLayers`.
    public var losses: [any Loss]?
    /// The optimizer, ``SGD`` or ``Adam``; required when there are losses. Writes `updateParams.optimizer`.
    public var optimizer: (any Optimizer)?
    /// The default number of epochs; required when there are losses. Writes `updateParams.epochs`.
    public var epochDefault: UInt?
    /// The epoch counts an app may choose; give this or ``epochRange``, not both.
    public var epochSet: [UInt]?
    /// The range of epoch counts an app may choose (an OpenCoreML addition). With neither this nor
    /// ``epochSet``, 1 to the larger of `epochDefault` and 1000.
    public var epochRange: ClosedRange<UInt>?
    /// Whether training reshuffles the examples every epoch; nil for true. Writes `updateParams.shuffle`.
    public var shuffle: Bool?
    /// The shuffling seed (an OpenCoreML addition); nil leaves it unset. Writes `updateParams.seed`.
    public var seed: UInt?
    /// Scale and bias for image inputs (an OpenCoreML addition). Writes the network's `preprocessing`.
    public var preprocessing: [ImagePreprocessing]
    /// How multi-array inputs are read: `.rank5ArrayMapping` (Core ML's default, the classic
    /// `[Seq, Batch, C, H, W]` view) or `.exactArrayMapping` (their own ranks, for the rank-N layers
    /// of iOS 13 and later). Writes `arrayInputShapeMapping`.
    public var arrayInputShapeMapping: CoreML_Specification_NeuralNetworkMultiArrayShapeMapping = .rank5ArrayMapping
    /// How image inputs are read: `.rank5ImageMapping` (the default) or `.rank4ImageMapping`
    /// (`[1, C, H, W]`). Writes `imageInputShapeMapping`.
    public var imageInputShapeMapping: CoreML_Specification_NeuralNetworkImageShapeMapping = .rank5ImageMapping
    /// The layers, in the order they run.
    public var layers: [any Layer]

    /// A network whose layers come from the builder.
    ///
    /// - Parameters:
    ///   - losses: The losses of an updatable network; nil for one that is only run.
    ///   - optimizer: The optimizer, required with losses.
    ///   - epochDefault: The default number of epochs, required with losses.
    ///   - epochSet: The epoch counts an app may choose.
    ///   - epochRange: The range of epoch counts an app may choose, instead of `epochSet`.
    ///   - shuffle: Whether training reshuffles the examples every epoch; nil for true.
    ///   - seed: The shuffling seed.
    ///   - preprocessing: Scale and bias for image inputs.
    ///   - arrayInputShapeMapping: How multi-array inputs are read (rank 5, Core ML's default, or exact).
    ///   - imageInputShapeMapping: How image inputs are read (rank 5, the default, or rank 4).
    ///   - layers: The layers, in the order they run.
    public init(losses: [any Loss]? = nil, optimizer: (any Optimizer)? = nil, epochDefault: UInt? = nil, epochSet: [UInt]? = nil,
                epochRange: ClosedRange<UInt>? = nil, shuffle: Bool? = nil, seed: UInt? = nil,
                preprocessing: [ImagePreprocessing] = [],
                arrayInputShapeMapping: CoreML_Specification_NeuralNetworkMultiArrayShapeMapping = .rank5ArrayMapping,
                imageInputShapeMapping: CoreML_Specification_NeuralNetworkImageShapeMapping = .rank5ImageMapping,
                @LayerBuilder _ layers: () -> [any Layer]) {
        self.arrayInputShapeMapping = arrayInputShapeMapping
        self.imageInputShapeMapping = imageInputShapeMapping
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

    /// Appends a layer.
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
    /// The image input it applies to.
    public var featureName: String
    /// The factor every pixel value (0…255) is multiplied by, such as 1/255. Writes `channelScale`.
    public var scale: Float
    /// Added to the red channel after scaling.
    public var redBias: Float
    /// Added to the green channel after scaling.
    public var greenBias: Float
    /// Added to the blue channel after scaling.
    public var blueBias: Float
    /// Added to a grayscale image's only channel after scaling.
    public var grayBias: Float

    /// Preprocessing for the image input `featureName`; by default the pixel values pass unchanged.
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
