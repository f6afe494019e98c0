import Foundation
import OpenCoreML
import _OpenCoreMLTestSupport

/// Labelled examples for the `classifier_sgd` fixture (4 features, classes setosa / versicolor /
/// virginica): three well-separated clusters, so a few epochs of training must help.
enum TrainingExamples {
    static let labels = ["setosa", "versicolor", "virginica"]
    static let centers: [[Float]] = [[1.5, -1, 0.5, 0], [-1.5, 1, 0, 0.5], [0, 0, -1.5, -1.5]]

    static func features(_ values: [Float]) -> MLFeatureValue {
        let array = try! MLMultiArray(shape: [4], dataType: .float32)
        for (index, value) in values.enumerated() { array[index] = NSNumber(value: value) }
        return MLFeatureValue(multiArray: array)
    }

    /// `count` examples cycling through the classes; the label goes in `labelName`.
    static func batch(count: Int, seed: UInt64, labelName: String = "classLabel") -> (provider: MLArrayBatchProvider, classes: [Int]) {
        var random = TestRandom(seed: seed)
        var providers: [MLFeatureProvider] = []
        var classes: [Int] = []
        for index in 0..<count {
            let label = index % 3
            let values = centers[label].map { $0 + random.float(-0.6, 0.6) }
            providers.append(MLDictionaryFeatureProvider(featureValues: [
                "features": features(values), labelName: MLFeatureValue(string: labels[label]),
            ]))
            classes.append(label)
        }
        return (MLArrayBatchProvider(array: providers), classes)
    }

    /// The fraction of `batch` the model labels correctly.
    static func accuracy(of model: MLModel, on batch: MLArrayBatchProvider, classes: [Int]) throws -> Double {
        let predictions = try model.predictions(fromBatch: batch)
        var correct = 0
        for index in 0..<batch.count where predictions.features(at: index).featureValue(for: "classLabel")?.stringValue == labels[classes[index]] {
            correct += 1
        }
        return Double(correct) / Double(batch.count)
    }
}
