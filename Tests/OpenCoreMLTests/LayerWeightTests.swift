import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// A layer's weights and biases through Core ML's parameter keys: `parameterValue(for:
/// .weights.scoped(to:))` reads them (trained values after an update), and the same keys in the
/// configuration set them when a model loads — what a federated client needs to exchange a model.
@Suite("Layer weights through MLParameterKey")
struct LayerWeightTests {
    static let url = Fixtures.url("classifier_sgd.mlmodel")

    @Test func readsWeightsAndBiasesInTheirShapesAndTheTrainedValuesAfterAnUpdate() throws {
        let model = try MLModel(contentsOf: Self.url)
        let specification = try CoreML_Specification_Model(contentsOf: Self.url)
        let layer = specification.neuralNetworkClassifier.layers.first { $0.name == "dense1" }!
        let weights = try #require(try model.parameterValue(for: .weights.scoped(to: "dense1")) as? MLMultiArray)
        #expect(weights.shape == [8, 4])
        #expect(weights.floatValues() == layer.innerProduct.weights.floatValue)
        let biases = try #require(try model.parameterValue(for: .biases.scoped(to: "dense2")) as? MLMultiArray)
        #expect(biases.shape == [3])

        let trained = try model.updated(with: TrainingExamples.batch(count: 30, seed: 1).provider, parameters: [.epochs: 10]).model
        let after = try #require(try trained.parameterValue(for: .weights.scoped(to: "dense1")) as? MLMultiArray)
        #expect(after.floatValues() != weights.floatValues())
        // Hyperparameters still answer as before.
        #expect(try trained.parameterValue(for: .epochs) as? Int != nil)
    }

    @Test func theConfigurationSetsALayersValuesWhenTheModelLoads() throws {
        let source = try MLModel(contentsOf: Self.url)
        let trained = try source.updated(with: TrainingExamples.batch(count: 60, seed: 2).provider, parameters: [.epochs: 10]).model
        let test = TrainingExamples.batch(count: 30, seed: 3)
        // Move every trained array into a fresh copy of the untrained file through the configuration.
        let configuration = MLModelConfiguration()
        var parameters: [MLParameterKey: Any] = [:]
        for layer in ["dense1", "dense2"] {
            parameters[.weights.scoped(to: layer)] = try trained.parameterValue(for: .weights.scoped(to: layer))
            parameters[.biases.scoped(to: layer)] = try trained.parameterValue(for: .biases.scoped(to: layer))
        }
        configuration.parameters = parameters
        let copy = try MLModel(contentsOf: Self.url, configuration: configuration)
        let predictions = try copy.predictions(fromBatch: test.provider), expected = try trained.predictions(fromBatch: test.provider)
        for index in 0..<test.provider.count {
            let a = predictions.features(at: index).featureValue(for: "classProbability")!.dictionaryValue
            let b = expected.features(at: index).featureValue(for: "classProbability")!.dictionaryValue
            for (label, p) in b { #expect(abs(a[label]!.doubleValue - p.doubleValue) < 1e-6) }
        }
        #expect(try TrainingExamples.accuracy(of: copy, on: test.provider, classes: test.classes)
                == TrainingExamples.accuracy(of: trained, on: test.provider, classes: test.classes))
        let written = try #require(try copy.parameterValue(for: .biases.scoped(to: "dense2")) as? MLMultiArray)
        #expect(written.floatValues() == (parameters[.biases.scoped(to: "dense2")] as! MLMultiArray).floatValues())
    }

    @Test func badLayerValuesAreOneErrorNamingTheLayer() throws {
        func load(_ parameters: [MLParameterKey: Any]) -> String? {
            let configuration = MLModelConfiguration()
            configuration.parameters = parameters
            do {
                _ = try MLModel(contentsOf: Self.url, configuration: configuration)
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(load([.weights.scoped(to: "dense1"): [Float](repeating: 0, count: 7)])?.contains("dense1") == true)
        #expect(load([.weights.scoped(to: "dense1"): [Float](repeating: 0, count: 7)])?.contains("32 values, 7 given") == true)
        #expect(load([.weights.scoped(to: "nope"): [Float](repeating: 0, count: 32)])?.contains("no neural-network layer 'nope'") == true)
        #expect(load([.biases.scoped(to: "relu1"): [Float](repeating: 0, count: 8)])?.contains("has no bias") == true)
        #expect(load([.biases.scoped(to: "dense2"): [Float.nan, 0, 0]])?.contains("not a finite number") == true)
        #expect(load([.weights.scoped(to: "dense2"): "zeros"])?.contains("MLMultiArray") == true)
        let model = try MLModel(contentsOf: Self.url)
        #expect(throws: MLModelError.self) { try model.parameterValue(for: .weights.scoped(to: "softmax")) }
        #expect(throws: MLModelError.self) { try model.parameterValue(for: .layerWeight("gamma").scoped(to: "dense1")) }
    }
}
