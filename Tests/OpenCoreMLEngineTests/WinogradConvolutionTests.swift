import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// A neural network's 3×3 stride-1 convolution of 16 or more channels each way whose weights never
/// train runs by Winograd at inference: the same outputs as the training forward pass (im2col and
/// GEMM), with padding or without, with a fused ReLU and max pooling or a fused clip, on every
/// instruction set, one picture or a batch over the threads.
@Suite("Winograd convolution layers", .serialized)
struct WinogradConvolutionTests {
    enum Variant: String, CaseIterable, Sendable {
        case sameReLUPool, paddedClip
    }

    @Test(arguments: Variant.allCases, [1, 5])
    func inferenceByWinogradEqualsTheTrainingForwardPass(variant: Variant, batch: Int) throws {
        var net = TestNetwork(seed: 3, shape: [16, 11, 9])
        if variant == .sameReLUPool {
            net.convolution("conv", "x", "a", inputChannels: 16, outputChannels: 18, same: true, updatable: false)
            net.add("relu", ["a"], ["b"]) { $0.activation.reLu = .init() }
            net.add("pool", ["b"], ["y"]) {
                var p = CoreML_Specification_PoolingLayerParams()
                p.type = .max
                p.kernelSize = [2, 2]
                p.stride = [2, 2]
                p.valid = .init()
                $0.pooling = p
            }
        } else {
            net.convolution("conv", "x", "a", inputChannels: 16, outputChannels: 17, padding: [2, 0, 1, 1], updatable: false)
            net.add("clip", ["a"], ["y"]) { $0.clip.minVal = -2; $0.clip.maxVal = 2.5 }
        }
        let outputs = try net.trainingAndInferenceOutputs(batch: batch, seed: 8)
        #expect(Set(outputs.training).count > outputs.training.count / 4, "the outputs vary")
        for (isa, winograd) in outputs.inference {
            let worst = zip(winograd, outputs.training).map { abs($0 - $1) }.max() ?? .nan
            #expect(worst <= 1e-5, "\(variant) batch \(batch), \(isa): off by \(worst)")
        }
    }
}
