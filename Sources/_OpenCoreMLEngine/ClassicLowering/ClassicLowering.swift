import CoreMLSpec

/// A classic neural network (`neuralNetwork`, `neuralNetworkClassifier`, `neuralNetworkRegressor`)
/// written as an ML Program, so that the ML Program interpreter (``ProgramPlan``) runs it.
///
/// This is how OpenCoreML predicts with a network that uses layers the classic engine (``Network``,
/// which also trains) does not have: every layer becomes the MIL operations that compute it
/// (``LayerLowering``), so each operation is implemented once for both kinds of model, and value-
/// dependent shapes and flexible inputs come with the interpreter.
///
/// The program's function takes the model's inputs as they are declared (multi-arrays in their
/// declared shape, images as `[1, C, H, W]` pixel values) and first gives each the view the
/// network's layers see, by the model's shape mappings: under `RANK5_ARRAY_MAPPING` a `[C]` array
/// becomes `[C, 1, 1]` and a `[Seq, 1, C, H, W]` one `[Seq, C, H, W]`; under the exact mapping the
/// declared shape stays; an image is `[C, H, W]`, or `[1, C, H, W]` under `RANK4_IMAGE_MAPPING`.
/// The image preprocessing follows. A classifier ends in `classify` over its probabilities blob.
package enum ClassicLowering {
    /// The ML Program model that computes what `model`'s network computes, with the same
    /// description (inputs, outputs, classifier outputs).
    ///
    /// - Throws: `EngineError` naming the first layer (or input) that cannot be lowered, and why.
    package static func program(for model: CoreML_Specification_Model) throws -> CoreML_Specification_Model {
        guard let network = model.neuralNetworkSpecification else {
            throw EngineError("model", "a \(model.modelTypeName) model is not a neural network")
        }
        let description = model.description_p
        var reserved = Set(description.input.map(\.name) + description.output.map(\.name))
        for layer in network.layers { reserved.formUnion(layer.input + layer.output + layer.blobsRead + layer.blobsWritten) }
        var lowering = LayerLowering(emitter: ProgramEmitter(reserving: reserved), exactMapping: network.arrayInputShapeMapping == .exactArrayMapping)

        var functionInputs: [CoreML_Specification_MILSpec_NamedValueType] = []
        let imageInputCount = description.input.filter { if case .imageType? = $0.type.type { return true } else { return false } }.count
        for feature in description.input {
            let (type, view) = try input(feature, network: network, imageInputCount: imageInputCount, into: &lowering)
            var named = CoreML_Specification_MILSpec_NamedValueType()
            named.name = feature.name
            named.type = type
            functionInputs.append(named)
            lowering.values[feature.name] = view
        }
        for layerIndex in try CoreML_Specification_NeuralNetworkLayer.dependencyOrder(network.layers, available: Set(description.input.map(\.name))) {
            try lowering.lower(network.layers[layerIndex])
        }

        var outputs: [String] = []
        var classifierOutputs = Set<String>()
        if case .neuralNetworkClassifier(let classifier)? = model.type {
            let names = try classify(classifier, network: network, description: description, into: &lowering)
            outputs += names
            classifierOutputs = Set(names)
        }
        for output in description.output where !classifierOutputs.contains(output.name) {
            guard let value = lowering.values[output.name] else {
                throw EngineError("output '\(output.name)'", "no layer produces it")
            }
            lowering.emitter.operation("identity", ["x": [value.name]], outputs: [output.name])
            outputs.append(output.name)
        }

        var block = CoreML_Specification_MILSpec_Block()
        block.operations = lowering.emitter.operations
        block.outputs = outputs
        var function = CoreML_Specification_MILSpec_Function()
        function.inputs = functionInputs
        function.opset = "CoreML7"
        function.blockSpecializations["CoreML7"] = block
        var program = CoreML_Specification_MILSpec_Program()
        program.version = 1
        program.functions[CoreML_Specification_MILSpec_Program.mainFunctionName] = function
        var lowered = CoreML_Specification_Model()
        lowered.specificationVersion = max(model.specificationVersion, 7)
        lowered.description_p = description
        lowered.mlProgram = program
        return lowered
    }

    /// The function input's type for `feature`, and the value the network's layers see for it
    /// (reshaped by the shape mappings and preprocessed).
    private static func input(
        _ feature: CoreML_Specification_FeatureDescription, network: any NeuralNetworkSpecification, imageInputCount: Int,
        into lowering: inout LayerLowering
    ) throws -> (CoreML_Specification_MILSpec_ValueType, LayerLowering.Value) {
        let location = "input '\(feature.name)'"
        switch feature.type.type {
        case .multiArrayType(let array)?:
            var sizes = array.shape.map { Int(clamping: $0) }
            var flexible = false
            if case .shapeRange(let ranges)? = array.shapeFlexibility {
                sizes = ranges.sizeRanges.map { $0.lowerBound == $0.upperBound ? Int(clamping: $0.lowerBound) : -1 }
                flexible = true
            } else if case .enumeratedShapes(let shapes)? = array.shapeFlexibility, let first = shapes.shapes.first {
                if sizes.isEmpty { sizes = first.shape.map { Int(clamping: $0) } }
                flexible = shapes.shapes.count > 1
            }
            guard !sizes.isEmpty else { throw EngineError(location, "a multi-array input needs a shape") }
            let type = ProgramEmitter.tensorType(flexible ? [] : sizes, .float32)
            var value = LayerLowering.Value(name: feature.name, rank: sizes.count)
            if network.arrayInputShapeMapping != .exactArrayMapping {
                switch sizes.count {
                case 1: value = LayerLowering.Value(name: lowering.reshape(feature.name, keeping: 0, then: [-1, 1, 1]), rank: 3)
                case 5: value = LayerLowering.Value(name: lowering.squeeze(feature.name, [1]), rank: 4)
                default: break
                }
            }
            var typed = type
            if flexible { typed.tensorType.rank = Int64(sizes.count) }
            return (typed, value)
        case .imageType(let image)?:
            let channels = image.colorSpace == .grayscale || image.colorSpace == .grayscaleFloat16 ? 1 : 3
            let type = ProgramEmitter.tensorType([1, channels, Int(clamping: image.height), Int(clamping: image.width)], .float32)
            var value = network.imageInputShapeMapping == .rank4ImageMapping
                ? LayerLowering.Value(name: feature.name, rank: 4)
                : LayerLowering.Value(name: lowering.squeeze(feature.name, [0]), rank: 3)
            // Preprocessing without a feature name is the only image input's.
            let imageInputs = imageInputCount
            let steps = network.preprocessing.filter { $0.featureName == feature.name || ($0.featureName.isEmpty && imageInputs == 1) }
            if let step = steps.first {
                value = try preprocess(value, step, image: image, channels: channels, location: location, into: &lowering)
            }
            return (type, value)
        default:
            throw EngineError(location, "this network's layers are run as an ML Program, which takes multi-arrays and images only")
        }
    }

    /// `channelScale · x + bias` per channel, or `x − mean image`.
    private static func preprocess(
        _ x: LayerLowering.Value, _ step: CoreML_Specification_NeuralNetworkPreprocessing, image: CoreML_Specification_ImageFeatureType,
        channels: Int, location: String, into lowering: inout LayerLowering
    ) throws -> LayerLowering.Value {
        switch step.preprocessor {
        case .scaler(let scaler)?:
            let biases: [Float]
            switch (image.colorSpace, channels) {
            case (.bgr, 3): biases = [scaler.blueBias, scaler.greenBias, scaler.redBias]
            case (_, 3): biases = [scaler.redBias, scaler.greenBias, scaler.blueBias]
            default: biases = [scaler.grayBias]
            }
            let scaled = lowering.op("mul", ["x": x.name, "y": lowering.emitter.float(scaler.channelScale)])
            return LayerLowering.Value(name: lowering.op("add", ["x": scaled, "y": lowering.perChannel(biases)]), rank: x.rank)
        case .meanImage(let mean)?:
            let shape = [channels, Int(clamping: image.height), Int(clamping: image.width)]
            guard let count = checkedProduct(shape), mean.meanImage.count == count else {
                throw EngineError("preprocessing of \(location)", "mean image has \(mean.meanImage.count) values, the input has \(shape.map(String.init).joined(separator: "×"))")
            }
            let constant = lowering.emitter.floats(mean.meanImage, shape: shape)
            return LayerLowering.Value(name: lowering.op("sub", ["x": x.name, "y": constant]), rank: x.rank)
        case nil:
            return x
        }
    }

    /// `classify` over the classifier's probabilities blob (the layer it names, else the last
    /// layer's output); returns the names of its label and probabilities outputs.
    private static func classify(
        _ classifier: CoreML_Specification_NeuralNetworkClassifier, network: any NeuralNetworkSpecification,
        description: CoreML_Specification_ModelDescription, into lowering: inout LayerLowering
    ) throws -> [String] {
        let named = classifier.labelProbabilityLayerName
        // As the classic engine's runner picks it: the blob so named, else the layer so named, else the last layer.
        let byLayer = network.layers.first(where: { $0.name == named })?.output.first
        let blob = !named.isEmpty && lowering.values[named] != nil ? named : (byLayer ?? network.layers.last?.output.first)
        guard let blob, let probabilities = lowering.values[blob] else {
            throw EngineError("model", "the classifier's probabilities blob '\(named)' is produced by no layer")
        }
        // The labels as a constant list of scalars (strings or int64s), as `classify` takes them.
        func list(_ type: CoreML_Specification_MILSpec_DataType, _ count: Int,
                  _ fill: (inout CoreML_Specification_MILSpec_TensorValue, Int) -> Void) -> CoreML_Specification_MILSpec_Value {
            var value = CoreML_Specification_MILSpec_Value()
            value.type.listType.type = ProgramEmitter.tensorType([], type)
            value.immediateValue.list.values = (0..<count).map { index in
                var element = CoreML_Specification_MILSpec_Value()
                element.type = ProgramEmitter.tensorType([], type)
                fill(&element.immediateValue.tensor, index)
                return element
            }
            return value
        }
        let classes: CoreML_Specification_MILSpec_Value
        switch classifier.classLabels {
        case .stringClassLabels(let labels)?: classes = list(.string, labels.vector.count) { $0.strings.values = [labels.vector[$1]] }
        case .int64ClassLabels(let labels)?: classes = list(.int64, labels.vector.count) { $0.longInts.values = [labels.vector[$1]] }
        case nil: throw EngineError("model", "a classifier needs class labels")
        }
        let label = description.predictedFeatureName.isEmpty ? lowering.emitter.name("classLabel") : description.predictedFeatureName
        let scores = description.predictedProbabilitiesName.isEmpty ? lowering.emitter.name("probabilities") : description.predictedProbabilitiesName
        let flat = lowering.reshape(probabilities.name, keeping: 0, then: [-1])
        lowering.emitter.operation("classify", ["probabilities": [flat]], outputs: [label, scores], immediates: ["classes": classes])
        return [label, scores]
    }
}
