import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// Convolution → ReLU (→ max pooling) and convolution → clip chains run fused: the same outputs,
/// loss and gradients as the layers run one by one, gradients that pass finite differences, and no
/// fusion where an in-between blob is read elsewhere.
@Suite("Fused convolution, ReLU or clip, and max pooling", .serialized)
struct FusionTests {
    enum Pool: String, CaseIterable, Sendable {
        case none, twoByTwo, threeByThreePadded
    }

    /// x [2, 7, 6] → trainable 1×1 conv → conv 3×3 → ReLU (or a clip) → pooling? → flatten → dense → MSE.
    static func model(_ pool: Pool, extraReader: Bool = false, clip: Bool = false) throws -> CoreML_Specification_Model {
        // clip came with iOS 13: Core ML allows it only under the exact array mapping, so that
        // variant's input is a rank-4 [1, C, H, W].
        var net = TestNetwork(seed: 11, shape: clip ? [1, 2, 7, 6] : [2, 7, 6])
        // A trainable layer first, so the fused convolution's input gradient is used and checked.
        net.convolution("pre", "x", "a", inputChannels: 2, outputChannels: 2, kernel: [1, 1])
        net.convolution("conv", "a", "b", inputChannels: 2, outputChannels: 3, kernel: [3, 3])
        if clip {
            // Bounds inside the outputs' range, so that both clamp.
            net.add("relu", ["b"], ["c"]) { $0.clip.minVal = -0.3; $0.clip.maxVal = 0.2 }
        } else {
            net.add("relu", ["b"], ["c"]) { $0.activation.reLu = .init() }
        }
        var last = "c"
        if pool != .none {
            net.add("pool", ["c"], ["d"]) {
                var p = CoreML_Specification_PoolingLayerParams()
                p.type = .max
                if pool == .twoByTwo {
                    p.kernelSize = [2, 2]
                    p.stride = [2, 2]
                    p.valid = .init()
                } else {
                    p.kernelSize = [3, 3]
                    p.stride = [2, 2]
                    p.same = .init()
                }
                $0.pooling = p
            }
            last = "d"
        }
        net.add("flatten", [last], ["f"]) { $0.flatten.mode = .channelFirst }
        if extraReader {
            // A second reader of the ReLU's output keeps it (and the pooling) out of the fusion.
            net.add("flatten2", ["c"], ["g"]) { $0.flatten.mode = .channelFirst }
        }
        let size = try Network(model: { var m = net.model; m.neuralNetwork.layers = net.layers; return m }()).blobs["f"]!.shape.count
        net.innerProduct("dense", "f", "y", inputs: size, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        if clip { net.useExactMapping() }
        return net.model
    }

    /// Loss, output and every parameter gradient after one training step of `batch` examples.
    /// Equal up to float rounding: the fused and the layer-by-layer pass run the same arithmetic and
    /// agree to the bit when nothing else changes the kernels' settings, but other suites in the
    /// same process switch the instruction set and the thread count (and with them the order of
    /// the GEMM sums) while these run.
    static func close(_ a: [Float], _ b: [Float]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= 1e-5 * max(1, abs($0), abs($1)) }
    }

    static func step(_ model: CoreML_Specification_Model, fusing: Bool, batch: Int) throws -> (Float, [Float], [[Float]]) {
        let network = try Network(model: model, fusingLayers: fusing)
        GradientCheck.fillRandomly(network, model: model, batch: batch, seed: 3)
        let loss = try network.trainingStep(batch: batch)
        let output = network.blobs["y"]!.value.array(batch * 3)
        return (loss, output, network.parameters.map { $0.gradient.array($0.count) })
    }

    /// One training step fused and layer by layer, on 1 and 2 threads, batches of 1 and 13 (two
    /// blocks of the backward pass, the second partial): the same loss, outputs and gradients.
    static func expectFusedMatchesLayerByLayer(_ model: CoreML_Specification_Model, _ label: String) throws {
        try withKernelSettingsHeld { try expectFusedMatchesLayerByLayerHeld(model, label) }
    }

    private static func expectFusedMatchesLayerByLayerHeld(_ model: CoreML_Specification_Model, _ label: String) throws {
        defer { ocm_set_num_threads(0) }
        for threads: Int32 in [1, 2] {
            ocm_set_num_threads(threads)
            for batch in [1, 13] {
                let fused = try step(model, fusing: true, batch: batch)
                let plain = try step(model, fusing: false, batch: batch)
                #expect(close([fused.0], [plain.0]), "loss, \(label), batch \(batch), \(threads) threads")
                #expect(close(fused.1, plain.1), "outputs, \(label), batch \(batch), \(threads) threads")
                #expect(close(fused.2.flatMap { $0 }, plain.2.flatMap { $0 }), "gradients, \(label), batch \(batch), \(threads) threads")
            }
        }
    }

