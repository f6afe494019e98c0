import CoreMLSpec
import Foundation

extension MLParameterKey {
    /// Any weight blob of a layer by the name the format gives it (`weights`, `bias`, `gamma`,
    /// `inputGateWeightMatrix`, …), scoped to the layer with ``scoped(to:)`` (an OpenCoreML addition:
    /// Core ML names only ``weights`` and ``biases``).
    public static func layerWeight(_ blobName: String) -> MLParameterKey { MLParameterKey(blobName) }

    /// The layer-table name of the blob this key names: `weights` → `weights`, `biases` → `bias`.
    var blobName: String { name == MLParameterKey.biases.name ? "bias" : name }
}

/// A neural-network layer found by name anywhere in a model (inside pipelines too), with a way to
/// change it in place.
enum LayerLocator {
    /// The layer named `name`, or nil.
    static func layer(named name: String, in model: CoreML_Specification_Model) -> CoreML_Specification_NeuralNetworkLayer? {
        var copy = model
        var found: CoreML_Specification_NeuralNetworkLayer?
        _ = modify(named: name, in: &copy) { found = $0 }
        return found
    }

    /// Calls `body` on every neural-network layer of `model`, in order (pipelines' models in order).
    static func forEachLayer(in model: CoreML_Specification_Model, _ body: (CoreML_Specification_NeuralNetworkLayer) -> Void) {
        switch model.type {
        case .neuralNetwork(let network)?: network.layers.forEach(body)
        case .neuralNetworkClassifier(let network)?: network.layers.forEach(body)
        case .neuralNetworkRegressor(let network)?: network.layers.forEach(body)
        case .pipeline(let pipeline)?: pipeline.models.forEach { forEachLayer(in: $0, body) }
        case .pipelineClassifier(let classifier)?: classifier.pipeline.models.forEach { forEachLayer(in: $0, body) }
        case .pipelineRegressor(let regressor)?: regressor.pipeline.models.forEach { forEachLayer(in: $0, body) }
        default: break
        }
    }

    /// Calls `body` on the layer named `name`; returns whether there is one.
    static func modify(named name: String, in model: inout CoreML_Specification_Model,
                       _ body: (inout CoreML_Specification_NeuralNetworkLayer) -> Void) -> Bool {
        func inNetwork<Spec: NeuralNetworkSpecification>(_ network: inout Spec) -> Bool {
            guard let index = network.layers.firstIndex(where: { $0.name == name }) else { return false }
            body(&network.layers[index])
            return true
        }
        func inPipeline(_ pipeline: inout CoreML_Specification_Pipeline) -> Bool {
            for index in pipeline.models.indices where modify(named: name, in: &pipeline.models[index], body) { return true }
            return false
        }
        switch model.type {
        case .neuralNetwork(var network)?:
            guard inNetwork(&network) else { return false }
            model.neuralNetwork = network
        case .neuralNetworkClassifier(var network)?:
            guard inNetwork(&network) else { return false }
            model.neuralNetworkClassifier = network
        case .neuralNetworkRegressor(var network)?:
            guard inNetwork(&network) else { return false }
            model.neuralNetworkRegressor = network
        case .pipeline(var pipeline)?:
            guard inPipeline(&pipeline) else { return false }
            model.pipeline = pipeline
        case .pipelineClassifier(var classifier)?:
            guard inPipeline(&classifier.pipeline) else { return false }
            model.pipelineClassifier = classifier
        case .pipelineRegressor(var regressor)?:
            guard inPipeline(&regressor.pipeline) else { return false }
            model.pipelineRegressor = regressor
        default:
            return false
        }
        return true
    }
}

extension MLModel {
    /// The natural shape of a layer's weight blob: an inner product's weights `[out, in]`, a
    /// convolution's `[out, kernelChannels, height, width]` (a deconvolution's `[kernelChannels,
    /// out / groups, height, width]`), an embedding's `[out, inputDim]`, an LSTM's input matrices
    /// `[hidden, input]` and recursion matrices `[hidden, hidden]`; every other blob flat. When the
    /// stored count does not match the declared sizes, flat.
    static func shape(of blob: LayerWeight, in layer: CoreML_Specification_NeuralNetworkLayer, count: Int) -> [Int] {
        let shape: [Int]
        switch (layer.layer, blob.name) {
        case (.innerProduct(let p)?, "weights"):
            shape = [Int(p.outputChannels), Int(p.inputChannels)]
        case (.convolution(let p)?, "weights"):
            let kernel = p.kernelSize.count == 2 ? p.kernelSize.map(Int.init) : [3, 3]
            shape = p.isDeconvolution
                ? [Int(p.kernelChannels), Int(p.outputChannels / max(p.nGroups, 1))] + kernel
                : [Int(p.outputChannels), Int(p.kernelChannels)] + kernel
        case (.embedding(let p)?, "weights"):
            shape = [Int(p.outputChannels), Int(p.inputDim)]
        case (.uniDirectionalLstm(let p)?, let name) where name.hasSuffix("WeightMatrix"):
            shape = [Int(p.outputVectorSize), Int(p.inputVectorSize)]
        case (.uniDirectionalLstm(let p)?, let name) where name.hasSuffix("RecursionMatrix"):
            shape = [Int(p.outputVectorSize), Int(p.outputVectorSize)]
        default:
            shape = [count]
        }
        return checkedProduct(shape) == count ? shape : [count]
    }

