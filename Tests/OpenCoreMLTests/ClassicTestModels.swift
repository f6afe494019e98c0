import CoreMLSpec
import Foundation
import OpenCoreML

/// Small pieces the classic-model tests (GLM, SVM, Bayesian probit) build their models from.
enum ClassicTestModels {
    static func doubleArray(_ name: String, _ shape: [Int64]) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.multiArrayType.shape = shape
        feature.type.multiArrayType.dataType = .double
        return feature
    }

    static func double(_ name: String, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.doubleType = .init()
        feature.type.isOptional = optional
        return feature
    }

    static func int64(_ name: String) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.int64Type = .init()
        return feature
    }

    static func string(_ name: String) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        feature.type.stringType = .init()
        return feature
    }

    /// A label → probability dictionary output, keyed by strings or int64s.
    static func probabilities(_ name: String, stringKeys: Bool) -> CoreML_Specification_FeatureDescription {
        var feature = CoreML_Specification_FeatureDescription()
        feature.name = name
        if stringKeys { feature.type.dictionaryType.stringKeyType = .init() } else { feature.type.dictionaryType.int64KeyType = .init() }
        return feature
    }

    /// A classifier's description: `inputs`, a label output "label" of the labels' type and,
    /// when `probabilities`, a dictionary output "probabilities".
    static func classifierDescription(inputs: [CoreML_Specification_FeatureDescription], stringLabels: Bool,
                                      probabilities: Bool = true) -> CoreML_Specification_ModelDescription {
        var description = CoreML_Specification_ModelDescription()
        description.input = inputs
        description.output = [stringLabels ? string("label") : int64("label")]
        description.predictedFeatureName = "label"
        if probabilities {
            description.output.append(Self.probabilities("probabilities", stringKeys: stringLabels))
            description.predictedProbabilitiesName = "probabilities"
        }
        return description
    }

    /// A regressor's description: `inputs` and the predicted output `output`.
    static func regressorDescription(inputs: [CoreML_Specification_FeatureDescription],
                                     output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_ModelDescription {
        var description = CoreML_Specification_ModelDescription()
        description.input = inputs
        description.output = [output]
        description.predictedFeatureName = output.name
        return description
    }

    static func model(_ description: CoreML_Specification_ModelDescription,
                      _ configure: (inout CoreML_Specification_Model) -> Void) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 1
        model.description_p = description
        configure(&model)
        return model
    }

    static func vector(_ values: [Double]) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [NSNumber(value: values.count)], dataType: .double)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    static func matrix(_ rows: [[Double]]) -> MLFeatureValue {
        let columns = rows.first?.count ?? 0
        let array = try! MLMultiArray(shape: [NSNumber(value: rows.count), NSNumber(value: columns)], dataType: .double)
        for (row, values) in rows.enumerated() {
            for (column, value) in values.enumerated() { array[row * columns + column] = NSNumber(value: value) }
        }
        return MLFeatureValue(multiArray: array)
    }

    static func provider(_ values: [String: MLFeatureValue]) -> MLFeatureProvider {
        MLDictionaryFeatureProvider(featureValues: values)
    }

    /// One prediction of `model` for the input `name` = `values`.
    static func predict(_ model: MLModel, _ name: String, _ values: [Double]) throws -> MLFeatureProvider {
        try model.prediction(from: provider([name: vector(values)]))
    }

    /// One prediction of `model` for the input "x" = `values`.
    static func predict(_ model: MLModel, _ values: [Double]) throws -> MLFeatureProvider {
        try predict(model, "x", values)
    }

    /// The probability dictionary output "probabilities", keyed by label text.
    static func probabilities(_ output: MLFeatureProvider) -> [String: Double] {
        var result: [String: Double] = [:]
        for (key, value) in output.featureValue(for: "probabilities")?.dictionaryValue ?? [:] {
            result["\(key.base)"] = value.doubleValue
        }
        return result
    }

    /// The label output "label" as text.
    static func label(_ output: MLFeatureProvider) -> String? {
        guard let value = output.featureValue(for: "label") else { return nil }
        return value.type == .string ? value.stringValue : String(value.int64Value)
    }

    /// Whether `error` reads as a refusal mentioning every one of `words`.
    static func mentions(_ error: any Error, _ words: String...) -> Bool {
        let text = "\(error)"
        return words.allSatisfy { text.contains($0) }
    }
}
