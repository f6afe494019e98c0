import CoreMLSpec
import Foundation

/// A Core ML model declared in Swift, SwiftCoreMLTools-style:
///
/// ```swift
/// let model = Model(version: 4, shortDescription: "Trivial linear regression", author: "me", license: "MIT",
///                   userDefined: ["source": "OpenCoreMLTools"]) {
///     Input(name: "x", shape: [1])
///     Output(name: "y", shape: [1])
///     NeuralNetwork {
///         InnerProduct(name: "dense", input: ["x"], output: ["y"], inputChannels: 1, outputChannels: 1)
///     }
/// }
/// try model.coreMLData!.write(to: URL(fileURLWithPath: "model.mlmodel"))
/// ```
///
/// Items keep their order. `makeSpecification()` assembles and validates the model, throwing an
/// error that names the part at fault; `coreMLData` is the serialized model, or nil when the
/// declaration does not make a valid one.
public struct Model: ModelConvertible {
    /// The specification version the file declares (4, Core ML 3, by default: the first with on-device
    /// training). Writes `specificationVersion`.
    public let version: UInt
    /// What the model does, in a sentence. Writes the metadata's `shortDescription`.
    public let shortDescription: String?
    /// Who made the model. Writes the metadata's `author`.
    public let author: String?
    /// The terms of use. Writes the metadata's `license`.
    public let license: String?
    /// Creator-defined metadata entries. Writes the metadata's `userDefined`.
    public let userDefined: [String: String]?
    /// The model's version string (an OpenCoreML addition).
    public let versionString: String?

    /// The model's inputs, in order.
    public var inputs: [Input] = []
    /// The model's outputs, in order. A classifier's label and probability outputs are added for it.
    public var outputs: [Output] = []
    /// The model's training inputs; when empty, an updatable model gets its inputs plus each loss
    /// target (or, for a classifier, its label).
    public var trainingInputs: [TrainingInput] = []
    /// The network, when the model is one (a network without layers otherwise).
    public var neuralNetwork = NeuralNetwork()
    /// The class labels that make a neural network a classifier; nil for other models.
    public var classLabels: ClassLabels?
    /// The model body when it is a k-nearest-neighbours classifier.
    public var nearestNeighbors: KNearestNeighborsClassifier?
    /// The model body when it is a pipeline.
    public var pipeline: Pipeline?

    /// An empty declaration with its metadata; add items with ``add(_:)``.
    public init(version: UInt = 4, shortDescription: String? = nil, author: String? = nil, license: String? = nil,
                userDefined: [String: String]? = [:], versionString: String? = nil) {
        self.version = version
        self.shortDescription = shortDescription
        self.author = author
        self.license = license
        self.userDefined = userDefined
        self.versionString = versionString
    }

    /// A declaration with its metadata and the items of the builder: inputs, outputs, training inputs,
    /// class labels and one model body.
    public init(version: UInt = 4, shortDescription: String? = nil, author: String? = nil, license: String? = nil,
                userDefined: [String: String]? = [:], versionString: String? = nil, @ModelItemBuilder _ items: () -> [any ModelItem]) {
        self.init(version: version, shortDescription: shortDescription, author: author, license: license, userDefined: userDefined,
                  versionString: versionString)
        for item in items() { add(item) }
    }

    /// Appends an input.
    public mutating func addInput(_ input: Input) { inputs.append(input) }
    /// Appends an output.
    public mutating func addOutput(_ output: Output) { outputs.append(output) }
    /// Appends a training input.
    public mutating func addTrainingInput(_ trainingInput: TrainingInput) { trainingInputs.append(trainingInput) }

    /// Adds any item; a second model body replaces the first only through `makeSpecification()`'s error.
    public mutating func add(_ item: any ModelItem) {
        switch item {
        case let input as Input: inputs.append(input)
        case let output as Output: outputs.append(output)
        case let trainingInput as TrainingInput: trainingInputs.append(trainingInput)
        case let network as NeuralNetwork:
            if !neuralNetwork.layers.isEmpty || neuralNetwork.isUpdatable { extraBodies += 1 }
            neuralNetwork = network
        case let labels as ClassLabels:
            if classLabels != nil { extraBodies += 1 }
            classLabels = labels
        case let knn as KNearestNeighborsClassifier:
            if nearestNeighbors != nil { extraBodies += 1 }
            nearestNeighbors = knn
        case let pipeline as Pipeline:
            if self.pipeline != nil { extraBodies += 1 }
            self.pipeline = pipeline
        default:
            unknownItems.append(String(describing: type(of: item)))
        }
    }

