import CoreMLSpec

/// A model that goes into a pipeline: a `Model` declaration or a specification loaded from a file.
public protocol ModelConvertible {
    /// The model as the format stores it, validated.
    func makeSpecification() throws -> CoreML_Specification_Model
}

extension CoreML_Specification_Model: ModelConvertible {
    /// The model itself, so that a loaded specification goes into a ``Pipeline`` as it is.
    public func makeSpecification() throws -> CoreML_Specification_Model { self }
}

/// Models run one after another, each reading the pipeline's inputs and earlier models' outputs.
///
/// ```swift
/// Model(shortDescription: "Personalised drawing classifier") {
///     Pipeline {
///         try CoreML_Specification_Model(contentsOf: extractorURL)
///         Model { Input(name: "features", shape: [16]); KNearestNeighborsClassifier(numberOfNeighbors: 3, labelType: .string) }
///     }
/// }
/// ```
///
/// Without `Input`s, the pipeline's inputs are the models' inputs that no earlier model produces;
/// without `Output`s, its outputs are the last model's. `kind: .automatic` makes a
/// `PipelineClassifier` when the last model is a classifier and a `PipelineRegressor` when it is a
/// regressor. Feature names and types must connect; a mismatch is an error naming the model and
/// the feature.
public struct Pipeline: ModelItem {
    /// Which pipeline model type to write (``PipelineKind/automatic`` by default).
    public var kind: PipelineKind
    /// A name for each model, or none.
    public var names: [String]
    /// The models, in the order they run.
    public var models: [any ModelConvertible]

    /// A pipeline of the builder's models.
    ///
    /// - Parameters:
    ///   - kind: Which pipeline model type to write.
    ///   - names: A name for each model, or none.
    ///   - models: ``Model`` declarations or loaded specifications, in the order they run.
    public init(kind: PipelineKind = .automatic, names: [String] = [], @ItemBuilder<any ModelConvertible> _ models: () -> [any ModelConvertible]) {
        self.kind = kind
        self.names = names
        self.models = models()
    }
}

/// Which of the three pipeline model types to write.
public enum PipelineKind: String, Sendable, CaseIterable {
    /// A classifier when the last model is one, a regressor when it is one, otherwise a plain pipeline.
    case automatic
    /// Always a plain `Pipeline`, a `PipelineClassifier` or a `PipelineRegressor`.
    case pipeline, classifier, regressor
}
