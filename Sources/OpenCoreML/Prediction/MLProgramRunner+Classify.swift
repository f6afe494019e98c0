import CoreMLSpec
import _OpenCoreMLEngine

/// An ML Program that ends in `classify` (a classifier converted with coremltools'
/// `ClassifierConfig`): the operation's outputs are the predicted class label (a string or an
/// int64, the description's `predictedFeatureName`) and the dictionary of every class's
/// probability (`predictedProbabilitiesName`), keyed by the labels of its constant `classes` list.
/// The engine's `classify` gives the probabilities (its second output); the labels are applied
/// here by ``ClassifierOutputs``, as for the other classifiers.
struct MLProgramClassifier {
    let outputs: ClassifierOutputs
    /// The `classify` output holding the probabilities.
    let probabilitiesOutput: String
    /// Both `classify` outputs.
    let names: Set<String>
    /// `program` without the `classify` operations' `classes` lists of its function `functionName`
    /// (which the engine does not read), and the classifier they make, if any. Only the function
    /// that runs is read: another function of a multifunction package may classify otherwise.
    static func split(_ program: CoreML_Specification_MILSpec_Program, functionName: String,
                      description: CoreML_Specification_ModelDescription) throws -> (CoreML_Specification_MILSpec_Program, MLProgramClassifier?) {
        var program = program, classifier: MLProgramClassifier?
        guard let function = program.functions[functionName], var block = function.blockSpecializations[function.opset] else {
            return (program, nil)
        }
        var constants: [String: CoreML_Specification_MILSpec_Value] = [:]
        for (index, operation) in block.operations.enumerated() {
            if operation.type == "const", let output = operation.outputs.first, let value = operation.attributes["val"] {
                constants[output.name] = value
            }
            guard operation.type == "classify", let classes = operation.inputs["classes"]?.arguments.first else { continue }
            guard operation.outputs.count == 2 else { throw MLModelError(.generic, "ML Program: classify has \(operation.outputs.count) outputs, not 2") }
            let value: CoreML_Specification_MILSpec_Value?
            switch classes.binding {
            case .value(let immediate)?: value = immediate
            case .name(let name)?: value = constants[name]
            case nil: value = nil
            }
            guard let value else { throw MLModelError(.generic, "ML Program: classify's classes must be a constant list") }
            classifier = MLProgramClassifier(outputs: ClassifierOutputs(description: description, classes: try labels(value)),
                                             probabilitiesOutput: operation.outputs[1].name,
                                             names: [operation.outputs[0].name, operation.outputs[1].name])
            block.operations[index].inputs["classes"] = nil
        }
        program.functions[functionName]?.blockSpecializations[function.opset] = block
        return (program, classifier)
    }

    /// The labels of a constant list of strings or integers (one per element).
    private static func labels(_ value: CoreML_Specification_MILSpec_Value) throws -> ClassLabelSet {
        let elements = value.immediateValue.list.values.map(\.immediateValue.tensor)
        guard !elements.isEmpty else { throw MLModelError(.generic, "ML Program: classify's classes list is empty") }
        if elements.allSatisfy({ $0.strings.values.count == 1 }) { return .strings(elements.map { $0.strings.values[0] }) }
        if elements.allSatisfy({ $0.longInts.values.count == 1 }) { return .int64s(elements.map { $0.longInts.values[0] }) }
        if elements.allSatisfy({ $0.ints.values.count == 1 }) { return .int64s(elements.map { Int64($0.ints.values[0]) }) }
        throw MLModelError(.generic, "ML Program: classify's classes are not a list of strings or integers")
    }

    /// The classifier's outputs from the engine's `results`, when `name` is one of them (nil otherwise).
    func features(for name: String, _ results: [String: MILTensor], modelName: String) throws -> [String: MLFeatureValue]? {
        guard names.contains(name) else { return nil }
        guard let probabilities = results[probabilitiesOutput]?.values, probabilities.count == outputs.classes.count else {
            throw MLModelError(.generic, "ML Program: classify's probabilities do not hold one value per class (\(outputs.classes.count))")
        }
        let scores = probabilities.map(Double.init)
        return try scores.withUnsafeBufferPointer { try outputs.features(scores: $0, modelName: modelName) }
    }
}
