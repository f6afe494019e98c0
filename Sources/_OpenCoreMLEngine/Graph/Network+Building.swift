import CoreMLSpec

extension Network {
    /// A network while ``Network/init(model:fusingLayers:extras:memoryLimit:)`` builds it, one
    /// named stage after another: blob shapes, inputs (with their preprocessing), loss targets,
    /// layers (by the factory, with training-only dropout), losses, the softmax each cross-entropy
    /// loss may take over, which blobs need gradients, and the fused convolution chains.
    struct Builder {
        let model: CoreML_Specification_Model
        let network: any NeuralNetworkSpecification
        let extras: TrainingGraphExtras
        /// Every blob's shape, by the layer table.
        let shapes: [String: [Int]]
        /// The model's input feature names.
        let inputNames: [String]

        private(set) var blobs: [String: Blob] = [:]
        private(set) var preprocessing: [PreprocessingNode] = []
        /// Raw input blobs the caller fills, for inputs that have preprocessing.
        private(set) var rawInputs: [String: Blob] = [:]
        private(set) var targets: [String] = []
        /// The targets whose shape a training input declares (others take their loss input's).
        private var declaredTargets: Set<String> = []
        private(set) var nodes: [LayerNode] = []
        private(set) var losses: [LossNode] = []
        /// Training-only dropout: later layers read the dropout's output instead of the blob.
        private var dropoutOutputs: [String: String] = [:]
        private var dropoutCount: UInt64 = 0

        /// The first stage: the neural network inside `model` and every blob's shape, checked
        /// against `memoryLimit` (one example's values) before any layer is built.
        init(model: CoreML_Specification_Model, extras: TrainingGraphExtras, memoryLimit: Int?) throws {
            guard let network = model.neuralNetworkSpecification else {
                throw EngineError("model", "a \(model.modelTypeName) model is not a neural network")
            }
            do {
                shapes = try model.neuralNetworkBlobShapes()
            } catch let error as ModelValidationError {
                throw EngineError(error.location, error.message)
            }
            if let memoryLimit { try Network.checkShapes(shapes, of: network, limit: memoryLimit) }
            self.model = model
            self.network = network
            self.extras = extras
            inputNames = model.description_p.input.map(\.name)
        }

        /// The blob named `name`, made on first mention.
        mutating func blob(_ name: String) -> Blob {
            if let existing = blobs[name] { return existing }
            let made = Blob(name: name)
            blobs[name] = made
            return made
        }

        /// The model's inputs, with the preprocessing steps that fill them from raw blobs.
        mutating func addInputs() throws {
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
        }

        /// Loss targets: training inputs (or, for classifiers, fed from the label feature by the
        /// caller), shaped as their training input declares; and the loss-weight blobs.
        mutating func addTargets() throws {
            let inputSet = Set(inputNames), exact = network.arrayInputShapeMapping == .exactArrayMapping
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
            for weightName in extras.lossWeights.values { _ = blob(weightName) }
        }

        /// The layers in dependency order, each made by ``LayerFactory`` and prepared for its
        /// blobs' shapes, with training-only dropout after the blobs `extras` names.
        mutating func addLayers() throws {
            let order = try CoreML_Specification_NeuralNetworkLayer.dependencyOrder(network.layers, available: Set(inputNames))
            for name in inputNames { addDropout(after: blob(name)) }
            for index in order {
                let layer = network.layers[index]
                var inputs: [Blob] = [], outputs: [Blob] = []
                for name in layer.input { inputs.append(blob(dropoutOutputs[name] ?? name)) }
                for name in layer.output { outputs.append(blob(name)) }
                let node = try LayerFactory.make(layer, inputs: inputs, outputs: outputs)
                for output in node.outputs { output.shape = TensorShape(shapes[output.name] ?? []) }
                try node.prepareForShapes()
                nodes.append(node)
                for output in node.outputs { addDropout(after: output) }
            }
        }