    private var extraBodies = 0
    private var unknownItems: [String] = []

    /// The serialized model, or nil when the declaration does not make a valid model
    /// (`makeSpecification()` says why).
    public var coreMLData: Data? {
        try? makeSpecification().serializedBytes()
    }

    /// Writes the model to an `.mlmodel` file (or `.mlmodelc` folder), atomically.
    public func write(to url: URL) throws {
        try makeSpecification().write(to: url)
    }

    /// The model as the format stores it, validated.
    ///
    /// - Returns: The `CoreML_Specification_Model` message, ready to write or to load with
    ///   `MLModel(specification:)`.
    /// - Throws: A ``ModelToolsError`` naming the part of the declaration at fault, or the validation
    ///   error of a rule the assembled model breaks.
    public func makeSpecification() throws -> CoreML_Specification_Model {
        if let unknown = unknownItems.first {
            throw ModelToolsError("Model", "\(unknown) is not a model item")
        }
        let bodies = [neuralNetwork.layers.isEmpty ? nil : "NeuralNetwork", nearestNeighbors.map { _ in "KNearestNeighborsClassifier" },
                      pipeline.map { _ in "Pipeline" }].compactMap { $0 }
        guard bodies.count == 1, extraBodies == 0 else {
            throw ModelToolsError("Model", bodies.isEmpty && extraBodies == 0
                ? "declare one NeuralNetwork (with layers), KNearestNeighborsClassifier or Pipeline"
                : "declare only one model body and one ClassLabels; found \(bodies.joined(separator: ", "))\(extraBodies > 0 ? " and a repeated item" : "")")
        }
        var spec = CoreML_Specification_Model()
        spec.specificationVersion = Int32(clamping: version)
        spec.description_p.input = try inputs.map { try $0.specification() }
        spec.description_p.output = try outputs.map { try $0.specification() }
        spec.description_p.trainingInput = try trainingInputs.map { try $0.specification() }
        if let shortDescription { spec.description_p.metadata.shortDescription = shortDescription }
        if let author { spec.description_p.metadata.author = author }
        if let license { spec.description_p.metadata.license = license }
        if let userDefined, !userDefined.isEmpty { spec.description_p.metadata.userDefined = userDefined }
        if let versionString { spec.description_p.metadata.versionString = versionString }

        if let pipeline {
            try assemble(pipeline, into: &spec)
        } else if let nearestNeighbors {
            try assemble(nearestNeighbors, into: &spec)
        } else {
            try assembleNetwork(into: &spec)
        }
        try spec.validate()
        return spec
    }

    private func assembleNetwork(into spec: inout CoreML_Specification_Model) throws {
        let layers = try neuralNetwork.layerSpecifications()
        let update = try neuralNetwork.updateParameters()
        let preprocessing = neuralNetwork.preprocessing.map(\.specification)
        if let classLabels {
            let labels = try ClassLabelSet(classLabels.labels, location: "ClassLabels")
            guard labels != .none else { throw ModelToolsError("ClassLabels", "a classifier needs at least one class label") }
            var classifier = CoreML_Specification_NeuralNetworkClassifier()
            classifier.layers = layers
            classifier.preprocessing = preprocessing
            classifier.arrayInputShapeMapping = neuralNetwork.arrayInputShapeMapping
            classifier.imageInputShapeMapping = neuralNetwork.imageInputShapeMapping
            if let update { classifier.updateParams = update }
            switch labels {
            case .int64s(let values): classifier.int64ClassLabels.vector = values
            default: classifier.stringClassLabels.vector = labels.descriptions
            }
            let blob = classLabels.probabilitiesBlob ?? layers.last?.output.first ?? ""
            classifier.labelProbabilityLayerName = blob
            spec.neuralNetworkClassifier = classifier
            spec.setClassifierOutputs(labels: labels, label: classLabels.predictedFeatureName,
                                      probabilities: classLabels.predictedProbabilitiesName ?? blob, probabilitiesFirst: true)
        } else {
            var network = CoreML_Specification_NeuralNetwork()
            network.layers = layers
            network.preprocessing = preprocessing
            network.arrayInputShapeMapping = neuralNetwork.arrayInputShapeMapping
            network.imageInputShapeMapping = neuralNetwork.imageInputShapeMapping
            if let update { network.updateParams = update }
            spec.neuralNetwork = network
        }
        if update != nil {
            spec.isUpdatable = true
            if trainingInputs.isEmpty { try spec.addMissingTrainingInputs() }
        }
    }

