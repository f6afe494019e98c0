extension CoreML_Specification_Model {
    /// Layer names, the blob graph (every input produced, no cycles, no blob produced twice),
    /// weight sizes, the model's outputs, and — for updatable models — the update rules.
    func validateNeuralNetwork(
        _ network: some NeuralNetworkSpecification, classLabels: ClassLabelSet?, in context: inout ValidationContext
    ) {
        let layers = network.layers
        if layers.isEmpty {
            context.fail("a neural network needs at least one layer")
            return
        }
        let modelInputs = Set(description_p.input.map(\.name))
        var names = Set<String>()
        var producer: [String: String] = [:]  // blob → layer that writes it
        for (index, layer) in layers.enumerated() {
            let part = context.checkName(layer.name, of: "layer", index: index, seen: &names,
                                         missing: "a layer needs a name", twice: "two layers have this name")
            if layer.layer == nil && layer.layerTypeName == "none" {
                context.fail("the layer has no type", at: part)
            }
            if layer.connectionCounts == nil && layer.output.isEmpty {
                context.fail("the layer has no outputs", at: part)
            }
            for issue in layer.connectionCountIssues {
                context.fail(issue, at: part)
            }
            for blob in layer.output {
                if let other = producer[blob] {
                    context.fail("output '\(blob)' is also produced by layer '\(other)'", at: part)
                } else if modelInputs.contains(blob) {
                    context.fail("output '\(blob)' has the name of a model input", at: part)
                }
                producer[blob] = layer.name
            }
            context.within(part) { layer.validateWeights(in: &$0) }
        }
        for (index, layer) in layers.enumerated() {
            let part = layer.name.isEmpty ? "layer #\(index + 1)" : "layer '\(layer.name)'"
            for blob in layer.input where producer[blob] == nil && !modelInputs.contains(blob) {
                context.fail("input '\(blob)' is neither a model input nor the output of a layer", at: part)
            }
        }
        if let cycle = Self.layersOnCycles(layers) {
            context.fail("layers depend on each other in a cycle: \(cycle.joined(separator: ", "))")
        }

        // Outputs: produced by a layer, except a classifier's label and probabilities.
        var classifierOutputs = Set<String>()
        if classLabels != nil {
            classifierOutputs = [description_p.predictedFeatureName, description_p.predictedProbabilitiesName]
            if classLabels!.count == 0 {
                context.fail("a classifier needs class labels")
            }
            if case .neuralNetworkClassifier(let classifier)? = type, !classifier.labelProbabilityLayerName.isEmpty,
               producer[classifier.labelProbabilityLayerName] == nil
            {
                context.fail("labelProbabilityLayerName '\(classifier.labelProbabilityLayerName)' is not the output of a layer")
            }
        }
        for output in description_p.output where !classifierOutputs.contains(output.name) {
            if producer[output.name] == nil && !modelInputs.contains(output.name) {
                context.fail("no layer produces this output", at: "output '\(output.name)'")
            }
        }
        // Core ML: the legacy rank-5 mapping of multi-array inputs cannot be used with a layer of
        // specification version 4 or later (the rank-N layers work on exact ranks), nor with the
        // rank-4 image mapping.
        let hasArrayInputs = description_p.input.contains { if case .multiArrayType? = $0.type.type { return true } else { return false } }
        if hasArrayInputs, network.arrayInputShapeMapping == .rank5ArrayMapping {
            if let index = layers.firstIndex(where: \.needsRankNInterpretation) {
                let layer = layers[index]
                let part = layer.name.isEmpty ? "layer #\(index + 1)" : "layer '\(layer.name)'"
                context.fail("this \(layer.layerTypeName) layer needs specification version 4 (iOS 13) or later, which Core ML does not allow with arrayInputShapeMapping RANK5_ARRAY_MAPPING (the default); set it to EXACT_ARRAY_MAPPING", at: "\(part) (\(layer.layerTypeName))")
            }
            if network.imageInputShapeMapping != .rank5ImageMapping {
                context.fail("arrayInputShapeMapping RANK5_ARRAY_MAPPING (the default) cannot be used with imageInputShapeMapping RANK4_IMAGE_MAPPING; set it to EXACT_ARRAY_MAPPING")
            }
        }
        for preprocessing in network.preprocessing where !preprocessing.featureName.isEmpty {
            if !modelInputs.contains(preprocessing.featureName) {
                context.fail("preprocessing names '\(preprocessing.featureName)', which is not a model input")
            }
        }
        // Shapes by the layer table, for the rules below; nil when the layer table cannot work them
        // out (compiling the network reports why).
        let shapes = try? neuralNetworkBlobShapes()
        if let classLabels, classLabels.count > 0, let shapes, let blob = classifierProbabilityBlob,
           let shape = shapes[blob], let count = checkedProduct(shape), count != classLabels.count
        {
            context.fail("there are \(classLabels.count) class labels, but the probabilities '\(blob)' hold \(count) values (shape \(shape)); there must be one per class")
        }
        if isUpdatable {
            validateUpdatable(network, producer: producer, classLabels: classLabels, shapes: shapes, in: &context)
        }
    }


    /// Names of layers that can never run because they wait on each other, or nil if there is no cycle.
    static func layersOnCycles(_ layers: [CoreML_Specification_NeuralNetworkLayer]) -> [String]? {
        var producerIndex: [String: Int] = [:]
        for (index, layer) in layers.enumerated() {
            for blob in layer.output where producerIndex[blob] == nil { producerIndex[blob] = index }
        }
        var waitingOn = [Int](repeating: 0, count: layers.count)
        var dependents = [[Int]](repeating: [], count: layers.count)
        for (index, layer) in layers.enumerated() {
            for blob in Set(layer.input) {
                if let source = producerIndex[blob] {
                    waitingOn[index] += 1
                    dependents[source].append(index)
                }
            }
        }
        var ready = waitingOn.indices.filter { waitingOn[$0] == 0 }
        var done = 0
        while let next = ready.popLast() {
            done += 1
            for dependent in dependents[next] {
                waitingOn[dependent] -= 1
                if waitingOn[dependent] == 0 { ready.append(dependent) }
            }
        }
        guard done < layers.count else { return nil }
        return waitingOn.indices.filter { waitingOn[$0] > 0 }.map { layers[$0].name }
    }
}
