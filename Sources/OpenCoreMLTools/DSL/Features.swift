import CoreMLSpec

/// A model input: `Input(name: "image", shape: [1, 28, 28])`.
public struct Input: ModelItem, Equatable, Sendable {
    public let name: String
    public let shape: [UInt]
    public let featureType: FeatureType

    public init(name: String, shape: [UInt], featureType: FeatureType = .float) {
        self.name = name
        self.shape = shape
        self.featureType = featureType
    }

    func specification() throws -> CoreML_Specification_FeatureDescription {
        try featureDescription(name: name, shape: shape, type: featureType, kind: "input")
    }
}

/// A model output: `Output(name: "output", shape: [10], featureType: .float)`.
public struct Output: ModelItem, Equatable, Sendable {
    public let name: String
    public let shape: [UInt]
    public let featureType: FeatureType

    public init(name: String, shape: [UInt], featureType: FeatureType = .float) {
        self.name = name
        self.shape = shape
        self.featureType = featureType
    }

    func specification() throws -> CoreML_Specification_FeatureDescription {
        try featureDescription(name: name, shape: shape, type: featureType, kind: "output")
    }
}

/// A feature the model is trained with: the inputs used in training plus the loss target
/// (`TrainingInput(name: "output_true", shape: [1], featureType: .int)`).
public struct TrainingInput: ModelItem, Equatable, Sendable {
    public let name: String
    public let shape: [UInt]
    public let featureType: FeatureType

    public init(name: String, shape: [UInt], featureType: FeatureType = .float) {
        self.name = name
        self.shape = shape
        self.featureType = featureType
    }

    func specification() throws -> CoreML_Specification_FeatureDescription {
        try featureDescription(name: name, shape: shape, type: featureType, kind: "training input")
    }
}

private func featureDescription(name: String, shape: [UInt], type: FeatureType, kind: String) throws -> CoreML_Specification_FeatureDescription {
    guard !name.isEmpty else { throw ModelToolsError(kind, "the name is empty") }
    var feature = CoreML_Specification_FeatureDescription()
    feature.name = name
    feature.type = try type.specification(shape: shape, location: "\(kind) '\(name)'")
    return feature
}
