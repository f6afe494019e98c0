import CoreMLSpec

extension CoreML_Specification_Model {
    /// The network cut after the layer that writes `blob`, with that blob as its only output: the
    /// feature extractor a personalisation pipeline puts before a k-NN classifier.
    ///
    /// A classifier becomes a plain `NeuralNetwork`. Layers the blob does not depend on are dropped,
    /// and so are inputs it does not read. The output is a float32 multi-array named `outputName`
    /// (default: the blob's name) of the blob's shape (`[C]` for a C×1×1 blob). Updatable marks,
    /// update parameters and training inputs are removed; metadata is kept, with the short
    /// description saying which blob the features are.
    ///
    /// ```swift
    /// let extractor = try lenet.featureExtractor(outputBlob: "relu3_out", outputName: "features")
    /// ```
    ///
    /// - Parameters:
    ///   - blob: The blob whose values become the features: a layer output, not a model input.
    ///   - outputName: The name of the extractor's output; nil for the blob's name.
    /// - Returns: The validated feature extractor.
    /// - Throws: A ``ModelToolsError`` when the model is not a neural network, no layer writes `blob`, or
    ///   `outputName` is taken by another blob.
    public func featureExtractor(outputBlob blob: String, outputName: String? = nil) throws -> CoreML_Specification_Model {
        let layers = try networkLayers()
        let location = "blob '\(blob)'"
        guard let producer = layers.index(producing: blob) else {
            if description_p.input.contains(where: { $0.name == blob }) {
                throw ModelToolsError(location, "is a model input, not a layer output")
            }
            let blobs = layers.flatMap(\.output)
            let list = blobs.count > 12 ? blobs.suffix(12).joined(separator: ", ") : blobs.joined(separator: ", ")
            throw ModelToolsError(location, "no layer writes this blob; layer outputs include \(list)")
        }
        let outputName = outputName ?? blob
        guard !outputName.isEmpty else { throw ModelToolsError(location, "the output name is empty") }

        // Keep the layers up to the producer that the blob depends on.
        var needed: Set<String> = [blob]
        var keep = [Bool](repeating: false, count: producer + 1)
        for index in stride(from: producer, through: 0, by: -1) where layers[index].output.contains(where: needed.contains) {
            keep[index] = true
            needed.formUnion(layers[index].input)
        }
        var kept: [CoreML_Specification_NeuralNetworkLayer] = []
        for index in 0...producer where keep[index] {
            var layer = layers[index]
            layer.isUpdatable = false
            layer.forEachWeight { _, weights in weights.isUpdatable = false }
            if outputName != blob {
                if kept.contains(where: { $0.output.contains(outputName) }) || layer.input.contains(outputName) {
                    throw ModelToolsError(location, "cannot rename it to '\(outputName)': another blob has that name")
                }
                layer.output = layer.output.map { $0 == blob ? outputName : $0 }
            }
            kept.append(layer)
        }

        var network = CoreML_Specification_NeuralNetwork()
        network.layers = kept
        let source = neuralNetworkSpecification!
        let inputs = description_p.input.filter { needed.contains($0.name) }
        network.preprocessing = source.preprocessing.filter { $0.featureName.isEmpty || needed.contains($0.featureName) }
        network.arrayInputShapeMapping = source.arrayInputShapeMapping
        network.imageInputShapeMapping = source.imageInputShapeMapping

        var extractor = CoreML_Specification_Model()
        extractor.specificationVersion = specificationVersion
        extractor.description_p.metadata = description_p.metadata
        let summary = description_p.metadata.shortDescription
        extractor.description_p.metadata.shortDescription = "Features '\(blob)'" + (summary.isEmpty ? "" : " of: \(summary)")
        extractor.description_p.input = inputs
        extractor.neuralNetwork = network
        var output = CoreML_Specification_FeatureDescription()
        output.name = outputName
        output.type.multiArrayType.dataType = .float32
        output.type.multiArrayType.shape = try extractor.blobShape(outputName).map(Int64.init)
        extractor.description_p.output = [output]
        try extractor.validate()
        return extractor
    }
}
