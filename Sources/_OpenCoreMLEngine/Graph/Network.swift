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
    /// reads runs as one layer, image by image, without filling the blobs in between; so does a
    /// residual `add` followed by an activation.
    /// `extras` adds training-only dropout and per-step loss weights (see ``TrainingGraphExtras``).
    /// With `memoryLimit`, the blobs' values for one example are checked against it before any layer
    /// is built, because layers size their own tables (index maps, upsampling axes) from the shapes
    /// when they are built; `checkMemory(batch:training:limit:)` then checks the real batch.
    package init(
        model: CoreML_Specification_Model, fusingLayers: Bool = true, extras: TrainingGraphExtras = TrainingGraphExtras(),
        memoryLimit: Int? = nil
    ) throws {
        var builder = try Builder(model: model, extras: extras, memoryLimit: memoryLimit)
        try builder.addInputs()
        try builder.addTargets()
        try builder.addLayers()
        try builder.addLosses()
        try builder.fuseSoftmaxIntoLosses()
        builder.markBlobsNeedingGradients()
        if fusingLayers { builder.fuseConvolutionChains() }
        nodes = builder.nodes
        blobs = builder.blobs
        inputNames = builder.inputNames
        targetNames = builder.targets
        preprocessing = builder.preprocessing
        rawInputs = builder.rawInputs
        losses = builder.losses
        parameters = nodes.flatMap(\.parameters)
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

    /// Checks, for training, that the loss's gradient reaches every trainable parameter: each layer
    /// between a trainable layer and a loss must pass a gradient to the inputs that need one. A
    /// layer without a backward (or one that gives an input no gradient, as an embedding its
    /// indices) would leave the layers before it with zero gradients; that is an error naming it.
    package func checkGradientPaths() throws {
        var producer: [ObjectIdentifier: LayerNode] = [:]
        for node in nodes { for output in node.outputs { producer[ObjectIdentifier(output)] = node } }
        var reaching = Set(losses.flatMap { [ObjectIdentifier($0.input), ObjectIdentifier($0.gradientBlob)] })
        for node in nodes.reversed() where node.outputs.contains(where: { reaching.contains(ObjectIdentifier($0)) }) {
            for (index, input) in node.inputs.enumerated() {
                reaching.insert(ObjectIdentifier(input))
                guard input.needsGradient, !node.passesGradient(toInput: index) else { continue }
                // Name a trainable layer upstream, for the message.
                var pending = [input], seen = Set<ObjectIdentifier>(), trainable: LayerNode?
                while trainable == nil, let blob = pending.popLast() {
                    guard seen.insert(ObjectIdentifier(blob)).inserted, let source = producer[ObjectIdentifier(blob)] else { continue }
                    if source.hasTrainableParameters { trainable = source } else { pending += source.inputs }
                }
                let upstream = trainable.map { "updatable layer '\($0.name)' (\($0.typeName))" } ?? "an updatable layer"
                let what = node.hasBackward ? "passes no gradient to its input '\(input.name)'" : "has no backward pass (its input '\(input.name)' would get no gradient)"
                throw node.fail("\(what), but \(upstream) before it needs the loss's gradient through it; this layer cannot be trained through (make the layers before it not updatable)")
            }
        }
    }

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
