import CoreMLSpec
import Foundation
import OpenCoreML

extension MLClassifierMetrics {
    /// Scores any Core ML classifier on labelled examples: the prediction is the model's predicted
    /// label (or, for a network without class labels, the class with the highest output), the truth
    /// is each example's `labelFeature` (default: the feature the model predicts, as a training input
    /// holds it). Examples from ``LabeledDataset/batchProvider(for:classNames:)`` carry their truth
    /// themselves.
    ///
    /// Predictions run in batches of 256. Throws when an example has no label, a label the model does
    /// not know, or the model gives no prediction.
    public init(model: MLModel, on examples: MLBatchProvider, labelFeature: String? = nil) throws {
        if let labelled = examples as? LabeledBatchProvider {
            try self.init(model: model, binding: labelled.binding, dataset: labelled.dataset)
            return
        }
        let description = model.modelDescription
        guard let predicted = description.predictedFeatureName else {
            throw CreateMLError("model", "not a classifier (it names no predicted label); bind a LabeledDataset to evaluate a plain network")
        }
        let truthName = labelFeature ?? predicted
        var classLabels = model.specification.classLabelSet.descriptions
        var truth: [String] = [], guesses: [String] = []
        var lossSum = 0.0, hasProbabilities = description.predictedProbabilitiesName != nil
        try model.forEachPrediction(on: examples) { index, input, output in
            guard let label = input.featureValue(for: truthName), let text = Self.labelText(label) else {
                throw CreateMLError("example \(index)", "no label '\(truthName)' (a string or an integer)")
            }
            guard let guess = output.featureValue(for: predicted).flatMap(Self.labelText) else {
                throw CreateMLError("example \(index)", "the model gave no '\(predicted)'")
            }
            truth.append(text)
            guesses.append(guess)
            if hasProbabilities, let name = description.predictedProbabilitiesName,
               let probabilities = output.featureValue(for: name)?.dictionaryValue,
               let p = probabilities.first(where: { "\($0.key.base)" == text })?.value.doubleValue {
                lossSum -= log(max(p, 1e-12))
            } else {
                hasProbabilities = false
            }
        }
        for label in truth + guesses where !classLabels.contains(label) { classLabels.append(label) }
        let index = Dictionary(classLabels.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        try self.init(classLabels: classLabels, trueLabels: truth.map { index[$0]! }, predictedLabels: guesses.map { index[$0]! },
                      meanCrossEntropy: hasProbabilities && !truth.isEmpty ? lossSum / Double(truth.count) : nil)
    }

    /// Scores `model` on `dataset`: its values onto the model's single input and its labels as
    /// class indices (see ``LabeledDataset/batchProvider(for:classNames:)``).
    public init(model: MLModel, on dataset: LabeledDataset, classNames: [String]? = nil) throws {
        try self.init(model: model, on: dataset.batchProvider(for: model, classNames: classNames))
    }

    /// The dataset's labels against the class with the highest probability.
    private init(model: MLModel, binding: ModelBinding, dataset: LabeledDataset) throws {
        var predicted: [Int] = []
        predicted.reserveCapacity(dataset.count)
        var lossSum = 0.0
        var hasProbabilities = true
        let provider = LabeledBatchProvider(dataset: dataset, binding: binding)
        try model.forEachPrediction(on: provider) { index, _, output in
            guard let probabilities = binding.probabilities(in: output), !probabilities.isEmpty else {
                throw CreateMLError("model", "its outputs hold no class probabilities to evaluate")
            }
            predicted.append(probabilities.indices.max { probabilities[$0] < probabilities[$1] }!)
            let truth = dataset.labels[index]
            if truth < probabilities.count {
                lossSum -= log(max(probabilities[truth], 1e-12))
            } else {
                hasProbabilities = false
            }
        }
        try self.init(classLabels: binding.classNames, trueLabels: dataset.labels, predictedLabels: predicted,
                      meanCrossEntropy: hasProbabilities && dataset.count > 0 ? lossSum / Double(dataset.count) : nil)
    }

    /// A label value as text: a string, or an integer's digits.
    static func labelText(_ value: MLFeatureValue) -> String? {
        switch value.type {
        case .string: return value.stringValue
        case .int64: return String(value.int64Value)
        default: return nil
        }
    }
}

extension MLRegressorMetrics {
    /// Scores any Core ML regressor on examples whose true value is their `targetFeature` (a number,
    /// or a one-element multi-array); the prediction is `predictionFeature` (default: the model's
    /// first output).
    public init(model: MLModel, on examples: MLBatchProvider, targetFeature: String, predictionFeature: String? = nil) throws {
        guard let outputName = predictionFeature ?? model.modelDescription.outputDescriptions.first?.name else {
            throw CreateMLError("model", "it has no outputs")
        }
        var targets: [Double] = [], predictions: [Double] = []
        try model.forEachPrediction(on: examples) { index, input, output in
            guard let target = input.featureValue(for: targetFeature).flatMap(Self.number) else {
                throw CreateMLError("example \(index)", "no number '\(targetFeature)'")
            }
            guard let prediction = output.featureValue(for: outputName).flatMap(Self.number) else {
                throw CreateMLError("example \(index)", "the model gave no number '\(outputName)'")
            }
            targets.append(target)
            predictions.append(prediction)
        }
        try self.init(targets: targets, predictions: predictions)
    }

    private static func number(_ value: MLFeatureValue) -> Double? {
        switch value.type {
        case .double: return value.doubleValue
        case .int64: return Double(value.int64Value)
        case .multiArray where value.multiArrayValue?.count == 1: return value.multiArrayValue![0].doubleValue
        default: return nil
        }
    }
}
