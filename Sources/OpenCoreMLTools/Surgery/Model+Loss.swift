import CoreMLSpec

extension CoreML_Specification_Model {
    /// Sets the network's loss (replacing any), as coremltools' builder does: the loss reads `input`
    /// (by default a classifier's probabilities, the softmax output among the model outputs for
    /// cross-entropy, or the first output for MSE) and `target` (by default `<input>_true`). The
    /// training inputs become the model inputs plus the target — for a classifier trained with
    /// cross-entropy, its label feature instead.
    ///
    /// - Parameters:
    ///   - function: Cross-entropy (which needs a softmax output) or mean squared error.
    ///   - input: The blob the loss reads; nil for the default described above.
    ///   - target: The training input that holds the truth; nil for `<input>_true`.
    ///   - name: The loss layer's name, which no layer may have.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural network, no layer writes `input`,
    ///   cross-entropy would read something other than a softmax, or `name` is a layer's.
    public mutating func setLoss(_ function: LossFunction, input: String? = nil, target: String? = nil, name: String = "lossLayer") throws {
        let layers = try networkLayers()
        let input = try input ?? defaultLossInput(function, layers: layers)
        let location = "loss '\(name)'"
        guard let producer = layers.index(producing: input) else {
            throw ModelToolsError(location, "the input '\(input)' is not produced by any layer")
        }
        if function == .crossEntropy, !["softmax", "softmaxND"].contains(layers[producer].layerTypeName) {
            throw ModelToolsError(location, "cross-entropy needs a softmax output, but '\(input)' comes from the \(layers[producer].layerTypeName) layer '\(layers[producer].name)'")
        }
        if layers.contains(where: { $0.name == name }) {
            throw ModelToolsError(location, "a layer already has this name")
        }
        var loss = CoreML_Specification_LossLayer()
        loss.name = name
        let target = target ?? "\(input)_true"
        switch function {
        case .crossEntropy:
            loss.categoricalCrossEntropyLossLayer.input = input
            loss.categoricalCrossEntropyLossLayer.target = target
        case .meanSquaredError:
            loss.meanSquaredErrorLossLayer.input = input
            loss.meanSquaredErrorLossLayer.target = target
        }
        try editNetwork { $0.updateParams.lossLayers = [loss] }
        description_p.trainingInput = []
        try addMissingTrainingInputs()
    }

    private func defaultLossInput(_ function: LossFunction, layers: [CoreML_Specification_NeuralNetworkLayer]) throws -> String {
        if let blob = classifierProbabilityBlob { return blob }
        let outputs = description_p.output.map(\.name)
        if function == .crossEntropy {
            let softmaxOutputs = outputs.filter { name in
                layers.index(producing: name).map { ["softmax", "softmaxND"].contains(layers[$0].layerTypeName) } ?? false
            }
            guard let first = softmaxOutputs.first else {
                throw ModelToolsError("loss", "no model output comes from a softmax layer; name the cross-entropy input")
            }
            return first
        }
        guard let first = outputs.first else { throw ModelToolsError("loss", "the model has no outputs") }
        return first
    }

    /// Adds the training inputs the losses need: the model's inputs, then each loss target not yet
    /// there (a classifier's cross-entropy target is its label feature).
    mutating func addMissingTrainingInputs() throws {
        guard let network = neuralNetworkSpecification else { return }
        var features = description_p.trainingInput
        func add(_ feature: CoreML_Specification_FeatureDescription) {
            if !features.contains(where: { $0.name == feature.name }) { features.append(feature) }
        }
        description_p.input.forEach(add)
        for loss in network.updateParams.lossLayers {
            var feature = CoreML_Specification_FeatureDescription()
            switch loss.lossLayerType {
            case .categoricalCrossEntropyLossLayer(let cce)?:
                if case .neuralNetworkClassifier(let classifier)? = type {
                    feature.name = description_p.predictedFeatureName
                    feature.type = classifier.classLabelSet.labelFeatureType
                } else {
                    feature.name = cce.target
                    feature.type.multiArrayType.shape = [1]
                    feature.type.multiArrayType.dataType = .int32
                }
            case .meanSquaredErrorLossLayer(let mse)?:
                feature.name = mse.target
                if let output = description_p.output.first(where: { $0.name == mse.input }), case .multiArrayType? = output.type.type {
                    feature.type = output.type
                } else {
                    feature.type.multiArrayType.shape = try blobShape(mse.input).map(Int64.init)
                    feature.type.multiArrayType.dataType = .float32
                }
            case nil:
                continue
            }
            add(feature)
        }
        description_p.trainingInput = features
    }

    /// The shape of one example of `blob`, as a multi-array feature would declare it: `[C]` for a
    /// C×1×1 blob, the full shape otherwise. The layer table's shape rules work it out from the
    /// inputs' shapes; no weight is decoded and no network is compiled.
    func blobShape(_ blob: String) throws -> [Int] {
        let shapes: [String: [Int]]
        do {
            shapes = try neuralNetworkBlobShapes()
        } catch {
            throw ModelToolsError("blob '\(blob)'", "cannot work out its shape: \(error)")
        }
        guard let dims = shapes[blob] else {
            throw ModelToolsError("blob '\(blob)'", "no layer or input has this name")
        }
        if dims.count >= 3, dims[dims.count - 1] == 1, dims[dims.count - 2] == 1 {
            return Array(dims.dropLast(2))
        }
        return dims
    }
}
