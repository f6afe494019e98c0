import CoreMLSpec
import Foundation
import OpenCoreMLTools
import Testing
import _OpenCoreMLEngine
import _OpenCoreMLTestSupport

/// Surgery reads the layer table: blob shapes come from its shape rules (no network is compiled,
/// so weights need not even be there), and half-precision weights go through its one decoder.
struct LayerTableSurgeryTests {
    @Test func lossInputShapeNeedsNoWeights() throws {
        var lenet = try Fixtures.model("lenet_updatable.mlmodel")
        for index in lenet.neuralNetwork.layers.indices {
            lenet.neuralNetwork.layers[index].forEachWeight { _, weights in weights = .init() }
        }
        try lenet.setLoss(.meanSquaredError, input: "pool2_out")
        let target = try #require(lenet.description_p.trainingInput.first { $0.name == "pool2_out_true" })
        #expect(target.type.multiArrayType.shape == [32, 6, 6])

        try lenet.setLoss(.meanSquaredError, input: "relu3_out")
        let dense = try #require(lenet.description_p.trainingInput.first { $0.name == "relu3_out_true" })
        #expect(dense.type.multiArrayType.shape == [500])  // a 500×1×1 blob is declared [500]
    }

    @Test func featureExtractorOfAModelTheEngineCannotRunGetsItsShape() throws {
        var lenet = try Fixtures.model("lenet_updatable.mlmodel")
        // Quantized weights whose look-up table is too short cannot be decoded; the shape needs none.
        lenet.neuralNetwork.layers[7].innerProduct.weights = {
            var weights = CoreML_Specification_WeightParams()
            weights.rawValue = Data(repeating: 0xFF, count: 1152 * 500 / 8)
            weights.quantization.numberOfBits = 1
            weights.quantization.lookupTableQuantization.floatValue = [0]  // code 1 is outside it
            return weights
        }()
        let extractor = try lenet.featureExtractor(outputBlob: "dense1_out")
        #expect(extractor.description_p.output[0].type.multiArrayType.shape == [500])
        // Compiling it, as the shape query did before, fails on those weights.
        #expect(throws: EngineError.self) { _ = try Network(model: extractor) }
    }

    @Test func makeUpdatableDecodesHalfPrecisionWeights() throws {
        var lenet = try Fixtures.model("lenet_updatable.mlmodel")
        try lenet.removeUpdatability()
        var dense = lenet.neuralNetwork.layers[9].innerProduct
        // 1.0, -2.0, 2^-24 as little-endian halves, then zeros.
        dense.weights.floatValue = []
        dense.weights.float16Value = Data([0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00] + [UInt8](repeating: 0, count: 2 * (5000 - 3)))
        lenet.neuralNetwork.layers[9].innerProduct = dense
        try lenet.makeUpdatable(layers: ["dense2"])
        let weights = lenet.neuralNetwork.layers[9].innerProduct.weights
        #expect(weights.storage == .float32 && weights.float16Value.isEmpty)
        #expect(Array(weights.floatValue.prefix(3)) == [1, -2, 0x1p-24] && weights.floatValue.count == 5000)
    }
}
