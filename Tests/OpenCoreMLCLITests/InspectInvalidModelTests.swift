import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `inspect` on a model the layer table rejects: exit code 1 and one error line naming the layer.
struct InspectInvalidModelTests {
    /// `x` [3] → innerProduct 'dense' (3 → 2, `hasBias` set) → `y` [2], with `bias` values.
    private static func dense(bias: [Float]) -> CoreML_Specification_Model {
        func array(_ name: String, _ size: Int64) -> CoreML_Specification_FeatureDescription {
            var feature = CoreML_Specification_FeatureDescription()
            feature.name = name
            feature.type.multiArrayType.shape = [size]
            feature.type.multiArrayType.dataType = .float32
            return feature
        }
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        model.description_p.input = [array("x", 3)]
        model.description_p.output = [array("y", 2)]
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = "dense"
        layer.input = ["x"]
        layer.output = ["y"]
        layer.innerProduct.inputChannels = 3
        layer.innerProduct.outputChannels = 2
        layer.innerProduct.hasBias_p = true
        layer.innerProduct.weights.floatValue = [1, 2, 3, 4, 5, 6]
        layer.innerProduct.bias.floatValue = bias
        model.neuralNetwork.layers = [layer]
        return model
    }

    @Test(arguments: [false, true])
    func hasBiasWithoutBiasValuesExitsWithOneErrorLine(json: Bool) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("dense.mlmodel")
            try Self.dense(bias: []).write(to: url)
            let result = try CommandRunner.run(["inspect"] + (json ? ["--json"] : []) + [url.path])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            let line = String(lines.first ?? "")
            #expect(line.contains(url.path))
            #expect(line.contains("layer 'dense': hasBias is set, but bias holds no values; the layer's sizes need 2"), "\(line)")
            #expect(!line.contains("more problem"))
        }
    }

    @Test func theSameModelWithItsBiasIsInspected() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("dense.mlmodel")
            try Self.dense(bias: [0.5, -0.5]).write(to: url)
            let result = try CommandRunner.run(["inspect", url.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Total parameters: 8"))
        }
    }
}
