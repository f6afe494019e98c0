import Foundation
import OpenCoreML
import OpenCreateML
import Testing
@testable import OpenCoreMLFlower

/// The arrays a model exchanges: every trainable blob of every updatable layer, named and shaped,
/// and the errors a server's wrong arrays get.
@Suite("Model arrays")
struct ModelArraysTests {
    @Test func everyTrainableBlobOfEveryUpdatableLayerInLayerOrder() throws {
        let arrays = try ModelArrays.arrays(of: SmallNetwork.model())
        #expect(arrays.map(\.0) == ["dense1.weights", "dense1.bias", "norm.gamma", "norm.beta", "dense2.weights", "dense2.bias"])
        #expect(arrays.map(\.1.shape) == [[24, 784], [24], [24], [24], [10, 24], [10]])
        #expect(arrays.allSatisfy { $0.1.dtype == "float32" && $0.1.stype == "numpy.ndarray" })
    }

    @Test func applyingArraysSetsThemAndTheyComeBackUnchanged() throws {
        let model = try SmallNetwork.model()
        var arrays = try ModelArrays.arrays(of: model)
        let changed = try MLMultiArray(shape: [10], dataType: .float32)
        for index in 0..<10 { changed[index] = NSNumber(value: Float(index) / 8) }
        arrays[5].1.data = changed.npyData()
        let updated = try ModelArrays.applying(arrays, to: model)
        let bias = try #require(try updated.parameterValue(for: .biases.scoped(to: "dense2")) as? MLMultiArray)
        #expect(bias.floatValues() == (0..<10).map { Float($0) / 8 })
        #expect(try ModelArrays.arrays(of: updated).map(\.1) == arrays.map(\.1))
    }

    @Test func wrongArraysAreErrorsNamingTheArray() throws {
        let model = try SmallNetwork.model()
        let arrays = try ModelArrays.arrays(of: model)
        #expect(throws: FlowerClientError.badInstruction("the server sent no array 'dense2.bias' (it sent 5 arrays; the model exchanges 6)")) {
            try ModelArrays.applying(Array(arrays.dropLast()), to: model)
        }
        var wrongShape = arrays
        wrongShape[4].1.shape = [24, 10]
        #expect(throws: FlowerClientError.badInstruction("array 'dense2.weights' has shape [24, 10]; the model's is [10, 24]")) {
            try ModelArrays.applying(wrongShape, to: model)
        }
        let extra = arrays + [("dense3.weights", arrays[0].1)]
        #expect(throws: (any Error).self) { try ModelArrays.applying(extra, to: model) }
        var notANumber = arrays
        let bad = try MLMultiArray(shape: [10], dataType: .float32)
        bad[3] = NSNumber(value: Float.nan)
        notANumber[5].1.data = bad.npyData()
        let error = try #require(throws: FlowerClientError.self) { try ModelArrays.applying(notANumber, to: model) }
        #expect("\(error)".contains("dense2.bias"))
    }
}
