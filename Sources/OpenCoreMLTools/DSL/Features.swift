import CoreMLSpec

/// A feature of the model's interface: `Input(name: "image", shape: [1, 28, 28])`,
/// `Output(name: "output", shape: [10], featureType: .float)`,
/// `TrainingInput(name: "output_true", shape: [1], featureType: .int)`.
public struct FeatureDeclaration<Role: FeatureRole>: ModelItem, Equatable, Sendable {
    /// The feature's name, its key in feature providers and the blob the network reads or writes.
    public let name: String
    /// The feature's shape: a multi-array's dimensions (such as `[1, 28, 28]`), or for an image
    /// `[channels, height, width]` (`[height, width]` is enough).
    public let shape: [UInt]
    /// The kind of value (by default a float32 multi-array).
    public let featureType: FeatureType

    /// Declares a feature.
    ///
    /// - Parameters:
    ///   - name: The feature's name.
    ///   - shape: A multi-array's dimensions, or an image's `[channels, height, width]`. Scalar types
    ///     (`.string`, `.int64`) ignore it.
    ///   - featureType: The kind of value; a float32 multi-array by default.
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
    /// What to call features of this role in error messages.
    static var name: String { get }
}

/// The role of a model input (``Input``).
public enum InputRole: FeatureRole { public static let name = "input" }
/// The role of a model output (``Output``).
public enum OutputRole: FeatureRole { public static let name = "output" }
/// The role of a training input (``TrainingInput``).
public enum TrainingInputRole: FeatureRole { public static let name = "training input" }

/// A model input.
public typealias Input = FeatureDeclaration<InputRole>
/// A model output.
public typealias Output = FeatureDeclaration<OutputRole>
/// A feature the model is trained with: the inputs used in training plus the loss target.
public typealias TrainingInput = FeatureDeclaration<TrainingInputRole>