        /// A dropout node after `source` when `extras` asks for one there (once per blob).
        private mutating func addDropout(after source: Blob) {
            guard let rate = extras.dropout[source.name], dropoutOutputs[source.name] == nil else { return }
            let output = blob(TrainingGraphExtras.dropoutOutput(of: source.name))
            output.shape = source.shape
            dropoutCount += 1
            nodes.append(DropoutNode(after: source, output: output, rate: rate, seed: extras.seed &+ dropoutCount &* 0x632B_E59B_D9B4_E019))
            dropoutOutputs[source.name] = output.name
        }

        /// The loss layers of the update parameters, each cross-entropy loss given the softmax
        /// layer that produces its input (if any) as a candidate for fusion.
        mutating func addLosses() throws {
            guard network.hasUpdateParams else { return }
            let producers = Dictionary(nodes.flatMap { node in node.outputs.map { ($0.name, node) } }, uniquingKeysWith: { a, _ in a })
            for loss in network.updateParams.lossLayers {
                switch loss.lossLayerType {
                case .categoricalCrossEntropyLossLayer(let cce)?:
                    guard let input = blobs[cce.input], let target = blobs[cce.target] else {
                        throw EngineError("loss layer '\(loss.name)'", "input '\(cce.input)' or target '\(cce.target)' is not in the network")
                    }
                    if let weightName = extras.lossWeights[loss.name], let weights = blobs[weightName] {
                        let node = WeightedCrossEntropyLossNode(name: loss.name, input: input, target: target, weights: weights)
                        node.fusedSoftmax = producers[cce.input] as? any LossFusableSoftmax
                        losses.append(node)
                        continue
                    }
                    let node = CrossEntropyLossNode(name: loss.name, input: input, target: target)
                    node.fusedSoftmax = producers[cce.input] as? any LossFusableSoftmax
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

        /// Checks every loss's shapes, then fuses softmax (classic or softmaxND) + cross-entropy
        /// only when the loss is the probabilities' sole consumer and the softmax normalizes exactly
        /// the loss's class vectors (contiguous, of the loss's class count).
        func fuseSoftmaxIntoLosses() throws {
            let consumed = Set(nodes.flatMap { $0.inputs.map(\.name) })
            func shared(_ input: Blob) -> Bool {
                consumed.contains(input.name) || losses.filter({ $0.input === input }).count > 1
            }
            for loss in losses { try loss.inferShapes() }
            for case let loss as CrossEntropyLossNode in losses {
                if shared(loss.input) || loss.fusedSoftmax?.contiguousLength != loss.classCount { loss.fusedSoftmax = nil }
                loss.fusedSoftmax?.isFusedWithLoss = true
            }
            for case let loss as WeightedCrossEntropyLossNode in losses {
                if shared(loss.input) || loss.fusedSoftmax?.contiguousLength != loss.classCount { loss.fusedSoftmax = nil }
                loss.fusedSoftmax?.isFusedWithLoss = true
            }
        }

        /// Marks the blobs that need gradients: those downstream of a trainable parameter.
        func markBlobsNeedingGradients() {
            for node in nodes where node.hasTrainableParameters || node.inputs.contains(where: \.needsGradient) {
                node.outputs.forEach { $0.needsGradient = true }
            }
        }

        /// Fuses convolution chains and residual adds with their activation, and hardswish's three layers into one, keeping every blob someone outside the chain reads: the
        /// model's outputs, inputs, targets, loss inputs, the last layer's outputs and a
        /// classifier's probabilities.
        func fuseConvolutionChains() {
            var kept = Set(model.description_p.output.map(\.name) + inputNames + targets + losses.map(\.input.name))
            kept.formUnion(nodes.last?.outputs.map(\.name) ?? [])
            if case .neuralNetworkClassifier(let classifier)? = model.type { kept.insert(classifier.labelProbabilityLayerName) }
            Network.fuseConvolutionChains(nodes, keeping: kept)
            Network.fuseResidualAdds(nodes, keeping: kept)
            Network.fuseHardSwishes(nodes, keeping: kept)
        }
    }
}
