import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// A classic residual `add` → activation pair runs fused (the add writes the activation's output,
/// the sum's blob is never made): the same outputs, loss and gradients as the layers one by one,
/// gradients that pass finite differences, and no fusion where the sum has another reader.
@Suite("Fused residual add and activation (classic)", .serialized)
struct ResidualAddFusionTests {
    /// The activation after the add: some differentiate from their output, the negative-slope leaky
    /// ReLU and softplus need the sum kept while training.
    enum After: String, CaseIterable, Sendable {
        case relu, sigmoid, leakyReLU, negativeLeakyReLU, softplus, clip

        func configure(_ layer: inout CoreML_Specification_NeuralNetworkLayer) {
            switch self {
            case .relu: layer.activation.reLu = .init()
            case .sigmoid: layer.activation.sigmoid = .init()
            case .leakyReLU: layer.activation.leakyReLu.alpha = 0.1
            case .negativeLeakyReLU: layer.activation.leakyReLu.alpha = -0.5
            case .softplus: layer.activation.softplus = .init()
            case .clip: layer.clip.minVal = -0.3; layer.clip.maxVal = 0.4
            }
        }
    }

    /// x [2, 3, 4] → trainable 1×1 conv a → s = a + x → activation r → flatten → dense → MSE.
    static func model(_ after: After, extraReader: Bool = false) -> CoreML_Specification_Model {
        // clip came with iOS 13: Core ML allows it only under the exact array mapping, so that
        // variant's input is a rank-4 [1, C, H, W].
        var net = TestNetwork(seed: 5, shape: after == .clip ? [1, 2, 3, 4] : [2, 3, 4])
        // A trainable layer before the add, so the add's input gradient is used and checked.
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.add("sum", ["a", "x"], ["s"]) { $0.add = .init() }
        net.add("act", ["s"], ["r"]) { after.configure(&$0) }
        net.add("flatten", ["r"], ["f"]) { $0.flatten.mode = .channelFirst }
        if extraReader {
            net.add("flatten2", ["s"], ["g"]) { $0.flatten.mode = .channelFirst }
        }
        net.innerProduct("dense", "f", "y", inputs: 24, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        if after == .clip { net.useExactMapping() }
        return net.model
    }

    /// Loss, the observed blob's values (the activation's output `r`), the output `y` and every
    /// parameter gradient after one training step, and then the observed blob of an inference pass
    /// (also the classic hardswish's tests').
    static func step(_ model: CoreML_Specification_Model, fusing: Bool, batch: Int, observing name: String = "r") throws
        -> (loss: Float, values: [Float], gradients: [Float], inference: [Float]) {
        let network = try Network(model: model, fusingLayers: fusing)
        GradientCheck.fillRandomly(network, model: model, batch: batch, seed: 9)
        let loss = try network.trainingStep(batch: batch)
        let r = network.blobs[name]!, count = batch * r.shape.count
        let values = r.value.array(count) + network.blobs["y"]!.value.array(batch * 3)
        let gradients = network.parameters.flatMap { $0.gradient.array($0.count) }
        for i in 0..<count { r.value.pointer[i] = .nan }
        network.forward(batch: batch)
        return (loss, values, gradients, r.value.array(count))
    }

    @Test(arguments: After.allCases)
    func fusedMatchesLayerByLayer(after: After) throws {
        let model = Self.model(after)
        let network = try Network(model: model)
        #expect(network.blobs["s"]!.isElided, "the \(after) is fused into the add")
        #expect(!(try Network(model: model, fusingLayers: false)).blobs["s"]!.isElided)
        for batch in [1, 7] {
            let fused = try Self.step(model, fusing: true, batch: batch)
            let plain = try Self.step(model, fusing: false, batch: batch)
            #expect(FusionTests.close([fused.loss], [plain.loss]), "loss, \(after), batch \(batch)")
            #expect(FusionTests.close(fused.values, plain.values), "outputs, \(after), batch \(batch)")
            #expect(FusionTests.close(fused.gradients, plain.gradients), "gradients, \(after), batch \(batch)")
            #expect(FusionTests.close(fused.inference, plain.inference), "inference outputs, \(after), batch \(batch)")
            // The activation really acts: some outputs are not the sum (checked against the plain run).
            #expect(fused.gradients.contains { $0 != 0 })
        }
    }

    /// A small step keeps the perturbed passes on the same side of the kinks.
    @Test(arguments: After.allCases)
    func fusedGradientsMatchFiniteDifferences(after: After) throws {
        try GradientCheck.check(Self.model(after), batch: 2, samples: 8, step: 1e-3)
    }

    /// The values of the fused pass by hand for one example: r = relu(conv(x) + x).
    @Test func fusedReLUValuesByHand() throws {
        let model = Self.model(.relu)
        let network = try Network(model: model)
        GradientCheck.fillRandomly(network, model: model, batch: 1, seed: 9)
        network.forward(batch: 1)
        let x = network.blobs["x"]!.value.array(24), a = network.blobs["a"]!.value.array(24)
        let expected = zip(a, x).map { max($0 + $1, 0) }
        #expect(FusionTests.close(network.blobs["r"]!.value.array(24), expected))
        #expect(expected.contains(0) && expected.contains { $0 > 0 }, "both sides of the ReLU")
    }

    @Test func aSecondReaderOfTheSumStopsTheFusion() throws {
        let model = Self.model(.sigmoid, extraReader: true)
        let network = try Network(model: model)
        #expect(!network.blobs["s"]!.isElided)
        network.enableTimings()
        GradientCheck.fillRandomly(network, model: model, batch: 2, seed: 1)
        _ = try network.trainingStep(batch: 2)
        #expect(network.timings?.entries.first { $0.name == "act" }?.fusedInto == nil)
        let fused = try Self.step(model, fusing: true, batch: 3)
        let plain = try Self.step(model, fusing: false, batch: 3)
        #expect(FusionTests.close([fused.loss], [plain.loss]) && FusionTests.close(fused.gradients, plain.gradients))
    }

    @Test func aSumThatIsAModelOutputIsNotFused() throws {
        var model = Self.model(.relu)
        model.description_p.output.append(TestNetwork.array("s", [2, 3, 4]))
        let network = try Network(model: model)
        #expect(!network.blobs["s"]!.isElided)
    }
}
