import CoreMLSpec
import OpenCoreMLTools

/// Turi Create's activity-classifier network, written once for its three uses:
///
///     features → permute → convolution (64 filters, kernel = stride = prediction window) → ReLU
///       → [dropout 0.2] → LSTM 200 (one output per window) → dense 128 → batchnorm (ε 1e-3) → ReLU
///       → [dropout 0.5] → dense K (no bias) → softmax
///
/// - ``Variant/training``: a chunk of `steps` windows per example (`[steps, 1, 1, window, F]`),
///   batch-statistics batchnorm, a cross-entropy loss per window on the `target` blob. The dropouts
///   (in brackets) and the per-window weights are training-graph extras, not layers.
/// - ``Variant/chunk``: the same input, inference only, batchnorm with stored statistics; the trainer
///   predicts chunk by chunk with it, the LSTM starting from zeros at every chunk as Turi's does.
/// - ``Variant/export``: the book's `GestureClassifier` interface (Turi Create 5): `features`
///   `[1, window, F]` doubles and the optional states `hiddenIn` / `cellIn` `[200]` in; the label,
///   its probabilities, `hiddenOut` and `cellOut` out. Updatable (convolution, LSTM and both dense
///   layers; Adam), which neither Turi Create nor Create ML offers.
///
/// Every variant has the same layer names and weight shapes, so weights move between them with
/// `Network.store(in:)`. The builder's initial weights (Glorot-uniform seeded by each layer's name,
/// the LSTM's forget-gate bias 1) are replaced in training by Turi Create's, drawn from the seed
/// (``ActivityTrainer/initialize(_:featureCount:predictionWindow:classCount:seed:)``).
enum ActivityNetwork {
    static let convolutionFilters = 64
    static let lstmSize = 200
    static let denseSize = 128
    static let batchNormEpsilon: Float = 1e-3
    /// Dropout rate by the blob it follows (training only).
    static let dropout: [String: Float] = ["lstm_in": 0.2, "dense1_in": 0.5]
    static let learningRate = 1e-3

    static let featuresName = "features"
    static let hiddenIn = "hiddenIn", cellIn = "cellIn", hiddenOut = "hiddenOut", cellOut = "cellOut"
    /// The training graph's per-window class indices and loss weights.
    static let targetName = "target", weightsName = "weights", lossName = "loss"
    static let batchNormLayer = "bn_layer", batchNormInput = "bn_in"
    static let outputLayer = "dense_layer1"

    enum Variant {
        case training(steps: Int)
        case chunk(steps: Int)
        case export
    }

