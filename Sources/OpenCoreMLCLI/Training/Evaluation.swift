import Foundation
import OpenCoreML

/// A classifier's predictions on a dataset: accuracy, mean cross-entropy and the per-class report.
struct Evaluation: Encodable {
    let examples: Int
    let accuracy: Double
    /// The mean of −log p(true class), when the model outputs probabilities.
    let meanLoss: Double?
    let report: ClassificationReport

    init(model: MLModel, dataset: LabeledDataset, binding: DatasetBinding) throws {
        var predicted: [Int] = []
        var lossSum = 0.0
        var hasProbabilities = true
        let chunk = 256
        var start = 0
        while start < dataset.count {
            let end = min(start + chunk, dataset.count)
            let inputs = try (start..<end).map { try binding.features(dataset, $0) }
            let outputs: MLBatchProvider
            do {
                outputs = try model.predictions(fromBatch: MLArrayBatchProvider(array: inputs))
            } catch {
                throw CLIError.wrap(error)
            }
            for offset in 0..<outputs.count {
                guard let probabilities = binding.probabilities(in: outputs.features(at: offset)), !probabilities.isEmpty else {
                    throw CLIError.model("the model's outputs hold no class probabilities to evaluate")
                }
                let best = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
                predicted.append(best)
                let truth = dataset.labels[start + offset]
                if truth < probabilities.count {
                    lossSum -= log(max(probabilities[truth], 1e-12))
                } else {
                    hasProbabilities = false
                }
            }
            start = end
        }
        report = try ClassificationReport(trueLabels: dataset.labels, predictedLabels: predicted, classNames: binding.classNames)
        examples = dataset.count
        accuracy = report.accuracy
        meanLoss = hasProbabilities && dataset.count > 0 ? lossSum / Double(dataset.count) : nil
    }
}
