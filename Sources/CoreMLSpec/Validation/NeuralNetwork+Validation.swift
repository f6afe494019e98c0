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
        var producer: [String: String] = [:]  // blob → layer that writes it first
        Self.validateLayers(layers, modelInputs: modelInputs, producer: &producer, inLoopBody: false, in: &context)
        Self.validateInputs(layers, available: modelInputs.union(producer.keys), in: &context)
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


    /// Names, types, input and output counts, weights, and who writes each blob, for `layers` and
    /// (depth first, in file order) the networks their control-flow layers hold. A blob has one
    /// writer, except that a `copy` layer may overwrite a blob written before it (Core ML's rule),
    /// and the two branches of a `branch` may each write it (one of them runs).
    private static func validateLayers(
        _ layers: [CoreML_Specification_NeuralNetworkLayer], modelInputs: Set<String>, producer: inout [String: String],
        inLoopBody: Bool, in context: inout ValidationContext
    ) {
        var names = Set<String>()
        for (index, layer) in layers.enumerated() {
            let part = context.checkName(layer.name, of: "layer", index: index, seen: &names,
                                         missing: "a layer needs a name", twice: "two layers have this name")
            if layer.layer == nil && layer.layerTypeName == "none" {
                context.fail("the layer has no type", at: part)
            }
            if layer.connectionCounts == nil && layer.output.isEmpty && !layer.isControlFlow {
                context.fail("the layer has no outputs", at: part)
            }
            for issue in layer.connectionCountIssues + layer.controlFlowConnectionIssues {
                context.fail(issue, at: part)
            }
            let overwrites: Bool
            if case .copy? = layer.layer { overwrites = true } else { overwrites = false }
            for blob in layer.output {
                if let other = producer[blob], !overwrites {
                    context.fail("output '\(blob)' is also produced by layer '\(other)'", at: part)
                } else if modelInputs.contains(blob) {
                    context.fail("output '\(blob)' has the name of a model input", at: part)
                }
                if producer[blob] == nil { producer[blob] = layer.name }
            }
            switch layer.layer {
            case .loopBreak?, .loopContinue?:
                if !inLoopBody {
                    context.fail("a \(layer.layerTypeName) layer must be inside a loop layer's bodyNetwork", at: part)
                }
            case .branch?:
                let before = producer
                var merged = before
                for (field, network) in layer.nestedNetworks {
                    var scoped = before
                    context.within("\(part) › \(field)") {
                        validateLayers(network.layers, modelInputs: modelInputs, producer: &scoped, inLoopBody: inLoopBody, in: &$0)
                    }
                    merged.merge(scoped) { first, _ in first }
                }
                producer = merged
            case .loop(let loop)?:
                if !loop.conditionNetwork.layers.isEmpty {
                    context.within("\(part) › conditionNetwork") {
                        validateLayers(loop.conditionNetwork.layers, modelInputs: modelInputs, producer: &producer, inLoopBody: false, in: &$0)
                    }
                    if loop.conditionVar.isEmpty {
                        context.fail("conditionVar is empty; a loop with a conditionNetwork needs the name of the blob it writes", at: part)
                    } else if !loop.conditionNetwork.layers.contains(where: { $0.blobsWritten.contains(loop.conditionVar) }) {
                        context.fail("conditionVar '\(loop.conditionVar)' is written by no layer of the conditionNetwork", at: part)
                    }
                }
                context.within("\(part) › bodyNetwork") {
                    validateLayers(loop.bodyNetwork.layers, modelInputs: modelInputs, producer: &producer, inLoopBody: true, in: &$0)
                }
            default:
                break
            }
            context.within(part) { layer.validateWeights(in: &$0) }
        }
    }

    /// Every input of `layers` and of the layers of their nested networks is a model input or a
    /// blob some layer writes (the blobs of nested networks share the network's namespace).
    private static func validateInputs(
        _ layers: [CoreML_Specification_NeuralNetworkLayer], available: Set<String>, in context: inout ValidationContext
    ) {
        for (index, layer) in layers.enumerated() {
            let part = layer.name.isEmpty ? "layer #\(index + 1)" : "layer '\(layer.name)'"
            for blob in layer.input where !available.contains(blob) {
                context.fail("input '\(blob)' is neither a model input nor the output of a layer", at: part)
            }
            for (field, network) in layer.nestedNetworks {
                context.within("\(part) › \(field)") { validateInputs(network.layers, available: available, in: &$0) }
            }
        }
    }

    /// Names of layers that can never run because they wait on each other, or nil if there is no cycle.
    static func layersOnCycles(_ layers: [CoreML_Specification_NeuralNetworkLayer]) -> [String]? {
        let graph = DependencyGraph(layers)
        var waitingOn = graph.edges.map(\.count)
        var dependents = [[Int]](repeating: [], count: layers.count)
        for (index, sources) in graph.edges.enumerated() {
            for source in sources { dependents[source].append(index) }
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