    private func assemble(_ knn: KNearestNeighborsClassifier, into spec: inout CoreML_Specification_Model) throws {
        if classLabels != nil {
            throw ModelToolsError("ClassLabels", "a k-NN classifier takes its labels from its samples; give them as KNearestNeighborsClassifier(labels:)")
        }
        let location = "KNearestNeighborsClassifier"
        var dimensions: Int?
        if spec.description_p.input.count == 1, case .multiArrayType(let array)? = spec.description_p.input[0].type.type {
            dimensions = checkedProduct(array.shape)
        }
        spec.kNearestNeighborsClassifier = try knn.specification(dimensions: dimensions, location: location)
        let labels = try knn.labelSet(location: location)
        spec.setClassifierOutputs(labels: labels, label: knn.predictedFeatureName, probabilities: knn.predictedProbabilitiesName, probabilitiesFirst: false)
        if knn.updatable {
            spec.isUpdatable = true
            if trainingInputs.isEmpty {
                spec.description_p.trainingInput = spec.description_p.input
                var label = CoreML_Specification_FeatureDescription()
                label.name = knn.predictedFeatureName
                label.type = labels.labelFeatureType
                spec.description_p.trainingInput.append(label)
            }
        }
    }

    private func assemble(_ pipeline: Pipeline, into spec: inout CoreML_Specification_Model) throws {
        if classLabels != nil {
            throw ModelToolsError("ClassLabels", "a pipeline takes its labels from its last model")
        }
        var models: [CoreML_Specification_Model] = []
        for (index, model) in pipeline.models.enumerated() {
            do {
                models.append(try model.makeSpecification())
            } catch let error as ModelToolsError {
                throw ModelToolsError("Pipeline › model \(index + 1) › \(error.location)", error.message)
            }
        }
        let declaredInputs = spec.description_p.input
        let declaredOutputs = spec.description_p.output
        var assembled = try CoreML_Specification_Model.pipeline(
            models, names: pipeline.names, kind: pipeline.kind,
            inputs: declaredInputs.isEmpty ? nil : declaredInputs.map(\.name),
            outputs: declaredOutputs.isEmpty ? nil : declaredOutputs.map(\.name))
        for declared in declaredInputs + declaredOutputs {
            let found = (assembled.description_p.input + assembled.description_p.output).first { $0.name == declared.name }
            if let found, found.type != declared.type {
                throw ModelToolsError("Pipeline › feature '\(declared.name)'", "declared as \(declared.type.summary), but the models use \(found.type.summary)")
            }
        }
        if !trainingInputs.isEmpty { assembled.description_p.trainingInput = spec.description_p.trainingInput }
        assembled.description_p.metadata = spec.description_p.metadata
        assembled.specificationVersion = max(assembled.specificationVersion, spec.specificationVersion)
        spec = assembled
    }
}

extension CoreML_Specification_Model {
    /// Replaces any outputs named `label` or `probabilities` with the classifier's two outputs.
    mutating func setClassifierOutputs(labels: ClassLabelSet, label: String, probabilities: String, probabilitiesFirst: Bool) {
        var labelFeature = CoreML_Specification_FeatureDescription()
        labelFeature.name = label
        labelFeature.type = labels.labelFeatureType
        var probabilitiesFeature = CoreML_Specification_FeatureDescription()
        probabilitiesFeature.name = probabilities
        probabilitiesFeature.type = labels.probabilitiesFeatureType
        description_p.output.removeAll { $0.name == label || $0.name == probabilities }
        description_p.output += probabilitiesFirst ? [probabilitiesFeature, labelFeature] : [labelFeature, probabilitiesFeature]
        description_p.predictedFeatureName = label
        description_p.predictedProbabilitiesName = probabilities
    }
}
