import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// Hardswish written as three classic layers (thresholded ReLU → hard sigmoid → multiply) runs as
/// one pass of the thresholded ReLU's layer: the same outputs, loss and gradients as the layers one
/// by one, gradients that pass finite differences, and no fusion where an in-between blob has
/// another reader.
@Suite("Fused hardswish (classic)", .serialized)
struct HardSwishFusionTests {
    /// x [2, 3, 4] → trainable 1×1 conv a → t = thresholdedReLU(a) → s = sigmoidHard(t) → r = t·s
    /// → flatten → dense → MSE. The threshold and gate are set so that the conv's outputs fall on
    /// every side of them: below the threshold, on the gate's slope and past its top.
    static func model(gateFirst: Bool = false, extraReader: String? = nil) -> CoreML_Specification_Model {
        var net = TestNetwork(seed: 5, shape: [2, 3, 4])
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("threshold", ["a"], ["t"]) { $0.activation.thresholdedReLu.alpha = -0.2 }
        net.add("gate", ["t"], ["s"]) {
            $0.activation.sigmoidHard.alpha = 1.5
            $0.activation.sigmoidHard.beta = 0.4
        }
        net.add("product", gateFirst ? ["s", "t"] : ["t", "s"], ["r"]) { $0.multiply = .init() }
        net.add("flatten", ["r"], ["f"]) { $0.flatten.mode = .channelFirst }
        if let extraReader {
            net.add("flatten2", [extraReader], ["g"]) { $0.flatten.mode = .channelFirst }
        }
        net.innerProduct("dense", "f", "y", inputs: 24, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        return net.model
    }

    static func step(_ model: CoreML_Specification_Model, fusing: Bool, batch: Int) throws -> (loss: Float, values: [Float], gradients: [Float], inference: [Float]) {
        try ResidualAddFusionTests.step(model, fusing: fusing, batch: batch, observing: "r")
    }

    @Test(arguments: [false, true])
    func fusedMatchesLayerByLayer(gateFirst: Bool) throws {
        let model = Self.model(gateFirst: gateFirst)
        let network = try Network(model: model)
        #expect(network.blobs["t"]!.isElided && network.blobs["s"]!.isElided, "the three layers are one")
        #expect(!(try Network(model: model, fusingLayers: false)).blobs["t"]!.isElided)
        for batch in [1, 7] {
            let fused = try Self.step(model, fusing: true, batch: batch)
            let plain = try Self.step(model, fusing: false, batch: batch)
            #expect(FusionTests.close([fused.loss], [plain.loss]), "loss, batch \(batch)")
            #expect(FusionTests.close(fused.values, plain.values), "outputs, batch \(batch)")
            #expect(FusionTests.close(fused.gradients, plain.gradients), "gradients, batch \(batch)")
            #expect(FusionTests.close(fused.inference, plain.inference), "inference outputs, batch \(batch)")
        }
        // Every region of the function is reached: zeros (below the threshold), and values both
        // equal to the input (gate at 1) and not.
        let network2 = try Network(model: model)
        GradientCheck.fillRandomly(network2, model: model, batch: 7, seed: 9)
        network2.forward(batch: 7)
        let r = network2.blobs["r"]!.value.array(7 * 24)
        #expect(r.contains(0) && r.contains { $0 > 0.4 } && r.contains { $0 != 0 && $0 < 0.4 }, "\(r)")
    }

    /// A small step keeps the perturbed passes on the same side of the kinks.
    @Test func fusedGradientsMatchFiniteDifferences() throws {
        try GradientCheck.check(Self.model(), batch: 2, samples: 8, step: 1e-3)
    }

    @Test(arguments: ["t", "s"])
    func aSecondReaderOfAnInBetweenBlobStopsTheFusion(blob: String) throws {
        let model = Self.model(extraReader: blob)
        let network = try Network(model: model)
        #expect(!network.blobs["t"]!.isElided && !network.blobs["s"]!.isElided)
        let fused = try Self.step(model, fusing: true, batch: 3)
        let plain = try Self.step(model, fusing: false, batch: 3)
        #expect(FusionTests.close([fused.loss], [plain.loss]) && FusionTests.close(fused.gradients, plain.gradients))
    }
}
