import CoreMLSpec
import Foundation

/// How a classic model's computed values become its declared output features.
enum ClassicOutputs {
    /// A regressor's output: the one `predictedFeatureName` names, else the first.
    static func regressorOutput(of description: CoreML_Specification_ModelDescription, modelName: String) throws -> CoreML_Specification_FeatureDescription {
        guard let output = description.output.first(where: { $0.name == description.predictedFeatureName }) ?? description.output.first else {
            throw MLModelError(.generic, "\(modelName) has no output")
        }
        return output
    }

    /// `values` as the output `feature` declares it: a double (one value), an int64 (one value,
    /// truncated), or a multi-array of the declared data type (double when unspecified) and
    /// shape (`[values.count]` when unspecified or when the declared shape holds another count).
    static func value(_ value: Double, as feature: CoreML_Specification_FeatureDescription, modelName: String) throws -> MLFeatureValue {
        try withUnsafePointer(to: value) { try Self.value(UnsafeBufferPointer(start: $0, count: 1), as: feature, modelName: modelName) }
    }

    static func value(_ values: UnsafeBufferPointer<Double>, as feature: CoreML_Specification_FeatureDescription, modelName: String) throws -> MLFeatureValue {
        switch feature.type.type {
        case .doubleType?:
            guard values.count == 1 else {
                throw MLModelError(.featureType, "output '\(feature.name)' of \(modelName) is a number, but the model computes \(values.count) values")
            }
            return MLFeatureValue(double: values[0])
        case .int64Type?:
            guard values.count == 1 else {
                throw MLModelError(.featureType, "output '\(feature.name)' of \(modelName) is a number, but the model computes \(values.count) values")
            }
            let truncated = values[0].rounded(.towardZero)
            guard truncated.isFinite else { return MLFeatureValue(int64: 0) }
            return MLFeatureValue(int64: Int64(exactly: truncated) ?? (truncated < 0 ? .min : .max))
        case .multiArrayType(let array)?:
            let declared = array.shape.map(Int.init)
            let shape = !declared.isEmpty && checkedProduct(declared) == values.count ? declared : [values.count]
            let dataType = MLMultiArrayDataType(rawValue: array.dataType.rawValue) ?? .double
            guard let first = values.baseAddress, !values.isEmpty else {
                throw MLModelError(.featureType, "output '\(feature.name)' of \(modelName) would be an array without values")
            }
            return MLFeatureValue(multiArray: try MLMultiArray.make(shape: shape, dataType: dataType, doubles: first))
        default:
            throw MLModelError(.featureType, "output '\(feature.name)' of \(modelName) must be a number or a multi-array")
        }
    }
}

/// A classifier's two outputs, the predicted label and the label → probability dictionary,
/// made from one score per class.
struct ClassifierOutputs: @unchecked Sendable {  // `keys` holds only strings and Int64s
    let classes: ClassLabelSet
    let predictedFeatureName: String
    let probabilitiesName: String?
    private let keys: [AnyHashable]
    /// Each class's label value, made once (feature values are immutable, so outputs share them).
    private let labels: [MLFeatureValue]
    private let probabilitiesFeature: CoreML_Specification_FeatureDescription?

    init(description: CoreML_Specification_ModelDescription, classes: ClassLabelSet) {
        self.classes = classes
        predictedFeatureName = description.predictedFeatureName
        let probabilities = description.predictedProbabilitiesName
        probabilitiesName = probabilities.isEmpty ? nil : probabilities
        probabilitiesFeature = description.output.first { $0.name == probabilities }
        keys = classes.keys
        labels = (0..<classes.count).map(classes.featureValue(at:))
    }

    /// The label of the highest score (the first on ties; class `best` instead when given) and,
    /// when the model names it, the probability output: a dictionary, or a multi-array when the
    /// model declares one.
    func features(scores: UnsafeBufferPointer<Double>, best: Int? = nil, modelName: String) throws -> [String: MLFeatureValue] {
        var values = [predictedFeatureName: label(scores: scores, best: best)]
        if let probabilitiesName {
            values[probabilitiesName] = try probabilities(scores: scores, modelName: modelName)
        }
        return values
    }

    /// The predicted label alone: the highest score's (the first on ties), or class `best` when given.
    func label(scores: UnsafeBufferPointer<Double>, best: Int? = nil) -> MLFeatureValue {
        var best = best ?? -1
        if !scores.indices.contains(best) {
            best = 0
            for index in scores.indices where scores[index] > scores[best] { best = index }
        }
        return labels.indices.contains(best) ? labels[best] : classes.featureValue(at: best)
    }

    /// The probability output alone: a dictionary, or a multi-array when the model declares one.
    func probabilities(scores: UnsafeBufferPointer<Double>, modelName: String) throws -> MLFeatureValue {
        if let feature = probabilitiesFeature, case .multiArrayType? = feature.type.type {
            return try ClassicOutputs.value(scores, as: feature, modelName: modelName)
        }
        return MLFeatureValue(classProbabilities: scores, keys: keys)
    }
}
