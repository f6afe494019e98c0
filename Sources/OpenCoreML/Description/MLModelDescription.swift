import CoreMLSpec
import Foundation

/// What a model takes and produces, its metadata, class labels and parameters.
public final class MLModelDescription: @unchecked Sendable, CustomStringConvertible {
    /// The model's inputs, by name.
    public let inputDescriptionsByName: [String: MLFeatureDescription]
    /// The model's outputs, by name.
    public let outputDescriptionsByName: [String: MLFeatureDescription]
    /// The states of a stateful model (iOS 18), by name: the buffers an ``MLState`` made by
    /// ``MLModel/makeState()`` carries from one prediction to the next. Empty for other models.
    public let stateDescriptionsByName: [String: MLFeatureDescription]
    /// The features an update reads, by name: the inputs it trains on plus the loss target or, for a
    /// classifier, the true label. Empty for models that are not updatable.
    public let trainingInputDescriptionsByName: [String: MLFeatureDescription]
    /// For a classifier, the name of the output that holds the predicted class label; nil otherwise.
    public let predictedFeatureName: String?
    /// For a classifier, the name of the output that holds every class's probability, a dictionary keyed
    /// by class label; nil otherwise.
    public let predictedProbabilitiesName: String?
    /// The author, description, version, license and creator-defined entries that the model file holds.
    /// Entries the file leaves empty are absent. The creator-defined entries are a `[String: String]`.
    public let metadata: [MLModelMetadataKey: Any]
    /// `String`s or `NSNumber`s (Int64 labels); nil for models that are not classifiers.
    public let classLabels: [Any]?
    /// The parameters an app may set through ``MLModelConfiguration/parameters`` or an update task, with
    /// their defaults and allowed values: the hyperparameters of an updatable neural network, or the
    /// number of neighbours of a k-nearest-neighbours classifier. For a pipeline, those of its last model.
    public let parameterDescriptionsByKey: [MLParameterKey: MLParameterDescription]
    /// Whether the model can be trained on device: the file marks it updatable.
    public let isUpdatable: Bool

    /// Inputs, outputs and training inputs in the model's order (an OpenCoreML addition).
    public let inputDescriptions: [MLFeatureDescription]
    /// The outputs in the model's order (an OpenCoreML addition).
    public let outputDescriptions: [MLFeatureDescription]
    /// The training inputs in the model's order (an OpenCoreML addition).
    public let trainingInputDescriptions: [MLFeatureDescription]
    /// The states in the model's order (an OpenCoreML addition).
    public let stateDescriptions: [MLFeatureDescription]

    init(specification: CoreML_Specification_Model) {
        let description = specification.description_p
        inputDescriptions = description.input.map(MLFeatureDescription.init)
        outputDescriptions = description.output.map(MLFeatureDescription.init)
        trainingInputDescriptions = description.trainingInput.map(MLFeatureDescription.init)
        stateDescriptions = description.state.map(MLFeatureDescription.init)
        stateDescriptionsByName = Dictionary(stateDescriptions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        inputDescriptionsByName = Dictionary(inputDescriptions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        outputDescriptionsByName = Dictionary(outputDescriptions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        trainingInputDescriptionsByName = Dictionary(trainingInputDescriptions.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        predictedFeatureName = description.predictedFeatureName.isEmpty ? nil : description.predictedFeatureName
        predictedProbabilitiesName = description.predictedProbabilitiesName.isEmpty ? nil : description.predictedProbabilitiesName
        isUpdatable = specification.isUpdatable

        let meta = description.metadata
        var metadata: [MLModelMetadataKey: Any] = [:]
        if !meta.author.isEmpty { metadata[.author] = meta.author }
        if !meta.shortDescription.isEmpty { metadata[.description] = meta.shortDescription }
        if !meta.versionString.isEmpty { metadata[.versionString] = meta.versionString }
        if !meta.license.isEmpty { metadata[.license] = meta.license }
        if !meta.userDefined.isEmpty { metadata[.creatorDefinedKey] = meta.userDefined }
        self.metadata = metadata

        switch specification.classLabelSet {
        case .strings(let labels): classLabels = labels
        case .int64s(let labels): classLabels = labels.map { NSNumber(value: $0) }
        case .none: classLabels = nil
        }
        parameterDescriptionsByKey = Self.parameters(of: specification)
    }

    /// The parameters of the model's updatable part: the model itself, or a pipeline's last model.
    private static func parameters(of model: CoreML_Specification_Model) -> [MLParameterKey: MLParameterDescription] {
        var result: [MLParameterKey: MLParameterDescription] = [:]
        func add(_ description: MLParameterDescription) { result[description.key] = description }
        switch model.type {
        case .pipeline?, .pipelineClassifier?, .pipelineRegressor?:
            return model.pipelineModels.last.map(parameters(of:)) ?? [:]
        case .kNearestNeighborsClassifier(let knn)?:
            add(MLParameterDescription(.numberOfNeighbors, knn.numberOfNeighbors))
        default:
            guard let network = model.neuralNetworkSpecification, model.isUpdatable, network.hasUpdateParams else { break }
            let update = network.updateParams
            switch update.optimizer.optimizerType {
            case .sgdOptimizer(let sgd)?:
                add(MLParameterDescription(.learningRate, sgd.learningRate))
                add(MLParameterDescription(.miniBatchSize, sgd.miniBatchSize))
                if sgd.hasMomentum { add(MLParameterDescription(.momentum, sgd.momentum)) }
            case .adamOptimizer(let adam)?:
                add(MLParameterDescription(.learningRate, adam.learningRate))
                add(MLParameterDescription(.miniBatchSize, adam.miniBatchSize))
                add(MLParameterDescription(.beta1, adam.beta1))
                add(MLParameterDescription(.beta2, adam.beta2))
                add(MLParameterDescription(.eps, adam.eps))
            case nil:
                break
            }
            if update.hasEpochs { add(MLParameterDescription(.epochs, update.epochs)) }
            if update.hasShuffle { add(MLParameterDescription(key: .shuffle, defaultValue: update.shuffle.defaultValue)) }
            if update.hasSeed { add(MLParameterDescription(.seed, update.seed)) }
        }
        return result
    }

    /// Checks configuration overrides against the parameters the model declares and returns them
    /// converted to each parameter's type (`Int`, `Double` or `Bool`).
    func checkOverrides(_ overrides: [MLParameterKey: Any]) throws -> [MLParameterKey: Any] {
        var accepted: [MLParameterKey: Any] = [:]
        for (key, value) in overrides {
            // Layer weights (weights, biases, or any blob named by `layerWeight(_:)` and scoped to a
            // layer) are not hyperparameters; they are checked where they are used.
            if key.name == MLParameterKey.weights.name || key.name == MLParameterKey.biases.name
                || key.scope != nil && parameterDescriptionsByKey[MLParameterKey(key.name)] == nil {
                accepted[key] = value
                continue
            }
            guard let description = parameterDescriptionsByKey[MLParameterKey(key.name)] else {
                let known = parameterDescriptionsByKey.keys.map(\.name).sorted().joined(separator: ", ")
                throw MLModelError(.parameters, "parameter '\(key.name)' is not a parameter of this model"
                    + (known.isEmpty ? " (it has none)" : " (it has: \(known))"))
            }
            accepted[key] = try description.accept(value)
        }
        return accepted
    }

    /// The inputs and outputs with their types, on one line.
    public var description: String {
        let inputs = inputDescriptions.map(\.description).joined(separator: ", ")
        let outputs = outputDescriptions.map(\.description).joined(separator: ", ")
        return "inputs: [\(inputs)], outputs: [\(outputs)]"
    }
}
