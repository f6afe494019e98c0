import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// An ML Program ending in `classify` (as coremltools writes one for a `ClassifierConfig`): the
/// label and the probability dictionary come out keyed by the `classes` list, string or integer.
@Suite("ML Program classifiers")
struct MLProgramClassifierTests {
    /// `classify(probabilities: x, classes: labels)`, x a [1, 3] input.
    static func classifier(labels: [String]? = nil, integers: [Int64]? = nil) -> CoreML_Specification_Model {
        typealias Value = CoreML_Specification_MILSpec_Value
        var list = Value()
        let elements: [Value] = (labels?.map { label in
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
        list.immediateValue.list.values = elements
        var operation = CoreML_Specification_MILSpec_Operation()
        operation.type = "classify"
        var probabilities = CoreML_Specification_MILSpec_Argument.Binding()
        probabilities.name = "x"
        operation.inputs["probabilities"] = CoreML_Specification_MILSpec_Argument.with { $0.arguments = [probabilities] }
        var classes = CoreML_Specification_MILSpec_Argument.Binding()
        classes.value = list
        operation.inputs["classes"] = CoreML_Specification_MILSpec_Argument.with { $0.arguments = [classes] }
        operation.outputs = ["label", "probabilities"].map { name in CoreML_Specification_MILSpec_NamedValueType.with { $0.name = name } }
        var input = CoreML_Specification_MILSpec_NamedValueType()
        input.name = "x"
        input.type.tensorType.dataType = .float32
        input.type.tensorType.rank = 2
        input.type.tensorType.dimensions = [1, 3].map { size in CoreML_Specification_MILSpec_Dimension.with { $0.constant.size = UInt64(size) } }
        var block = CoreML_Specification_MILSpec_Block()
        block.operations = [operation]
        block.outputs = ["label", "probabilities"]
        var function = CoreML_Specification_MILSpec_Function()
        function.inputs = [input]
        function.opset = "CoreML5"
        function.blockSpecializations["CoreML5"] = block
        var program = CoreML_Specification_MILSpec_Program()
        program.version = 1
        program.functions["main"] = function

        var model = CoreML_Specification_Model()
        model.specificationVersion = 6
        model.mlProgram = program
        var x = CoreML_Specification_FeatureDescription()
        x.name = "x"
        x.type.multiArrayType.shape = [1, 3]
        x.type.multiArrayType.dataType = .float32
        var label = CoreML_Specification_FeatureDescription()
        label.name = "label"
        var dictionary = CoreML_Specification_FeatureDescription()
        dictionary.name = "probabilities"
        if labels != nil {
            label.type.stringType = CoreML_Specification_StringFeatureType()
            dictionary.type.dictionaryType.stringKeyType = CoreML_Specification_StringFeatureType()
        } else {
            label.type.int64Type = CoreML_Specification_Int64FeatureType()
            dictionary.type.dictionaryType.int64KeyType = CoreML_Specification_Int64FeatureType()
        }
        model.description_p.input = [x]
        model.description_p.output = [label, dictionary]
        model.description_p.predictedFeatureName = "label"
        model.description_p.predictedProbabilitiesName = "probabilities"
        return model
    }

    static func predict(_ model: MLModel, _ values: [Float]) throws -> MLFeatureProvider {
        let x = try MLMultiArray(shape: [1, 3], dataType: .float32)
        for (index, value) in values.enumerated() { x[index] = NSNumber(value: value) }
        return try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
    }

    @Test func stringLabels() throws {
        let model = try MLModel(specification: Self.classifier(labels: ["cat", "dog", "fox"]))
        let output = try Self.predict(model, [0.2, 0.5, 0.3])
        #expect(output.featureValue(for: "label")?.stringValue == "dog")
        let dictionary = output.featureValue(for: "probabilities")?.dictionaryValue
        #expect(dictionary?["fox"]?.doubleValue == Double(Float(0.3)))
        #expect(dictionary?.count == 3)
    }

    @Test func integerLabelsAndTiesToTheFirst() throws {
        let model = try MLModel(specification: Self.classifier(integers: [10, 20, 30]))
        let output = try Self.predict(model, [0.4, 0.2, 0.4])
        #expect(output.featureValue(for: "label")?.int64Value == 10)
        #expect(output.featureValue(for: "probabilities")?.dictionaryValue[20 as Int64]?.doubleValue == Double(Float(0.2)))
    }
}
