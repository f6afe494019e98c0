import CoreMLSpec

extension CoreML_Specification_Model {
    /// Marks `layers` and all their weights updatable, and the model too (specification version 4 at
    /// least). Half-precision weights become float32, which training needs.
    ///
    /// The model still needs a loss (`setLoss`), an optimizer (`setOptimizer`) and epochs
    /// (`setEpochs`) before it validates.
    ///
    /// - Parameter names: The layers to train; each must have weights and be of a type Core ML can
    ///   train (convolution, inner product and the others OpenCoreML's engine trains).
    /// - Throws: A ``ModelToolsError`` naming the layer that does not exist, cannot be trained, has no
    ///   weights or has quantized weights.
    public mutating func makeUpdatable(layers names: [String]) throws {
        guard !names.isEmpty else { throw ModelToolsError("make updatable", "name at least one layer") }
        try editNetwork { network in
            for name in names {
                let index = try network.layers.index(ofLayer: name)
                var layer = network.layers[index]
                let location = "layer '\(name)'"
                let typeName = layer.layerTypeName
                guard CoreML_Specification_NeuralNetworkLayer.updatableLayerTypes.contains(typeName) else {
                    throw ModelToolsError(location, "\(typeName) layers cannot be trained; updatable layer types are "
                        + CoreML_Specification_NeuralNetworkLayer.updatableLayerTypes.sorted().joined(separator: ", "))
                }
                guard !layer.weightBlobs.isEmpty else { throw ModelToolsError(location, "the layer has no weights to train") }
                try layer.forEachWeight { blob, weights in
                    if weights.isQuantized {
                        throw ModelToolsError(location, "\(blob.name) are quantized; training needs float32 weights")
                    }
                    if weights.storage == .float16 {
                        weights.floatValue = try weights.floatValues()
                        weights.float16Value = .init()
                    }
                    weights.isUpdatable = true
                }
                layer.isUpdatable = true
                network.layers[index] = layer
            }
        }
        isUpdatable = true
        specificationVersion = max(specificationVersion, 4)
    }

    /// Clears every updatable mark and the update parameters and training inputs: the model as it
    /// was before `makeUpdatable`.
    public mutating func removeUpdatability() throws {
        try editNetwork { network in
            for index in network.layers.indices {
                network.layers[index].isUpdatable = false
                network.layers[index].forEachWeight { _, weights in weights.isUpdatable = false }
            }
            Self.clearUpdateParameters(&network)
        }
        isUpdatable = false
        description_p.trainingInput = []
    }
}
