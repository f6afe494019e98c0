import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// An updatable network split where training needs it: the layers that train or lie between an
/// updatable layer and the loss (the *trained part*, which the classic engine runs forward and
/// backward), and the layers before them, which never change during an update (the *frozen
/// prefix*). The prefix may use any layer type: it is computed once per training example, as the
/// model predicts (written as an ML Program when the classic engine has no node for a layer), and
/// its outputs become the trained part's inputs.
///
/// Core ML trains a network only when every layer after the first updatable one can pass gradients;
/// the layers before it may be anything. This is how OpenCoreML keeps that rule for networks whose
/// early layers the training engine does not have (resizes, rank-N layers, recurrent layers, …).
struct FrozenPrefix {
    /// The trained part as a model of its own: the same type, outputs and update parameters, its
    /// inputs the blobs it reads from the prefix (or from the model's inputs) with the shapes the
    /// prefix gives them.
    let trainedPart: CoreML_Specification_Model
    /// Per training example, the trained part's inputs and the model's targets.
    let examples: MLArrayBatchProvider

    /// Splits `model` and runs its prefix over `trainingData`; nil when the classic engine runs
    /// every layer (the whole network trains as it is).
    ///
    /// - Throws: `MLModelError.update` naming a layer between an updatable layer and the loss that
    ///   the classic engine has no node for, or what running the prefix throws.
    static func split(_ model: CoreML_Specification_Model, trainingData: MLBatchProvider, configuration: MLModelConfiguration) throws -> FrozenPrefix? {
        guard let network = model.neuralNetworkSpecification, !Network.hasNodes(forEveryLayerOf: model) else { return nil }
        let description = model.description_p
        let modelInputs = Set(description.input.map(\.name))
        let order = try CoreML_Specification_NeuralNetworkLayer.dependencyOrder(network.layers, available: modelInputs)

        // The trained part: the updatable layers and every layer reading, at any remove, what they make.
        var trained = Set<Int>(), trainedBlobs = Set<String>()
        for index in order {
            let layer = network.layers[index]
            guard layer.isUpdatable || layer.input.contains(where: trainedBlobs.contains) else { continue }
            guard Network.hasNode(for: layer) else {
                throw MLModelError(.update, "layer '\(layer.name)' (\(layer.layerTypeName)) lies between an updatable layer and the loss, "
                    + "and OpenCoreML's training engine has no backward pass for \(layer.layerTypeName) layers")
            }
            trained.insert(index)
            trainedBlobs.formUnion(layer.output)
        }
        // What the trained part reads from outside itself, in first-read order.
        var boundary: [String] = []
        for index in order where trained.contains(index) {
            for blob in network.layers[index].input where !trainedBlobs.contains(blob) && !boundary.contains(blob) { boundary.append(blob) }
        }
        let computed = boundary.filter { !modelInputs.contains($0) }

        // The prefix, as a plain network whose outputs are the blobs the trained part reads.
        var prefix = CoreML_Specification_Model()
        prefix.specificationVersion = model.specificationVersion
        prefix.description_p.input = description.input
        prefix.description_p.output = computed.map { name in
            var output = CoreML_Specification_FeatureDescription()
            output.name = name
            output.type.multiArrayType.dataType = .float32
            return output
        }
        var prefixNetwork = CoreML_Specification_NeuralNetwork()
        prefixNetwork.layers = order.filter { !trained.contains($0) }.map { network.layers[$0] }
        prefixNetwork.preprocessing = network.preprocessing
        prefixNetwork.arrayInputShapeMapping = network.arrayInputShapeMapping
        prefixNetwork.imageInputShapeMapping = network.imageInputShapeMapping
        prefix.neuralNetwork = prefixNetwork
        let runner = computed.isEmpty ? nil : try ModelRunners.make(prefix, parameters: [:], memoryLimit: configuration.resolvedMemoryLimit,
                                                                    loopWorkLimit: configuration.resolvedLoopWorkLimit)

        // The prefix's outputs for every example, with the trained part's other inputs and the targets.
        let passed = boundary.filter(modelInputs.contains) + description.trainingInput.map(\.name).filter { !modelInputs.contains($0) }
        var examples: [MLFeatureProvider] = []
        examples.reserveCapacity(trainingData.count)
        var shapes: [String: [NSNumber]] = [:]
        // The prefix's outputs for every example are held until training starts: they draw from the
        // configuration's memory limit like the training data does.
        var heldBytes = 0
        let limit = configuration.resolvedMemoryLimit
        for index in 0..<trainingData.count {
            let example = trainingData.features(at: index)
            let outputs: MLFeatureProvider
            do {
                outputs = try runner?.predictions([example])[0] ?? example
            } catch let error as MLModelError {
                throw MLModelError(.update, "training example \(index): the layers before the updatable ones: \(error.message)")
            }
            var features: [String: MLFeatureValue] = [:]
            for name in computed {
                guard let array = outputs.featureValue(for: name)?.multiArrayValue else {
                    throw MLModelError(.update, "training example \(index): the layers before the updatable ones gave no '\(name)'")
                }
                if let shape = shapes[name], shape != array.shape {
                    throw MLModelError(.update, "training example \(index): '\(name)' has shape \(array.shape.map(\.intValue)), "
                        + "the first example's has \(shape.map(\.intValue)); the updatable layers need one shape")
                }
                shapes[name] = array.shape
                heldBytes += array.count * MemoryLayout<Float>.size
                guard heldBytes <= limit else {
                    throw MLModelError(.update, "training example \(index): the outputs of the layers before the updatable ones "
                        + "need more than the memory limit of \(formatBytes(limit))")
                }
                features[name] = MLFeatureValue(multiArray: array)
            }
            for name in passed { if let value = example.featureValue(for: name) { features[name] = value } }
            examples.append(try MLDictionaryFeatureProvider(dictionary: features))
        }

        // The trained part's model: the blobs from the prefix declared as inputs of the shapes seen.
        var part = model
        let exact = network.arrayInputShapeMapping == .exactArrayMapping
        let declared = computed.map { name -> CoreML_Specification_FeatureDescription in
            var input = CoreML_Specification_FeatureDescription()
            input.name = name
            input.type.multiArrayType.dataType = .float32
            var shape = (shapes[name] ?? []).map { $0.int64Value }
            // Under the rank-5 mapping a sequence blob [Seq, C, H, W] is the input [Seq, 1, C, H, W].
            if !exact && shape.count == 4 { shape.insert(1, at: 1) }
            input.type.multiArrayType.shape = shape
            return input
        }
        let kept = Set(boundary)
        part.description_p.input = description.input.filter { kept.contains($0.name) } + declared
        // Outputs only the prefix makes (a side branch of layers the engine lacks) are not the trained part's.
        let prefixOnly = Set(prefixNetwork.layers.flatMap(\.output)).subtracting(trainedBlobs)
        part.description_p.output = description.output.filter { !prefixOnly.contains($0.name) }
        part.description_p.trainingInput = declared + description.trainingInput.filter { passed.contains($0.name) }
        let layers = order.filter(trained.contains).map { network.layers[$0] }
        switch part.type {
        case .neuralNetwork(var spec)?:
            spec.layers = layers
            spec.preprocessing = spec.preprocessing.filter { kept.contains($0.featureName) }
            part.neuralNetwork = spec
        case .neuralNetworkClassifier(var spec)?:
            spec.layers = layers
            spec.preprocessing = spec.preprocessing.filter { kept.contains($0.featureName) }
            part.neuralNetworkClassifier = spec
        case .neuralNetworkRegressor(var spec)?:
            spec.layers = layers
            spec.preprocessing = spec.preprocessing.filter { kept.contains($0.featureName) }
            part.neuralNetworkRegressor = spec
        default:
            return nil
        }
        return FrozenPrefix(trainedPart: part, examples: MLArrayBatchProvider(array: examples))
    }
}
