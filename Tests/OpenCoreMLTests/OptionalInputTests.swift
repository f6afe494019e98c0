import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// An input the model marks optional may be left out, in prediction and in training: a missing
/// optional multi-array is zeros of its shape (Core ML's behaviour; the activity classifier's LSTM
/// state relies on it).
@Suite("Optional inputs")
struct OptionalInputTests {
    /// out = W·x + b + h, with `h` optional; updatable inner product, MSE loss, SGD.
    static func model() -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.isUpdatable = true
        func array(_ name: String, _ size: Int64, optional: Bool = false) -> CoreML_Specification_FeatureDescription {
            var feature = CoreML_Specification_FeatureDescription()
            feature.name = name
            feature.type.multiArrayType.shape = [size]
            feature.type.multiArrayType.dataType = .float32
            feature.type.isOptional = optional
            return feature
        }
        model.description_p.input = [array("x", 2), array("h", 3, optional: true)]
        model.description_p.output = [array("out", 3)]
        model.description_p.trainingInput = [array("x", 2), array("out_true", 3)]
        var dense = CoreML_Specification_InnerProductLayerParams()
        dense.inputChannels = 2
        dense.outputChannels = 3
        dense.hasBias_p = true
        dense.weights.floatValue = [1, 0, 0, 1, 1, 1]
        dense.weights.isUpdatable = true
        dense.bias.floatValue = [0, 0, 0]
        dense.bias.isUpdatable = true
        var first = CoreML_Specification_NeuralNetworkLayer()
        first.name = "dense"
        first.input = ["x"]
        first.output = ["y"]
        first.isUpdatable = true
        first.innerProduct = dense
        var add = CoreML_Specification_NeuralNetworkLayer()
        add.name = "add"
        add.input = ["y", "h"]
        add.output = ["out"]
        add.add = CoreML_Specification_AddLayerParams()
        var network = CoreML_Specification_NeuralNetwork()
        network.layers = [first, add]
        network.setMeanSquaredErrorTraining(output: "out", learningRate: 0.1, batchSize: 4, maxBatchSize: 16, epochs: 20, maxEpochs: 100)
        model.neuralNetwork = network
        return model
    }

    static func values(_ numbers: [Float]) throws -> MLFeatureValue {
        let array = try MLMultiArray(shape: [NSNumber(value: numbers.count)], dataType: .float32)
        for (index, number) in numbers.enumerated() { array[index] = NSNumber(value: number) }
        return MLFeatureValue(multiArray: array)
    }

    @Test func aMissingOptionalArrayIsZeros() throws {
        let model = try MLModel(specification: Self.model())
        let without = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": Self.values([2, 3])]))
        #expect(without.featureValue(for: "out")?.multiArrayValue?.floatValues() == [2, 3, 5])
        let with = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": Self.values([2, 3]), "h": Self.values([1, 1, 1])]))
        #expect(with.featureValue(for: "out")?.multiArrayValue?.floatValues() == [3, 4, 6])
        // A required input is still required.
        #expect(throws: MLModelError.self) { _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["h": Self.values([1, 1, 1])])) }
    }

    @Test func trainingWithoutTheOptionalInput() throws {
        let model = try MLModel(specification: Self.model())
        // Target: out = (x0 + x1, x0 − x1, 0); h never given.
        var random = TestRandom(seed: 5)
        let examples = try (0..<32).map { _ -> MLFeatureProvider in
            let x = [random.float(-1, 1), random.float(-1, 1)]
            return try MLDictionaryFeatureProvider(dictionary: ["x": Self.values(x), "out_true": Self.values([x[0] + x[1], x[0] - x[1], 0])])
        }
        let result = try model.updated(with: MLArrayBatchProvider(array: examples))
        let losses = result.epochs.compactMap(\.loss)
        #expect(losses.count == 20 && losses.last! < losses.first! * 0.1, "\(losses)")
    }
}
