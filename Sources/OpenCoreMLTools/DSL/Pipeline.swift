import CoreMLSpec

/// A model that goes into a pipeline: a `Model` declaration or a specification loaded from a file.
public protocol ModelConvertible {
    func makeSpecification() throws -> CoreML_Specification_Model
}

extension CoreML_Specification_Model: ModelConvertible {
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
    public var kind: PipelineKind
    public var names: [String]
    public var models: [any ModelConvertible]

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
    case pipeline, classifier, regressor
}
