/// One weight blob of a layer, as the layer table lists it: its name, where it lives in the layer's
/// message, how many values the layer's declared sizes call for, and whether training changes it.
///
/// `NeuralNetworkLayer.weightBlobs` is the one place that says which blobs a layer has; the
/// validator, the engine, the DSL, model surgery and `inspect` all read it.
public struct LayerWeight: Sendable {
    /// How many values a blob must hold.
    public enum ExpectedCount: Equatable, Sendable {
        /// Exactly this many, fixed by the layer's declared sizes.
        case exactly(Int)
        /// The layer declares no size for the blob, so the input decides when the network is
        /// compiled: PReLU's α and parametric softplus's α and β hold 1 value or one per input
        /// channel; a `bias` or `scale` without a declared shape holds 1, C or C×H×W values.
        case fromInput
        /// The declared sizes multiply past what an `Int` holds: no file can meet them.
        case overflow(sizes: [UInt64])
    }

    /// The name the format gives the blob (`weights`, `bias`, `gamma`, `inputGateWeightMatrix`, …).
    public let name: String
    /// Where the blob lives inside the layer's message; readable and writable.
    public let path: WritableKeyPath<CoreML_Specification_NeuralNetworkLayer, CoreML_Specification_WeightParams> & Sendable
    /// How many values the blob must hold.
    public let expectedCount: ExpectedCount
    /// Whether training changes the blob when it and its layer are updatable (a batch norm's stored
    /// mean and variance and a constant's data never change).
    public let isTrainable: Bool
    /// The flag of the layer that makes the blob present (`hasBias`, `hasBiasVectors`,
    /// `hasPeepholeVectors`); nil when the layer always has it.
    public let flag: String?

    init(
        _ name: String, _ path: WritableKeyPath<CoreML_Specification_NeuralNetworkLayer, CoreML_Specification_WeightParams> & Sendable,
        _ expectedCount: ExpectedCount, trainable: Bool = true, flag: String? = nil
    ) {
        self.name = name
        self.path = path
        self.expectedCount = expectedCount
        isTrainable = trainable
        self.flag = flag
    }
}

extension LayerWeight.ExpectedCount {
    /// The product of `sizes` (1 for none), or `.overflow` when it does not fit in an `Int`.
    static func product(_ sizes: [UInt64]) -> Self {
        checkedProduct(sizes).map(Self.exactly) ?? .overflow(sizes: sizes)
    }

    /// The product of a declared shape, or `.fromInput` when no shape is declared.
    static func declaredShape(_ shape: [UInt64]) -> Self {
        shape.isEmpty ? .fromInput : product(shape)
    }
}

extension CoreML_Specification_NeuralNetworkLayer {
    /// The layer's weight blobs in the format's order, as Core ML reads them: a flag decides whether
    /// an optional blob is there (`hasBias` for convolution, innerProduct, embedding, batchedMatmul
    /// and scale; `hasBiasVectors` and `hasPeepholeVectors` for LSTMs; `computeMeanVar` drops a
    /// batch norm's stored statistics), not whether its message happens to be set. Layers without
    /// weights list none, and so, for now, do the types the engine does not run yet (gru,
    /// simpleRecurrent, biDirectionalLSTM, embeddingND, loadConstantND, layerNormalization,
    /// convolution3d, custom): their weights are not checked.
    ///
    /// A convolution or batchedMatmul with more than one input takes its weights from the second
    /// input, so it lists none.
    public var weightBlobs: [LayerWeight] {
        typealias Count = LayerWeight.ExpectedCount
        switch layer {
        case .convolution(let p)?:
            guard input.count <= 1 else { return [] }
            let groups = Swift.max(p.nGroups, 1)
            let kernel = p.kernelSize.count == 2 ? p.kernelSize : [3, 3]
            let weights: Count = p.isDeconvolution
                ? .product([p.kernelChannels, p.outputChannels / groups] + kernel)
                : .product([p.outputChannels, p.kernelChannels] + kernel)
            return [LayerWeight("weights", \.convolution.weights, weights)]
                + (p.hasBias_p ? [LayerWeight("bias", \.convolution.bias, .product([p.outputChannels]), flag: "hasBias")] : [])
        case .innerProduct(let p)?:
            return [LayerWeight("weights", \.innerProduct.weights, .product([p.inputChannels, p.outputChannels]))]
                + (p.hasBias_p ? [LayerWeight("bias", \.innerProduct.bias, .product([p.outputChannels]), flag: "hasBias")] : [])
        case .embedding(let p)?:
            return [LayerWeight("weights", \.embedding.weights, .product([p.inputDim, p.outputChannels]))]
                + (p.hasBias_p ? [LayerWeight("bias", \.embedding.bias, .product([p.outputChannels]), flag: "hasBias")] : [])
        case .batchedMatmul(let p)?:
            guard input.count <= 1 else { return [] }
            let (rows, columns) = (p.weightMatrixFirstDimension, p.weightMatrixSecondDimension)
            return [LayerWeight("weights", \.batchedMatmul.weights, .product([rows, columns]))]
                + (p.hasBias_p ? [LayerWeight("bias", \.batchedMatmul.bias, .product([columns]), flag: "hasBias")] : [])
        case .batchnorm(let p)?:
            let channels = Count.product([p.channels])
            return [LayerWeight("gamma", \.batchnorm.gamma, channels), LayerWeight("beta", \.batchnorm.beta, channels)]
                + (p.computeMeanVar ? [] : [
                    LayerWeight("mean", \.batchnorm.mean, channels, trainable: false),
                    LayerWeight("variance", \.batchnorm.variance, channels, trainable: false),
                ])
        case .scale(let p)?:
            return [LayerWeight("scale", \.scale.scale, .declaredShape(p.shapeScale))]
                + (p.hasBias_p ? [LayerWeight("bias", \.scale.bias, .declaredShape(p.shapeBias), flag: "hasBias")] : [])
        case .bias(let p)?:
            return [LayerWeight("bias", \.bias.bias, .declaredShape(p.shape))]
        case .loadConstant(let p)?:
            return [LayerWeight("data", \.loadConstant.data, p.shape.count == 3 ? .product(p.shape) : .fromInput, trainable: false)]
        case .activation(let p)?:
            switch p.nonlinearityType {
            case .preLu?: return [LayerWeight("alpha", \.activation.preLu.alpha, .fromInput)]
            case .parametricSoftplus?:
                return [LayerWeight("alpha", \.activation.parametricSoftplus.alpha, .fromInput),
                        LayerWeight("beta", \.activation.parametricSoftplus.beta, .fromInput)]
            default: return []
            }
        case .uniDirectionalLstm(let p)?:
            return Self.lstmWeightBlobs(p)
        default:
            return []
        }
    }

