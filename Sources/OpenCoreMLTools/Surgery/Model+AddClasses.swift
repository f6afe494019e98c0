import CoreMLSpec

extension CoreML_Specification_Model {
    /// Widens a neural-network classifier to more classes: the inner-product layer before the
    /// softmax that gives the probabilities gets one more output row per new label (zero weights
    /// and bias, so the old classes' logits are unchanged), and the labels are appended.
    ///
    /// - Parameter labels: The new labels, of the same type as the model's and not among them.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural-network classifier, a label is
    ///   repeated or of the other type, or the probabilities do not come from a softmax fed by an
    ///   inner-product layer that nothing else reads.
    public mutating func addClasses(_ labels: [ClassLabel]) throws {
        guard case .neuralNetworkClassifier(let classifier)? = type else {
            throw ModelToolsError("model", "a \(modelTypeName) model has no class labels to add to; use addOutputClasses(_:) on a plain neural network")
        }
        let location = "class labels"
        let existing = classifier.classLabelSet
        let added = try ClassLabelSet(labels, location: location)
        guard added != .none else { throw ModelToolsError(location, "give at least one new label") }
        guard added.typeName == existing.typeName else {
            throw ModelToolsError(location, "the new labels are \(added.typeName), the model's are \(existing.typeName)")
        }
        let all = existing.labels + labels
        if let duplicate = labels.first(where: { label in all.filter { $0 == label }.count > 1 }) {
            throw ModelToolsError(location, "'\(duplicate)' is already a label (or given twice)")
        }
        try widenDenseLayer(before: classifierProbabilityBlob ?? "", by: labels.count)
        var widened = neuralNetworkClassifier
        switch added {
        case .int64s(let values): widened.int64ClassLabels.vector += values
        default: widened.stringClassLabels.vector += added.descriptions
        }
        neuralNetworkClassifier = widened
    }

    /// Widens a plain network's softmax output by `count` classes: the inner-product layer before
    /// that softmax gets `count` more rows (zeros) and the output's shape grows to match.
    ///
    /// - Parameters:
    ///   - count: How many classes to add; at least 1.
    ///   - output: The softmax output to widen; nil for the first output that comes from a softmax.
    /// - Throws: A ``ModelToolsError`` when the model is not a plain neural network or the output does
    ///   not come from a softmax fed by an inner-product layer that nothing else reads.
    public mutating func addOutputClasses(_ count: Int, output: String? = nil) throws {
        guard case .neuralNetwork? = type else {
            throw ModelToolsError("model", "addOutputClasses works on plain neural networks; a \(modelTypeName) model needs addClasses(_:)")
        }
        guard count > 0 else { throw ModelToolsError("output classes", "the number of classes to add must be positive, got \(count)") }
        let layers = try networkLayers()
        let softmaxOutputs = description_p.output.map(\.name).filter { name in
            layers.index(producing: name).map { layers[$0].layerTypeName == "softmax" } ?? false
        }
        guard let name = output ?? softmaxOutputs.first else {
            throw ModelToolsError("model", "no output comes from a softmax layer")
        }
        let width = try widenDenseLayer(before: name, by: count)
        guard let index = description_p.output.firstIndex(where: { $0.name == name }) else {
            throw ModelToolsError("output '\(name)'", "is not a model output")
        }
        if case .multiArrayType(var array)? = description_p.output[index].type.type, !array.shape.isEmpty {
            array.shape[0] = Int64(width)
            description_p.output[index].type.multiArrayType = array
        }
    }

    /// Appends `count` zero rows to the inner product feeding the softmax that writes `blob`;
    /// returns the new number of outputs.
    @discardableResult
    private mutating func widenDenseLayer(before blob: String, by count: Int) throws -> Int {
        try editNetwork { network in
            let layers = network.layers
            guard let softmaxIndex = layers.index(producing: blob), layers[softmaxIndex].layerTypeName == "softmax" else {
                throw ModelToolsError("blob '\(blob)'", "the probabilities must come from a softmax layer")
            }
            let logits = layers[softmaxIndex].input.first ?? ""
            guard let denseIndex = layers.index(producing: logits), case .innerProduct(var dense)? = layers[denseIndex].layer else {
                throw ModelToolsError("layer '\(layers[softmaxIndex].name)'", "its input '\(logits)' must come from an inner-product layer to widen")
            }
            let readers = layers.filter { $0.input.contains(logits) }.map(\.name)
            guard readers == [layers[softmaxIndex].name] else {
                throw ModelToolsError("layer '\(layers[denseIndex].name)'", "its output '\(logits)' is also read by \(readers.filter { $0 != layers[softmaxIndex].name }.joined(separator: ", ")); widening would change them")
            }
            let location = "layer '\(layers[denseIndex].name)'"
            let blobs = layers[denseIndex].weightBlobs
            for blob in blobs {
                let weights = layers[denseIndex][keyPath: blob.path]
                if weights.storage != .float32 && weights.storage != .empty {
                    throw ModelToolsError(location, "\(blob.name) are stored as \(weights.storage.rawValue); widening needs float32")
                }
            }
            let (width, overflow) = (checkedSize(dense.outputChannels) ?? .max).addingReportingOverflow(count)
            guard !overflow, let added = checkedProduct([dense.inputChannels, UInt64(count)]) else {
                throw ModelToolsError(location, SizeCheckFailure.product([dense.inputChannels, dense.outputChannels, UInt64(count)], what: "inputChannels × outputChannels"))
            }
            dense.weights.floatValue += [Float](repeating: 0, count: added)
            if blobs.contains(where: { $0.name == "bias" }) { dense.bias.floatValue += [Float](repeating: 0, count: count) }
            dense.outputChannels += UInt64(count)
            network.layers[denseIndex].innerProduct = dense
            return width
        }
    }
}