    /// The key of every weight blob training changes, in a stable order: the updatable layers as
    /// the model lists them (pipelines in order), each layer's trainable blobs in the format's order
    /// (`weights` then `bias`; an LSTM's input matrices, recursion matrices, bias and peephole
    /// vectors; a batch norm's `gamma` and `beta`, not its stored statistics). Each key is scoped
    /// to its layer: ``MLParameterKey/weights``, ``MLParameterKey/biases`` or
    /// ``MLParameterKey/layerWeight(_:)``. Read a value with ``parameterValue(for:)``; set values at
    /// load through ``MLModelConfiguration/parameters``. An OpenCoreML addition (a federated client
    /// exchanges exactly these).
    public var updatableWeightKeys: [MLParameterKey] {
        var keys: [MLParameterKey] = []
        LayerLocator.forEachLayer(in: specification) { layer in
            guard layer.isUpdatable else { return }
            for blob in layer.weightBlobs where blob.isTrainable {
                let key: MLParameterKey = switch blob.name {
                case "weights": .weights
                case "bias": .biases
                default: .layerWeight(blob.name)
                }
                keys.append(key.scoped(to: layer.name))
            }
        }
        return keys
    }

    /// The current values of a layer's weights or biases (``MLParameterKey/weights``,
    /// ``MLParameterKey/biases`` or ``MLParameterKey/layerWeight(_:)``, scoped to a layer), as a
    /// float32 `MLMultiArray`; nil when `key` is not a layer-weight key.
    func layerWeightValue(for key: MLParameterKey) throws -> MLMultiArray? {
        guard let scope = key.scope, key.name != MLParameterKey.numberOfNeighbors.name,
              modelDescription.parameterDescriptionsByKey[MLParameterKey(key.name)] == nil else { return nil }
        guard let layer = LayerLocator.layer(named: scope, in: specification) else {
            throw MLModelError(.parameters, "the model has no neural-network layer '\(scope)'")
        }
        guard let blob = layer.weightBlob(named: key.blobName) else {
            let names = layer.weightBlobs.map(\.name).joined(separator: ", ")
            throw MLModelError(.parameters, "layer '\(scope)' has no \(key.blobName) (its weights: \(names.isEmpty ? "none" : names))")
        }
        let values: [Float]
        do {
            values = try layer[keyPath: blob.path].floatValues()
        } catch {
            throw MLModelError(.parameters, "layer '\(scope)': \(blob.name) cannot be read (\(error))")
        }
        let array = try MLMultiArray(shape: Self.shape(of: blob, in: layer, count: values.count).map { NSNumber(value: $0) }, dataType: .float32)
        values.withUnsafeBufferPointer { array.dataPointer.assumingMemoryBound(to: Float.self).update(from: $0.baseAddress!, count: values.count) }
        return array
    }

    /// `specification` with the configuration's layer weights set: each value an `MLMultiArray` (or
    /// `[Float]`, `[Double]`) holding exactly the blob's count of values, all finite.
    static func applyingLayerWeights(_ overrides: [MLParameterKey: Any], to specification: CoreML_Specification_Model) throws -> CoreML_Specification_Model {
        var model = specification
        let description = MLModelDescription(specification: specification)
        for (key, value) in overrides {
            guard let scope = key.scope, description.parameterDescriptionsByKey[MLParameterKey(key.name)] == nil else { continue }
            let values: [Float]
            // The arrays first: asking whether a `[Float]` is an `MLMultiArray` (a class) makes
            // Foundation bridge it to an NSArray of one NSNumber per value before answering no —
            // 60 % of setting LeNet's weights.
            switch value {
            case let floats as [Float]: values = floats
            case let doubles as [Double]: values = doubles.map(Float.init)
            case let array as MLMultiArray: values = array.floatValues()
            default:
                throw MLModelError(.parameters, "\(key): give an MLMultiArray, [Float] or [Double], not \(type(of: value))")
            }
            if let bad = values.firstIndex(where: { !$0.isFinite }) {
                throw MLModelError(.parameters, "\(key): value \(bad) is \(values[bad]), not a finite number")
            }
            var problem: String?
            let found = LayerLocator.modify(named: scope, in: &model) { layer in
                guard let blob = layer.weightBlob(named: key.blobName) else {
                    problem = "layer '\(scope)' has no \(key.blobName)"
                    return
                }
                let expected = layer[keyPath: blob.path].count
                guard values.count == expected else {
                    problem = "layer '\(scope)': \(blob.name) holds \(expected) values, \(values.count) given"
                    return
                }
                var weights = CoreML_Specification_WeightParams()
                weights.floatValue = values
                weights.isUpdatable = layer[keyPath: blob.path].isUpdatable
                layer[keyPath: blob.path] = weights
            }
            if !found { problem = "the model has no neural-network layer '\(scope)'" }
            if let problem { throw MLModelError(.parameters, problem) }
        }
        return model
    }
}