    private static func lstmWeightBlobs(_ p: CoreML_Specification_UniDirectionalLSTMLayerParams) -> [LayerWeight] {
        typealias Path = WritableKeyPath<CoreML_Specification_NeuralNetworkLayer, CoreML_Specification_WeightParams> & Sendable
        let (h, x) = (p.outputVectorSize, p.inputVectorSize)
        let inputMatrix = LayerWeight.ExpectedCount.product([h, x])
        let recursionMatrix = LayerWeight.ExpectedCount.product([h, h])
        let vector = LayerWeight.ExpectedCount.product([h])
        let matrices: [(String, Path, LayerWeight.ExpectedCount)] = [
            ("inputGateWeightMatrix", \.uniDirectionalLstm.weightParams.inputGateWeightMatrix, inputMatrix),
            ("forgetGateWeightMatrix", \.uniDirectionalLstm.weightParams.forgetGateWeightMatrix, inputMatrix),
            ("blockInputWeightMatrix", \.uniDirectionalLstm.weightParams.blockInputWeightMatrix, inputMatrix),
            ("outputGateWeightMatrix", \.uniDirectionalLstm.weightParams.outputGateWeightMatrix, inputMatrix),
            ("inputGateRecursionMatrix", \.uniDirectionalLstm.weightParams.inputGateRecursionMatrix, recursionMatrix),
            ("forgetGateRecursionMatrix", \.uniDirectionalLstm.weightParams.forgetGateRecursionMatrix, recursionMatrix),
            ("blockInputRecursionMatrix", \.uniDirectionalLstm.weightParams.blockInputRecursionMatrix, recursionMatrix),
            ("outputGateRecursionMatrix", \.uniDirectionalLstm.weightParams.outputGateRecursionMatrix, recursionMatrix),
        ]
        let biases: [(String, Path, LayerWeight.ExpectedCount)] = [
            ("inputGateBiasVector", \.uniDirectionalLstm.weightParams.inputGateBiasVector, vector),
            ("forgetGateBiasVector", \.uniDirectionalLstm.weightParams.forgetGateBiasVector, vector),
            ("blockInputBiasVector", \.uniDirectionalLstm.weightParams.blockInputBiasVector, vector),
            ("outputGateBiasVector", \.uniDirectionalLstm.weightParams.outputGateBiasVector, vector),
        ]
        let peepholes: [(String, Path, LayerWeight.ExpectedCount)] = [
            ("inputGatePeepholeVector", \.uniDirectionalLstm.weightParams.inputGatePeepholeVector, vector),
            ("forgetGatePeepholeVector", \.uniDirectionalLstm.weightParams.forgetGatePeepholeVector, vector),
            ("outputGatePeepholeVector", \.uniDirectionalLstm.weightParams.outputGatePeepholeVector, vector),
        ]
        return matrices.map { LayerWeight($0.0, $0.1, $0.2) }
            + (p.params.hasBiasVectors_p ? biases.map { LayerWeight($0.0, $0.1, $0.2, flag: "hasBiasVectors") } : [])
            + (p.params.hasPeepholeVectors_p ? peepholes.map { LayerWeight($0.0, $0.1, $0.2, flag: "hasPeepholeVectors") } : [])
    }

    /// The weight blob named `name`, or nil when the layer has none of that name (a bias whose
    /// `hasBias` flag is off, for one).
    public func weightBlob(named name: String) -> LayerWeight? {
        weightBlobs.first { $0.name == name }
    }

    /// The number of values the layer's weight blobs hold, as stored.
    public var parameterCount: Int {
        weightBlobs.reduce(0) { $0 + self[keyPath: $1.path].count }
    }

    /// Calls `body` on each weight blob the layer has (those `weightBlobs` lists), in place.
    public mutating func forEachWeight(_ body: (LayerWeight, inout CoreML_Specification_WeightParams) throws -> Void) rethrows {
        for blob in weightBlobs {
            try body(blob, &self[keyPath: blob.path])
        }
    }

    /// Layer types whose weights Core ML can update on device.
    public static let coreMLUpdatableLayerTypes: Set<String> = ["convolution", "innerProduct"]
    /// Layer types whose weights OpenCoreML can update; a superset of Core ML's (documented difference).
    public static let updatableLayerTypes: Set<String> = coreMLUpdatableLayerTypes
        .union(["batchnorm", "embedding", "scale", "bias", "uniDirectionalLSTM", "activation", "batchedMatmul"])
}
