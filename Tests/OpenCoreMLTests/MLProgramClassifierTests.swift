import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// An ML Program ending in `classify` (as coremltools writes one for a `ClassifierConfig`): the
/// label and the probability dictionary come out keyed by the `classes` list, string or integer.
@Suite("ML Program classifiers")
struct MLProgramClassifierTests {
    /// `classify(probabilities: x, classes: labels)`, x a [4] input.
    static func classifier(labels: [String]? = nil, integers: [Int64]? = nil) -> CoreML_Specification_Model {
        typealias Value = CoreML_Specification_MILSpec_Value
        var list = Value()
        list.immediateValue.list.values = (labels?.map { label in
            var element = Value()
            element.type.tensorType.dataType = .string
            element.immediateValue.tensor.strings.values = [label]
            return element
        } ?? []) + (integers?.map { label in
            var element = Value()
            element.type.tensorType.dataType = .int64
            element.immediateValue.tensor.longInts.values = [label]
            return element
        } ?? [])
        var operation = HostilePrograms.operation("classify", ["probabilities": "x"], outputs: ["label", "probabilities"])
        var classes = CoreML_Specification_MILSpec_Argument.Binding()
        classes.value = list
        operation.inputs["classes"] = CoreML_Specification_MILSpec_Argument.with { $0.arguments = [classes] }
        var model = HostilePrograms.model([operation], outputs: ["label", "probabilities"])
        var label = CoreML_Specification_FeatureDescription(), dictionary = CoreML_Specification_FeatureDescription()
        (label.name, dictionary.name) = ("label", "probabilities")
        if labels != nil {
            label.type.stringType = CoreML_Specification_StringFeatureType()
            dictionary.type.dictionaryType.stringKeyType = CoreML_Specification_StringFeatureType()
        } else {
            label.type.int64Type = CoreML_Specification_Int64FeatureType()
            dictionary.type.dictionaryType.int64KeyType = CoreML_Specification_Int64FeatureType()
        }
        model.description_p.output = [label, dictionary]
        model.description_p.predictedFeatureName = "label"
        model.description_p.predictedProbabilitiesName = "probabilities"
        return model
    }

    static func predict(_ model: MLModel, _ values: [Float]) throws -> MLFeatureProvider {
        let x = try MLMultiArray(shape: [4], dataType: .float32)
        for (index, value) in values.enumerated() { x[index] = NSNumber(value: value) }
        return try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
    }

    @Test func stringLabels() throws {
        let model = try MLModel(specification: Self.classifier(labels: ["cat", "dog", "fox", "owl"]))
        let output = try Self.predict(model, [0.2, 0.4, 0.3, 0.1])
        #expect(output.featureValue(for: "label")?.stringValue == "dog")
        let dictionary = output.featureValue(for: "probabilities")?.dictionaryValue
        #expect(dictionary?["fox"]?.doubleValue == Double(Float(0.3)))
        #expect(dictionary?.count == 4)
    }

    @Test func integerLabelsAndTiesToTheFirst() throws {
        let model = try MLModel(specification: Self.classifier(integers: [10, 20, 30, 40]))
        let output = try Self.predict(model, [0.3, 0.2, 0.3, 0.2])
        #expect(output.featureValue(for: "label")?.int64Value == 10)
        #expect(output.featureValue(for: "probabilities")?.dictionaryValue[20 as Int64]?.doubleValue == Double(Float(0.2)))
    }
}
