import CoreMLSpec

/// A neural-network model compiled once into an executable graph: layers in dependency order,
/// blobs whose buffers are sized for the largest batch seen and reused for every batch.
///
/// ```swift
/// let network = try Network(model: specification)
/// network.reserve(batch: 32, training: true)
/// // fill network.inputBlob(named: "image")!.value and the target blobs, then:
/// let loss = try network.trainingStep(batch: 32)
/// optimizer.update(network.parameters)
/// ```
///
/// Not thread-safe: one batch at a time.
package final class Network: @unchecked Sendable {
    /// Layers in the order they run.
    package let nodes: [LayerNode]
    /// Every blob by name (inputs, layer outputs, targets).
    package let blobs: [String: Blob]
    /// The model's input feature names.
    package let inputNames: [String]
    /// The loss targets (such as `output_true`): blobs the caller fills with every training batch.
    /// A cross-entropy target holds one class index per example.
    package let targetNames: [String]
    /// All parameters, in layer order.
    package let parameters: [Parameter]
    let losses: [LossNode]
    private let preprocessing: [PreprocessingNode]
    /// Raw input blobs the caller fills, for inputs that have preprocessing.
    private let rawInputs: [String: Blob]
    private var reservedBatch = 0
    private var reservedForTraining = false

    /// Per-layer wall times, collected while set (see ``enableTimings()``).
    package private(set) var timings: LayerTimings?

    /// Compiles the neural network inside `model` (a `neuralNetwork`, classifier or regressor).
    /// With `fusingLayers`, a convolution followed by a ReLU (and a max pooling) that nothing else
    /// reads runs as one layer, image by image, without filling the blobs in between.
    /// `extras` adds training-only dropout and per-step loss weights (see ``TrainingGraphExtras``).
    /// With `memoryLimit`, the blobs' values for one example are checked against it before any layer
    /// is built, because layers size their own tables (index maps, upsampling axes) from the shapes
    /// when they are built; `checkMemory(batch:training:limit:)` then checks the real batch.
    package init(
        model: CoreML_Specification_Model, fusingLayers: Bool = true, extras: TrainingGraphExtras = TrainingGraphExtras(),
        memoryLimit: Int? = nil
    ) throws {
        guard let network = model.neuralNetworkSpecification else {
            throw EngineError("model", "a \(model.modelTypeName) model is not a neural network")
        }
        let exact = network.arrayInputShapeMapping == .exactArrayMapping
        // Every blob's shape, by the layer table.
        let shapes: [String: [Int]]
        do {
            shapes = try model.neuralNetworkBlobShapes()
        } catch let error as ModelValidationError {
            throw EngineError(error.location, error.message)
        }
        if let memoryLimit { try Self.checkShapes(shapes, of: network, limit: memoryLimit) }
        var blobs: [String: Blob] = [:]
        func blob(_ name: String) -> Blob {
            if let existing = blobs[name] { return existing }
            let made = Blob(name: name)
            blobs[name] = made
            return made
        }

        // Inputs, with their preprocessing.
        var preprocessing: [PreprocessingNode] = []
        var rawInputs: [String: Blob] = [:]
        let imageInputs = model.description_p.input.filter { if case .imageType? = $0.type.type { return true } else { return false } }
        for feature in model.description_p.input {
            let input = blob(feature.name)
            input.shape = TensorShape(shapes[feature.name] ?? [])
            let steps = network.preprocessing.filter {
                $0.featureName == feature.name || ($0.featureName.isEmpty && imageInputs.count == 1 && imageInputs[0].name == feature.name)
            }
            if let step = steps.first, step.preprocessor != nil {
                let raw = Blob(name: feature.name, shape: input.shape)
                var colorSpace: CoreML_Specification_ImageFeatureType.ColorSpace?
                if case .imageType(let image)? = feature.type.type { colorSpace = image.colorSpace }
                preprocessing.append(try PreprocessingNode(step, colorSpace: colorSpace, raw: raw, output: input))
                rawInputs[feature.name] = raw
            }
        }
        inputNames = model.description_p.input.map(\.name)
        let inputSet = Set(inputNames)
        // Loss targets: training inputs (or, for classifiers, fed from the label feature by the caller).
        var targets: [String] = []
        var declaredTargets: Set<String> = []
        for loss in network.hasUpdateParams ? network.updateParams.lossLayers : [] {
            let name: String
            switch loss.lossLayerType {
            case .categoricalCrossEntropyLossLayer(let cce)?: name = cce.target
            case .meanSquaredErrorLossLayer(let mse)?: name = mse.target
            case nil: continue
            }
            guard !inputSet.contains(name), !targets.contains(name) else { continue }
            let target = blob(name)
            if let feature = model.description_p.trainingInput.first(where: { $0.name == name }),
               let shape = try? feature.type.networkShape(exactMapping: exact) {
                // Like every blob's, the target's element count must fit an Int.
                guard checkedProduct(shape) != nil else {
                    throw EngineError("training input '\(name)'", SizeCheckFailure.product(shape, what: "the shape"))
                }
                target.shape = TensorShape(shape)
                declaredTargets.insert(name)
            }
            targets.append(name)
        }
        targetNames = targets
        for weightName in extras.lossWeights.values { _ = blob(weightName) }

        // Layers, in dependency order.
        let order = try CoreML_Specification_NeuralNetworkLayer.dependencyOrder(network.layers, available: inputSet)
        var nodes: [LayerNode] = []
        // Training-only dropout: later layers read the dropout's output instead of the blob.
        var dropoutOutputs: [String: String] = [:]
        var dropoutCount: UInt64 = 0
        func addDropout(after source: Blob) {
            guard let rate = extras.dropout[source.name], dropoutOutputs[source.name] == nil else { return }
            let output = blob(TrainingGraphExtras.dropoutOutput(of: source.name))
            output.shape = source.shape
            dropoutCount += 1
            nodes.append(DropoutNode(after: source, output: output, rate: rate, seed: extras.seed &+ dropoutCount &* 0x632B_E59B_D9B4_E019))
            dropoutOutputs[source.name] = output.name
        }
        for name in inputNames { addDropout(after: blob(name)) }
        for index in order {
            let layer = network.layers[index]
            let inputs = layer.input.map { blob(dropoutOutputs[$0] ?? $0) }
            let node = try LayerFactory.make(layer, inputs: inputs, outputs: layer.output.map(blob))
            for output in node.outputs { output.shape = TensorShape(shapes[output.name] ?? []) }
            try node.prepareForShapes()
            nodes.append(node)
            for output in node.outputs { addDropout(after: output) }
        }
        self.nodes = nodes
        self.blobs = blobs
        self.preprocessing = preprocessing
        self.rawInputs = rawInputs
        parameters = nodes.flatMap(\.parameters)

        // Losses.
        var losses: [LossNode] = []
        if network.hasUpdateParams {
            let producers = Dictionary(nodes.flatMap { node in node.outputs.map { ($0.name, node) } }, uniquingKeysWith: { a, _ in a })
            for loss in network.updateParams.lossLayers {
                switch loss.lossLayerType {
                case .categoricalCrossEntropyLossLayer(let cce)?:
                    guard let input = blobs[cce.input], let target = blobs[cce.target] else {
                        throw EngineError("loss layer '\(loss.name)'", "input '\(cce.input)' or target '\(cce.target)' is not in the network")
                    }
                    if let weightName = extras.lossWeights[loss.name], let weights = blobs[weightName] {
                        let node = WeightedCrossEntropyLossNode(name: loss.name, input: input, target: target, weights: weights)
                        node.fusedSoftmax = producers[cce.input] as? SoftmaxNode
                        losses.append(node)
                        continue
                    }
                    let node = CrossEntropyLossNode(name: loss.name, input: input, target: target)
                    node.fusedSoftmax = producers[cce.input] as? SoftmaxNode
                    losses.append(node)
                case .meanSquaredErrorLossLayer(let mse)?:
                    guard let input = blobs[mse.input], let target = blobs[mse.target] else {
                        throw EngineError("loss layer '\(loss.name)'", "input '\(mse.input)' or target '\(mse.target)' is not in the network")
                    }
                    if !declaredTargets.contains(mse.target) { target.shape = input.shape }
                    losses.append(MeanSquaredErrorLossNode(name: loss.name, input: input, target: target))
                case nil:
                    throw EngineError("loss layer '\(loss.name)'", "no loss type is set")
                }
            }
        }
        // Fuse softmax + cross-entropy only when the loss is the probabilities' sole consumer.
        let consumed = Set(nodes.flatMap { $0.inputs.map(\.name) })
        for case let loss as CrossEntropyLossNode in losses {
            let shared = consumed.contains(loss.input.name) || losses.filter({ $0.input === loss.input }).count > 1
            if shared { loss.fusedSoftmax = nil }
            loss.fusedSoftmax?.isFusedWithLoss = true
            try loss.inferShapes()
        }
        for case let loss as WeightedCrossEntropyLossNode in losses {
            let shared = consumed.contains(loss.input.name) || losses.filter({ $0.input === loss.input }).count > 1
            if shared { loss.fusedSoftmax = nil }
            loss.fusedSoftmax?.isFusedWithLoss = true
        }
        for loss in losses where !(loss is CrossEntropyLossNode) { try loss.inferShapes() }
        self.losses = losses

        // Which blobs need gradients: those downstream of a trainable parameter.
        for node in nodes where node.hasTrainableParameters || node.inputs.contains(where: \.needsGradient) {
            node.outputs.forEach { $0.needsGradient = true }
        }

        if fusingLayers {
            var kept = Set(model.description_p.output.map(\.name) + inputNames + targets + losses.map(\.input.name))
            kept.formUnion(nodes.last?.outputs.map(\.name) ?? [])
            if case .neuralNetworkClassifier(let classifier)? = model.type { kept.insert(classifier.labelProbabilityLayerName) }
            Self.fuseConvolutionChains(nodes, keeping: kept)
        }
    }

    /// Multiply-adds in the matrix products of one example: a forward pass, and a training step
    /// (forward, weight gradients, and the input gradients that some parameter upstream needs).
    package var multiplyAddsPerExample: (forward: Int, training: Int) {
        let entries = LayerTimings(nodes: nodes).entries
        return (entries.reduce(0) { $0 + $1.forwardMultiplyAdds }, entries.reduce(0) { $0 + $1.trainingMultiplyAdds })
    }

    /// Starts collecting per-layer times (from zero) on `clock` in ``timings``.
    package func enableTimings(clock: LayerTimings.Clock = .wall) {
        timings = LayerTimings(nodes: nodes, clock: clock)
    }

    /// Stops collecting per-layer times.
    package func disableTimings() {
        timings = nil
    }

    /// Whether the model has loss layers and trainable parameters.
    package var isTrainable: Bool { !losses.isEmpty && parameters.contains(where: \.isTrainable) }

    /// The blob the caller fills for model input or training target `name`.
    package func inputBlob(named name: String) -> Blob? {
        rawInputs[name] ?? blobs[name]
    }

    /// Sizes every buffer for `batch` examples; allocates only when `batch` (or training) is new.
    package func reserve(batch: Int, training: Bool) {
        guard batch > reservedBatch || (training && !reservedForTraining) else { return }
        let size = max(batch, reservedBatch)
        let lossInputs = Set(losses.flatMap { [ObjectIdentifier($0.input), ObjectIdentifier($0.gradientBlob)] })
        for blob in blobs.values {
            blob.reserve(batch: size, training: training || reservedForTraining)
            if training && lossInputs.contains(ObjectIdentifier(blob)) { blob.gradient.reserve(size * blob.shape.count) }
        }
        for raw in rawInputs.values { raw.reserve(batch: size, training: false) }
        for node in nodes where node.fusedInto == nil { node.reserve(batch: size, training: training || reservedForTraining) }
        reservedBatch = size
        reservedForTraining = reservedForTraining || training
    }

    /// Runs every layer on the first `batch` examples of the input blobs.
    package func forward(batch: Int, training: Bool = false) {
        reserve(batch: batch, training: training)
        for step in preprocessing { step.forward(batch: batch) }
        guard let timings else {
            for node in nodes where node.fusedInto == nil { node.forward(batch: batch, training: training) }
            return
        }
        timings.countBatch()
        for (index, node) in nodes.enumerated() where node.fusedInto == nil {
            timings.addForward(index, timings.time { node.forward(batch: batch, training: training) })
        }
    }

    /// Forward, losses and backward for `batch` examples: returns the summed mean loss and leaves
    /// every trainable parameter's gradient in `Parameter.gradient`. Throws for bad targets.
    package func trainingStep(batch: Int) throws -> Float {
        forward(batch: batch, training: true)
        for blob in blobs.values { blob.gradientWritten = false }
        var total: Float = 0
        if let timings {
            timings.loss += try timings.time {
                for loss in losses { total += try loss.compute(batch: batch) }
            }
        } else {
            for loss in losses { total += try loss.compute(batch: batch) }
        }
        for (index, node) in nodes.enumerated().reversed() where node.fusedInto == nil {
            let trainable = node.hasTrainableParameters
            guard trainable || node.inputs.contains(where: \.needsGradient) else { continue }
            let outputs = node.producedOutputs
            if !outputs.contains(where: \.gradientWritten) {
                // No gradient reaches this layer: its parameters get none.
                for parameter in node.parameters where parameter.isTrainable { parameter.gradient.zero(parameter.count) }
                continue
            }
            for output in outputs where !output.gradientWritten {
                output.gradient.zero(batch * output.shape.count)
                output.gradientWritten = true
            }
            if let timings {
                timings.addBackward(index, timings.time { node.backward(batch: batch) })
            } else {
                node.backward(batch: batch)
            }
        }
        return total
    }

    /// How many of the first `batch` examples the first cross-entropy loss's probabilities classify
    /// correctly (arg max equals the target index), after a forward pass; nil without such a loss.
    package func correctClassifications(batch: Int) -> Int? {
        guard let loss = losses.first(where: { $0 is CrossEntropyLossNode }) else { return nil }
        let classes = loss.input.shape.count
        var correct = 0
        for example in 0..<batch {
            let row = loss.input.value.pointer + example * classes
            var best = 0
            for index in 1..<max(classes, 1) where row[index] > row[best] { best = index }
            if Float(best) == loss.target.value.pointer[example] { correct += 1 }
        }
        return correct
    }

    /// The kind of each loss target: `true` for a class index (cross-entropy), `false` for values.
    package var targetIsClassIndex: [String: Bool] {
        Dictionary(losses.map { ($0.target.name, $0 is CrossEntropyLossNode) }, uniquingKeysWith: { a, _ in a })
    }

    /// The number of classes a cross-entropy target indexes, by target name.
    package var classCounts: [String: Int] {
        Dictionary(losses.compactMap { loss in (loss as? CrossEntropyLossNode).map { ($0.target.name, $0.classCount) } }, uniquingKeysWith: { a, _ in a })
    }

    /// Writes the current parameter values into the matching layers of `model`.
    package func store(in model: inout CoreML_Specification_Model) {
        let byName = Dictionary(nodes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        func update<Spec: NeuralNetworkSpecification>(_ network: inout Spec) {
            for index in network.layers.indices {
                byName[network.layers[index].name]?.store(in: &network.layers[index])
            }
        }
        switch model.type {
        case .neuralNetwork(var network)?:
            update(&network)
            model.neuralNetwork = network
        case .neuralNetworkClassifier(var network)?:
            update(&network)
            model.neuralNetworkClassifier = network
        case .neuralNetworkRegressor(var network)?:
            update(&network)
            model.neuralNetworkRegressor = network
        default:
            break
        }
    }
}
