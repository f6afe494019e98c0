import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// The memory budget: a model or a data set that would need more than the configuration's limit
/// fails with one error saying how much and where, before anything large is allocated.
@Suite("Memory limit")
struct MemoryLimitTests {
    /// input [1, 2, 2] → upsample by `factor` × `factor` → output.
    static func upsampler(factor: UInt64) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 4
        var input = CoreML_Specification_FeatureDescription()
        input.name = "x"
        input.type.multiArrayType.shape = [1, 2, 2]
        input.type.multiArrayType.dataType = .float32
        var output = CoreML_Specification_FeatureDescription()
        output.name = "y"
        output.type.multiArrayType.dataType = .float32
        output.type.multiArrayType.shape = [1, Int64(2 * factor), Int64(2 * factor)]
        model.description_p.input = [input]
        model.description_p.output = [output]
        var upsample = CoreML_Specification_UpsampleLayerParams()
        upsample.scalingFactor = [factor, factor]
        var layer = CoreML_Specification_NeuralNetworkLayer()
        layer.name = "grow"
        layer.input = ["x"]
        layer.output = ["y"]
        layer.upsample = upsample
        model.neuralNetwork.layers = [layer]
        return model
    }

    static func input() throws -> MLFeatureProvider {
        let array = try MLMultiArray(shape: [1, 2, 2], dataType: .float32)
        return try MLDictionaryFeatureProvider(dictionary: ["x": array])
    }

    static func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        Issue.record("expected an error")
        return ""
    }

    @Test func aHugeUpsampleFailsByTheDefaultLimitNamingTheLayer() throws {
        // 2 · 2^20 squared per channel: 16 TB of floats, far above half of any machine's memory.
        let model = try MLModel(specification: Self.upsampler(factor: 1 << 20))
        let text = Self.message { _ = try model.prediction(from: Self.input()) }
        #expect(text.contains("layer 'grow'") && text.contains("memory limit") && text.contains("TB"), "\(text)")
    }

    @Test func theConfigurationsLimitApplies() throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 1_000
        // 2 · 32 squared floats = 16 kB: over 1 kB, fine by default.
        let limited = try MLModel(specification: Self.upsampler(factor: 32), configuration: configuration)
        let text = Self.message { _ = try limited.prediction(from: Self.input()) }
        #expect(text.contains("needs 16.4 kB for a batch of 1") && text.contains("1.0 kB"), "\(text)")
        let output = try MLModel(specification: Self.upsampler(factor: 32)).prediction(from: Self.input())
        #expect(output.featureValue(for: "y")?.multiArrayValue?.count == 4 * 32 * 32)
    }

    @Test func trainingChecksTheNetworkAndTheData() throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 200_000
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"), configuration: configuration)
        let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
        let label = try MLMultiArray(shape: [1], dataType: .int32)
        let example = try MLDictionaryFeatureProvider(dictionary: ["image": image, "output_true": label])
        let text = Self.message { _ = try model.updated(with: MLArrayBatchProvider(array: [example])) }
        #expect(text.contains("memory limit of 200.0 kB") && text.contains("needs"), "\(text)")
    }

    /// The fuzzer's finding of 2026-11-23 (`Fuzz/findings/FuzzModel-padding-within-default-budget.bin`):
    /// a 78-byte model whose padding layer turns 129,787 values into 129,787 × 104 × 47 (2.5 GB).
    /// Within the default budget on a large machine, so the harness now runs under 512 MB; under a
    /// limit below 2.5 GB it is refused before anything is allocated.
    @Test func aPaddingThatGrowsPastTheLimitIsRefused() throws {
        var height = CoreML_Specification_BorderAmounts.EdgeSizes()
        (height.startEdgeSize, height.endEdgeSize) = (64, 39)
        var width = CoreML_Specification_BorderAmounts.EdgeSizes()
        (width.startEdgeSize, width.endEdgeSize) = (43, 3)
        // The output shape is what the file declared; the engine computes the real one.
        let model = HostileModels.network([("x", [129_787])], [
            TestSpecs.layer("l", ["x"], ["y"]) {
                $0.padding.constant = CoreML_Specification_PaddingLayerParams.PaddingConstant()
                $0.padding.paddingAmounts.borderAmounts = [height, width]
            },
        ], outputShape: [1, 5, 6])

        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 512 << 20
        let limited = try MLModel(specification: model, configuration: configuration)
        let x = try MLMultiArray(shape: [129_787], dataType: .float32)
        let text = Self.message { _ = try limited.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x])) }
        #expect(text.contains("layer 'l'") && text.contains("needs 2.5 GB") && text.contains("[129787, 104, 47]"), "\(text)")
    }
}
