import Foundation
import OpenCoreML
import OpenCreateML
import Testing
@testable import OpenCoreMLFlower

/// The client's `evaluate` reply is computed from any batch provider of training inputs; on a
/// data set bound to the model it must agree exactly with Create ML-style metrics.
struct LocalEvaluationTests {
    @Test func agreesWithClassifierMetricsOnABoundDataSet() throws {
        let model = try SmallNetwork.model()
        let examples = try LabeledDataset.generatedDigits(300, seed: 5).batchProvider(for: model)
        let evaluation = try LocalEvaluation(model: model, on: examples)
        let metrics = try MLClassifierMetrics(model: model, on: examples)
        #expect(evaluation.examples == 300)
        #expect(evaluation.accuracy == metrics.accuracy)
        #expect(abs(evaluation.loss! - metrics.meanCrossEntropy!) < 1e-12)
    }

    /// Hand-made examples: the label under the loss target, as `MLUpdateTask` takes it. With all
    /// labels equal to the predicted class, accuracy is 1 and the loss is −log of its probability.
    @Test func readsTheLossTargetOfPlainProviders() throws {
        let model = try SmallNetwork.model()
        let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        for index in 0..<image.count { image[index] = NSNumber(value: Float(index % 7) / 7) }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["image": image]))
        let probabilities = try #require(output.featureValue(for: "output")?.multiArrayValue).floatValues().map(Double.init)
        let best = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
        func example(label: Int) throws -> MLFeatureProvider {
            let target = try MLMultiArray(shape: [1], dataType: .int32)
            target[0] = NSNumber(value: label)
            return try MLDictionaryFeatureProvider(dictionary: ["image": image, "output_true": target])
        }
        let right = try LocalEvaluation(model: model, on: MLArrayBatchProvider(array: [example(label: best), example(label: best)]))
        #expect(right.accuracy == 1 && abs(right.loss! + log(probabilities[best])) < 1e-9)
        let wrong = (best + 1) % 10
        let half = try LocalEvaluation(model: model, on: MLArrayBatchProvider(array: [example(label: best), example(label: wrong)]))
        #expect(half.accuracy == 0.5)
        #expect(abs(half.loss! - -(log(probabilities[best]) + log(probabilities[wrong])) / 2) < 1e-9)
        // An example without its label is an error naming it.
        let unlabeled = try MLDictionaryFeatureProvider(dictionary: ["image": image])
        #expect(throws: FlowerClientError.self) { try LocalEvaluation(model: model, on: MLArrayBatchProvider(array: [unlabeled])) }
    }
}