    /// The Core ML model of `variant`. `labelName` names the label output (`<labelName>Probability`
    /// holds the probabilities); `statistics`, the batchnorm's mean and variance (chunk and export).
    static func specification(
        _ variant: Variant, featureCount: Int, predictionWindow window: Int, labels: [String], labelName: String,
        statistics: (mean: [Float], variance: [Float])? = nil, userDefined: [String: String] = [:]
    ) throws -> CoreML_Specification_Model {
        let (f, w, k) = (UInt(featureCount), UInt(window), UInt(labels.count))
        let probabilities = labelName + "Probability"
        let exported: Bool, steps: UInt
        switch variant {
        case .training(let s): (exported, steps) = (false, UInt(s))
        case .chunk(let s): (exported, steps) = (false, UInt(s))
        case .export: (exported, steps) = (true, 1)
        }
        let training: Bool
        if case .training = variant { training = true } else { training = false }
        let trainable = training || exported

        let lstmInputs = exported ? ["lstm_in", hiddenIn, cellIn] : ["lstm_in"]
        let network = NeuralNetwork(
            losses: training || exported ? [CategoricalCrossEntropy(name: lossName, input: probabilities, target: exported ? labelName : targetName)] : nil,
            optimizer: training || exported ? Adam(learningRateDefault: learningRate, miniBatchSizeDefault: 32,
                                                   miniBatchSizeRange: [1, 2, 4, 8, 16, 32, 64, 128]) : nil,
            // `shuffle` is the updatable model's setting for MLUpdateTask on the device; the trainer
            // itself feeds the chunks in the data's order, as Turi Create does.
            epochDefault: training || exported ? 10 : nil, epochRange: training || exported ? 1...1000 : nil, shuffle: training || exported ? true : nil)
        {
            // (1, window, F) as C, H, W → (F, 1, window): each feature a channel, time along the width.
            Permute(name: "permute_layer", input: [featuresName], output: ["conv_in"], axis: [0, 3, 1, 2])
            Convolution(name: "conv_layer", input: ["conv_in"], output: ["relu0_in"], outputChannels: UInt(convolutionFilters),
                        kernelChannels: f, kernelSize: [1, w], stride: [1, w], updatable: trainable)
            ReLu(name: "relu_layer0", input: ["relu0_in"], output: ["lstm_in"])
            UniDirectionalLstm(name: "lstm_layer", input: lstmInputs, output: ["dense0_in", hiddenOut, cellOut],
                               inputVectorSize: UInt(convolutionFilters), outputVectorSize: UInt(lstmSize), sequenceOutput: true,
                               updatable: trainable)
            InnerProduct(name: "dense_layer", input: ["dense0_in"], output: [batchNormInput], inputChannels: UInt(lstmSize),
                         outputChannels: UInt(denseSize), updatable: trainable)
            BatchNorm(name: batchNormLayer, input: [batchNormInput], output: ["relu1_in"], channels: UInt(denseSize),
                      mean: statistics?.mean, variance: statistics?.variance, epsilon: batchNormEpsilon, computeMeanVar: training,
                      updatable: trainable)
            ReLu(name: "relu_layer1", input: ["relu1_in"], output: ["dense1_in"])
            InnerProduct(name: outputLayer, input: ["dense1_in"], output: ["softmax_in"], inputChannels: UInt(denseSize),
                         outputChannels: k, updatable: trainable)
            Softmax(name: probabilities, input: ["softmax_in"], output: [probabilities])
        }
        var model = Model(shortDescription: "Activity classifier (\(labels.joined(separator: ", "))) trained by OpenCreateML",
                          userDefined: userDefined)
        if exported {
            model.add(Input(name: featuresName, shape: [1, w, f], featureType: .double))
            model.add(Input(name: hiddenIn, shape: [UInt(lstmSize)], featureType: .double))
            model.add(Input(name: cellIn, shape: [UInt(lstmSize)], featureType: .double))
            model.add(Output(name: hiddenOut, shape: [UInt(lstmSize)], featureType: .double))
            model.add(Output(name: cellOut, shape: [UInt(lstmSize)], featureType: .double))
            model.add(ClassLabels(labels.map(ClassLabel.string), predictedFeatureName: labelName, predictedProbabilitiesName: probabilities,
                                  probabilitiesBlob: probabilities))
            model.add(TrainingInput(name: featuresName, shape: [1, w, f], featureType: .double))
            model.add(TrainingInput(name: labelName, shape: [1], featureType: .string))
        } else {
            model.add(Input(name: featuresName, shape: [steps, 1, 1, w, f]))
            model.add(Output(name: probabilities, shape: [steps, 1, k, 1, 1]))
        }
        model.add(network)
        var specification = try model.makeSpecification()
        removeOutputBias(&specification)
        if exported {
            for index in specification.description_p.input.indices where specification.description_p.input[index].name != featuresName {
                specification.description_p.input[index].type.isOptional = true
            }
        }
        return specification
    }

    /// Turi Create 6's output layer has no bias (its 6.2/6.3 TensorFlow graph multiplies by
    /// `dense1_weight` alone, 6.4's Keras one is `Dense(use_bias=False)`); the builder always adds one,
    /// so it is taken out here. Models written before this have a (trained) bias there, which
    /// prediction uses as any inner product's.
    private static func removeOutputBias(_ specification: inout CoreML_Specification_Model) {
        func strip(_ layers: inout [CoreML_Specification_NeuralNetworkLayer]) {
            for index in layers.indices where layers[index].name == outputLayer {
                guard case .innerProduct(var params)? = layers[index].layer else { continue }
                params.hasBias_p = false
                params.clearBias()
                layers[index].innerProduct = params
            }
        }
        switch specification.type {
        case .neuralNetwork(var network)?:
            strip(&network.layers)
            specification.neuralNetwork = network
        case .neuralNetworkClassifier(var network)?:
            strip(&network.layers)
            specification.neuralNetworkClassifier = network
        default:
            break
        }
    }
}