    @Test(arguments: Pool.allCases)
    func fusedMatchesLayerByLayer(pool: Pool) throws {
        try Self.expectFusedMatchesLayerByLayer(try Self.model(pool), "\(pool)")
    }

    @Test func fusedClipMatchesLayerByLayer() throws {
        let model = try Self.model(.none, clip: true)
        let network = try Network(model: model)
        #expect(network.blobs["b"]!.isElided, "the clip is fused")
        GradientCheck.fillRandomly(network, model: model, batch: 13, seed: 3)
        network.forward(batch: 13)
        let clipped = network.blobs["c"]!.value.array(13 * network.blobs["c"]!.shape.count)
        #expect(clipped.contains(-0.3) && clipped.contains(0.2) && clipped.contains { $0 > -0.3 && $0 < 0.2 }, "both bounds clamp")
        try Self.expectFusedMatchesLayerByLayer(model, "clip")
    }

    @Test func fusedClipGradientsMatchFiniteDifferences() throws {
        try GradientCheck.check(try Self.model(.none, clip: true), batch: 2, samples: 8, step: 1e-3)
    }

    /// A small step keeps the perturbed passes on the same side of the ReLU's and the pooling's
    /// kinks (checked on a few positions each).
    @Test(arguments: Pool.allCases)
    func fusedGradientsMatchFiniteDifferences(pool: Pool) throws {
        try GradientCheck.check(try Self.model(pool), batch: 2, samples: 8, step: 1e-3)
    }

    @Test func fusionLeavesOutInBetweenBlobs() throws {
        let network = try Network(model: try Self.model(.twoByTwo))
        #expect(network.blobs["b"]!.isElided && network.blobs["c"]!.isElided)
        #expect(!network.blobs["d"]!.isElided)
        let unfused = try Network(model: try Self.model(.twoByTwo), fusingLayers: false)
        #expect(!unfused.blobs["b"]!.isElided && !unfused.blobs["c"]!.isElided)
    }

    @Test func aSecondReaderStopsTheFusionWhereItReads() throws {
        let model = try Self.model(.twoByTwo, extraReader: true)
        let network = try Network(model: model)
        // The ReLU still runs inside the convolution; its output, read twice, is kept, and the pooling runs on its own.
        #expect(network.blobs["b"]!.isElided)
        #expect(!network.blobs["c"]!.isElided)
        let fused = try Self.step(model, fusing: true, batch: 4)
        let plain = try Self.step(model, fusing: false, batch: 4)
        #expect(Self.close([fused.0], [plain.0]) && Self.close(fused.2.flatMap { $0 }, plain.2.flatMap { $0 }))
    }

    @Test func timingsCoverEveryLayerAndCountMultiplyAdds() throws {
        let network = try Network(model: try Self.model(.twoByTwo))
        network.enableTimings()
        GradientCheck.fillRandomly(network, model: try Self.model(.twoByTwo), batch: 2, seed: 1)
        _ = try network.trainingStep(batch: 2)
        let timings = try #require(network.timings)
        #expect(timings.batches == 1)
        #expect(timings.entries.map(\.name) == ["pre", "conv", "relu", "pool", "flatten", "dense"])
        #expect(timings.entries.first { $0.name == "relu" }?.fusedInto == "conv")
        // conv: 3 channels × 5×4 positions × 2·3·3 patch; its input needs a gradient (pre is trained).
        let conv = try #require(timings.entries.first { $0.name == "conv" })
        #expect(conv.forwardMultiplyAdds == 3 * 20 * 18 && conv.trainingMultiplyAdds == 3 * 3 * 20 * 18)
        // pre: 2 channels × 42 positions × 2; no input gradient (x is an input).
        let pre = try #require(timings.entries.first { $0.name == "pre" })
        #expect(pre.trainingMultiplyAdds == 2 * pre.forwardMultiplyAdds && pre.forwardMultiplyAdds == 2 * 42 * 2)
        #expect(timings.entries.allSatisfy { $0.forward >= 0 && $0.backward >= 0 })
        #expect(conv.forward > 0 && conv.backward > 0)
    }
}
