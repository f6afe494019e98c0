import CoreMLSpec
import _OpenCoreMLEngine

/// The hyperparameters an update runs with: the model's defaults, overridden by the configuration's
/// parameters, then by `resume(withParameters:)`. Every override is checked against the model's
/// allowed values.
struct UpdateSettings {
    private(set) var values: [MLParameterKey: Any]
    private let description: MLModelDescription

    init(model: MLModel) {
        description = model.modelDescription
        var values: [MLParameterKey: Any] = [:]
        for (key, parameter) in description.parameterDescriptionsByKey { values[key] = parameter.defaultValue }
        for (key, value) in model.configuration.parameters ?? [:] where key.scope == nil { values[key] = value }
        self.values = values
    }

    /// Checks and applies `overrides` (from `resume(withParameters:)`).
    mutating func apply(_ overrides: [MLParameterKey: Any]) throws {
        for (key, value) in try description.checkOverrides(overrides) where key.scope == nil {
            values[key] = value
        }
    }

    var epochs: Int { values[.epochs] as? Int ?? 1 }
    var miniBatchSize: Int { max(1, values[.miniBatchSize] as? Int ?? 32) }
    /// Shuffle before every epoch; on unless the model says otherwise.
    var shuffle: Bool { values[.shuffle] as? Bool ?? true }
    var seed: UInt64 { UInt64(truncatingIfNeeded: values[.seed] as? Int ?? 0) }

    func optimizer(for network: CoreML_Specification_NetworkUpdateParameters) -> OptimizerSettings {
        func double(_ key: MLParameterKey, _ fallback: Double) -> Double { values[key] as? Double ?? fallback }
        if case .adamOptimizer? = network.optimizer.optimizerType {
            return .adam(learningRate: double(.learningRate, 1e-3), beta1: double(.beta1, 0.9), beta2: double(.beta2, 0.999), eps: double(.eps, 1e-8))
        }
        return .sgd(learningRate: double(.learningRate, 1e-2), momentum: double(.momentum, 0))
    }
}
