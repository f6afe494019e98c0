extension CoreML_Specification_Model {
    /// Core ML's rules for updatable neural networks: updatable layers, loss layers wired to the graph,
    /// training inputs that feed the loss, and a complete optimizer.
    ///
    /// Difference from Core ML: more than one loss layer is allowed (their losses are summed).
    func validateUpdatable(
        _ network: some NeuralNetworkSpecification, producer: [String: String], classLabels: ClassLabelSet?,
        shapes: [String: [Int]]?, in context: inout ValidationContext
    ) {
        let layers = network.layers
        let updatable = layers.filter(\.isUpdatable)
        if updatable.isEmpty {
            context.fail("the model is marked updatable but none of its layers are")
        }
        let typeOfLayer = Dictionary(layers.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for layer in updatable {
            let part = "layer '\(layer.name)'"
            let typeName = layer.layerTypeName
            guard CoreML_Specification_NeuralNetworkLayer.updatableLayerTypes.contains(typeName) else {
                context.fail("marked updatable, but \(typeName) layers cannot be updated", at: part)
                continue
            }
            let blobs = layer.weightBlobs
            if blobs.isEmpty {
                context.fail("marked updatable, but the layer has no weights", at: part)
            }
            for blob in blobs {
                let weights = layer[keyPath: blob.path]
                if weights.isQuantized || weights.storage == .float16 {
                    context.fail("\(blob.name) are stored as \(weights.storage.rawValue), quantized or half precision; updatable weights must be float32", at: part)
                }
                if !weights.isUpdatable {
                    context.fail("\(blob.name) are not marked updatable although the layer is", at: part)
                }
            }
        }

        guard network.hasUpdateParams else {
            context.fail("an updatable neural network needs update parameters (loss, optimizer, epochs)")
            return
        }
        let parameters = network.updateParams
        context.within("update parameters") { context in
            validateLosses(
                parameters.lossLayers, layers: typeOfLayer, producer: producer, classLabels: classLabels, shapes: shapes,
                exactMapping: network.arrayInputShapeMapping == .exactArrayMapping, in: &context)
            parameters.optimizer.validate(present: parameters.hasOptimizer, in: &context)
            if parameters.hasEpochs {
                parameters.epochs.validate("epochs", positive: true, in: &context)
            } else {
                context.fail("epochs are required")
            }
            if parameters.hasSeed {
                parameters.seed.validate("seed", positive: false, in: &context)
            }
        }
    }

    private func validateLosses(
        _ losses: [CoreML_Specification_LossLayer], layers: [String: CoreML_Specification_NeuralNetworkLayer],
        producer: [String: String], classLabels: ClassLabelSet?, shapes: [String: [Int]]?, exactMapping: Bool,
        in context: inout ValidationContext
    ) {
        if losses.isEmpty {
            context.fail("an updatable neural network needs a loss layer")
        }
        let description = description_p
        let trainingInputs = Dictionary(description.trainingInput.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        if trainingInputs.isEmpty {
            context.fail("training inputs are required (the network's input and the loss target)")
        } else if !description.input.contains(where: { trainingInputs[$0.name] != nil }) {
            context.fail("the training inputs must include at least one of the model's inputs")
        }
        for loss in losses {
            let part = "loss layer '\(loss.name)'"
            if layers[loss.name] != nil {
                context.fail("a loss layer and a network layer share this name", at: part)
            }
            let (input, target, isCrossEntropy): (String, String, Bool)
            switch loss.lossLayerType {
            case .categoricalCrossEntropyLossLayer(let cce)?: (input, target, isCrossEntropy) = (cce.input, cce.target, true)
            case .meanSquaredErrorLossLayer(let mse)?: (input, target, isCrossEntropy) = (mse.input, mse.target, false)
            case nil:
                context.fail("the loss function is missing or unknown; categorical cross-entropy and mean squared error are supported", at: part)
                continue
            }
            if let source = producer[input] {
                let typeName = layers[source]?.layerTypeName ?? ""
                if isCrossEntropy && typeName != "softmax" && typeName != "softmaxND" {
                    context.fail("cross-entropy needs the output of a softmax layer, but '\(input)' comes from a \(typeName) layer", at: part)
                }
            } else {
                context.fail("the loss input '\(input)' is not produced by any layer", at: part)
            }
            if producer[target] != nil {
                context.fail("the loss target '\(target)' is produced inside the network; it must be a training input", at: part)
            }
            if let classLabels, isCrossEntropy {
                // A classifier is trained on its label: the predicted feature name (String or Int64).
                let label = description.predictedFeatureName
                if let feature = trainingInputs[label] ?? trainingInputs[target] {
                    let matches: Bool
                    switch (classLabels, feature.type.type) {
                    case (.strings, .stringType?), (.int64s, .int64Type?), (_, .multiArrayType?): matches = true
                    default: matches = false
                    }
                    if !matches {
                        context.fail("the training input '\(feature.name)' must have the class labels' type (\(classLabels.typeName))", at: part)
                    }
                } else {
                    context.fail("the training inputs include neither the classifier's label '\(label)' nor the loss target '\(target)'", at: part)
                }
            } else if trainingInputs[target] == nil {
                context.fail("the training inputs do not include the loss target '\(target)'", at: part)
            }
            if let feature = trainingInputs[target] {
                validateLossTarget(
                    feature, of: part, input: input, isCrossEntropy: isCrossEntropy, classLabels: classLabels,
                    inputShape: shapes?[input], exactMapping: exactMapping, in: &context)
            }
        }
    }

    /// The loss target's training input must fit the loss: a class index for cross-entropy (an
    /// Int64, a Double, a one-element multi-array, or a label of a classifier's labels' type); as many
    /// values as the loss input for mean squared error.
    private func validateLossTarget(
        _ feature: CoreML_Specification_FeatureDescription, of part: String, input: String, isCrossEntropy: Bool,
        classLabels: ClassLabelSet?, inputShape: [Int]?, exactMapping: Bool, in context: inout ValidationContext
    ) {
        let target = "the loss target '\(feature.name)' (\(feature.type.summary))"
        if isCrossEntropy {
            switch feature.type.type {
            case .int64Type?, .doubleType?:
                break
            case .stringType? where classLabels != nil:
                break
            case .multiArrayType(let array)?:
                if let count = checkedProduct(array.shape), count != 1 {
                    context.fail("\(target) holds \(count) values; cross-entropy takes one class index per example", at: part)
                }
            default:
                context.fail("\(target) is not a class index; cross-entropy takes an Int64, a Double or a one-element multi-array", at: part)
            }
            return
        }
        switch feature.type.type {
        case .multiArrayType?, .doubleType?, .int64Type?:
            guard let inputShape, let inputCount = checkedProduct(inputShape),
                  let targetShape = try? feature.type.networkShape(exactMapping: exactMapping), let targetCount = checkedProduct(targetShape)
            else { return }
            if targetCount != inputCount {
                context.fail("\(target) holds \(targetCount) values per example, but the loss input '\(input)' holds \(inputCount) (shape \(inputShape))", at: part)
            }
        default:
            context.fail("\(target) cannot be compared with the loss input '\(input)'; mean squared error takes a multi-array or a number", at: part)
        }
    }
}

extension CoreML_Specification_Optimizer {
    /// SGD needs a learning rate and mini-batch size; Adam also beta1, beta2 and eps.
    func validate(present: Bool, in context: inout ValidationContext) {
        switch optimizerType {
        case .sgdOptimizer(let sgd)?:
            context.within("SGD optimizer") { context in
                if sgd.hasLearningRate { sgd.learningRate.validate("learningRate", in: &context) }
                else { context.fail("learningRate is required") }
                if sgd.hasMiniBatchSize { sgd.miniBatchSize.validate("miniBatchSize", positive: true, in: &context) }
                else { context.fail("miniBatchSize is required") }
                if sgd.hasMomentum { sgd.momentum.validate("momentum", in: &context) }
            }
        case .adamOptimizer(let adam)?:
            context.within("Adam optimizer") { context in
                if adam.hasLearningRate { adam.learningRate.validate("learningRate", in: &context) }
                else { context.fail("learningRate is required") }
                if adam.hasMiniBatchSize { adam.miniBatchSize.validate("miniBatchSize", positive: true, in: &context) }
                else { context.fail("miniBatchSize is required") }
                for (name, present, parameter) in [("beta1", adam.hasBeta1, adam.beta1), ("beta2", adam.hasBeta2, adam.beta2), ("eps", adam.hasEps, adam.eps)] {
                    if present { parameter.validate(name, in: &context) } else { context.fail("\(name) is required") }
                }
            }
        case nil:
            context.fail(present ? "the optimizer is unknown; SGD and Adam are supported" : "an optimizer is required")
        }
    }
}
