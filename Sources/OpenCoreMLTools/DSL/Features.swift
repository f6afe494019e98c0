import CoreMLSpec

/// A feature of the model's interface: `Input(name: "image", shape: [1, 28, 28])`,
/// `Output(name: "output", shape: [10], featureType: .float)`,
/// `TrainingInput(name: "output_true", shape: [1], featureType: .int)`.
public struct FeatureDeclaration<Role: FeatureRole>: ModelItem, Equatable, Sendable {
    public let name: String
    public let shape: [UInt]
    public let featureType: FeatureType

    public init(name: String, shape: [UInt], featureType: FeatureType = .float) {
        self.name = name
        self.shape = shape
        self.featureType = featureType
    }

    func specification() throws -> CoreML_Specification_FeatureDescription {
        guard !name.isEmpty else { throw ModelToolsError(Role.name, "the name is empty") }
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type = try featureType.specification(shape: shape, location: "\(Role.name) '\(name)'")
        return feature
    }
}

/// Which list of the model description a `FeatureDeclaration` goes into.
public protocol FeatureRole: Sendable {
    static var name: String { get }
}

public enum InputRole: FeatureRole { public static let name = "input" }
public enum OutputRole: FeatureRole { public static let name = "output" }
public enum TrainingInputRole: FeatureRole { public static let name = "training input" }

/// A model input.
public typealias Input = FeatureDeclaration<InputRole>
/// A model output.
public typealias Output = FeatureDeclaration<OutputRole>
/// A feature the model is trained with: the inputs used in training plus the loss target.
public typealias TrainingInput = FeatureDeclaration<TrainingInputRole>
