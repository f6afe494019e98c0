import Foundation
import OpenCoreML

/// What an `evaluate` instruction replies: a classifier's accuracy and mean cross-entropy on the
/// client's test examples. The examples are training inputs, as `MLUpdateTask` takes them: the
/// model's input and one label feature — the training input the model does not take for
/// predictions (a loss target holding the class index, or a classifier's label). The prediction
/// is the class with the highest probability (the first on ties): the probabilities output of a
/// classifier, else a plain network's first output.
struct LocalEvaluation {
    var examples: Int
    var accuracy: Double
    /// Nil when a label is beyond the probabilities (no cross-entropy to average).
    var loss: Double?

    init(model: MLModel, on examples: MLBatchProvider) throws {
        let description = model.modelDescription
        let labelNames = description.trainingInputDescriptionsByName.keys.filter { description.inputDescriptionsByName[$0] == nil }
        guard labelNames.count == 1, let labelName = labelNames.first else {
            throw FlowerClientError.badInstruction("cannot evaluate: the model has \(labelNames.count) label inputs for training (\(labelNames.sorted().joined(separator: ", "))); evaluation needs one")
        }
        let classLabels = (description.classLabels ?? []).map { "\($0)" }
        guard let probabilitiesName = description.predictedProbabilitiesName ?? description.outputDescriptions.first?.name else {
            throw FlowerClientError.badInstruction("cannot evaluate: the model has no outputs")
        }
        var correct = 0
        var lossSum = 0.0
        var hasLoss = true
        try model.forEachPrediction(on: examples) { index, input, output in
            guard let truth = input.featureValue(for: labelName).flatMap({ Self.classIndex($0, classLabels) }) else {
                throw FlowerClientError.badInstruction("cannot evaluate: example \(index) has no class for '\(labelName)'")
            }
            guard let value = output.featureValue(for: probabilitiesName),
                  let probabilities = Self.probabilities(value, classLabels), !probabilities.isEmpty else {
                throw FlowerClientError.badInstruction("cannot evaluate: the model's '\(probabilitiesName)' holds no class probabilities")
            }
            if probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) == truth { correct += 1 }
            if truth < probabilities.count {
                lossSum -= log(max(probabilities[truth], 1e-12))
            } else {
                hasLoss = false
            }
        }
        self.examples = examples.count
        accuracy = examples.count > 0 ? Double(correct) / Double(examples.count) : 0
        loss = hasLoss && examples.count > 0 ? lossSum / Double(examples.count) : nil
    }

    /// A label's class index: a loss target's number, or the position of a classifier's label.
    private static func classIndex(_ value: MLFeatureValue, _ classLabels: [String]) -> Int? {
        switch value.type {
        case .multiArray:
            guard let array = value.multiArrayValue, array.count == 1 else { return nil }
            let number = array[0].doubleValue
            return number >= 0 && number == number.rounded() && number < 1e9 ? Int(number) : nil
        case .int64: return classLabels.firstIndex(of: String(value.int64Value))
        case .string: return classLabels.firstIndex(of: value.stringValue)
        default: return nil
        }
    }

    /// Probabilities by class index: a multi-array's values, or a dictionary's in class-label order.
    private static func probabilities(_ value: MLFeatureValue, _ classLabels: [String]) -> [Double]? {
        if let array = value.multiArrayValue { return array.floatValues().map(Double.init) }
        let dictionary = value.dictionaryValue
        guard !dictionary.isEmpty else { return nil }
        let byLabel = Dictionary(dictionary.map { ("\($0.key.base)", $0.value.doubleValue) }, uniquingKeysWith: { first, _ in first })
        return classLabels.map { byLabel[$0] ?? 0 }
    }
}
