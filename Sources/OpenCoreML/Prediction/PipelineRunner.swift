import CoreMLSpec
import _OpenCoreMLEngine

/// Predicts with a pipeline: each model in order reads the features it names from the example
/// and from earlier models' outputs; the pipeline returns the outputs it declares.
final class PipelineRunner: ModelRunner, @unchecked Sendable {
    private let stages: [any ModelRunner]
    private let outputNames: [String]

    /// `parameters` apply to the last model (the one whose parameters a pipeline exposes); its ML
    /// Programs share `budget`.
    init(specification: CoreML_Specification_Model, models: [CoreML_Specification_Model], parameters: [MLParameterKey: Any], memoryLimit: Int,
         loopWorkLimit: Int, budget: MemoryBudget) throws {
        stages = try models.enumerated().map { position, model in
            try ModelRunners.make(model, parameters: position == models.count - 1 ? parameters : [:], memoryLimit: memoryLimit,
                                  loopWorkLimit: loopWorkLimit, budget: budget)
        }
        outputNames = specification.description_p.output.map(\.name)
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        let features = try Self.run(stages[...], on: examples)
        return features.map { example in
            var values: [String: MLFeatureValue] = [:]
            for name in outputNames { values[name] = example.featureValue(for: name) }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
    }

    /// The examples with every stage's outputs added (later stages win on a name clash).
    static func run(_ stages: ArraySlice<any ModelRunner>, on examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var features = examples
        for stage in stages {
            let outputs = try stage.predictions(features)
            features = zip(features, outputs).map { FeatureOverlay(base: $0, overlay: $1) }
        }
        return features
    }
}

/// One provider's features seen through another's: `overlay` first, then `base`.
final class FeatureOverlay: MLFeatureProvider, @unchecked Sendable {
    let base: MLFeatureProvider
    let overlay: MLFeatureProvider

    init(base: MLFeatureProvider, overlay: MLFeatureProvider) {
        self.base = base
        self.overlay = overlay
    }

    var featureNames: Set<String> { base.featureNames.union(overlay.featureNames) }

    func featureValue(for featureName: String) -> MLFeatureValue? {
        overlay.featureValue(for: featureName) ?? base.featureValue(for: featureName)
    }
}
