import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLKernels
import _OpenCoreMLTestSupport

/// Convolutions whose weights never train keep them packed for the GEMM kernel: inference through
/// the packed weights equals the forward pass of training (which packs them as it goes), for
/// grouped and plain convolutions with fused activations, and after the instruction set changes.
@Suite("Packed convolution weights", .serialized)
struct PackedWeightsTests {
    @Test(arguments: [1, 2])
    func inferenceWithPackedWeightsEqualsTheTrainingForwardPass(groups: Int) throws {
        var net = TestNetwork(seed: 9, shape: [4, 13, 11])
        net.convolution("grouped", "x", "a", inputChannels: 4, outputChannels: 10, kernel: [3, 3], groups: groups, same: true, updatable: false)
        net.add("relu6", ["a"], ["b"]) { $0.clip.minVal = 0; $0.clip.maxVal = 0.3 }
        net.convolution("pointwise", "b", "c", inputChannels: 10, outputChannels: 9, kernel: [1, 1], updatable: false)
        net.add("relu", ["c"], ["y"]) { $0.activation.reLu = .init() }
        let outputs = try net.trainingAndInferenceOutputs(batch: 3, seed: 5)
        let reference = outputs.training
        #expect(reference.contains { $0 > 0 } && reference.contains(0), "the ReLU passes some values and stops others")
        for (isa, packed) in outputs.inference {
            #expect(zip(packed, reference).allSatisfy { abs($0 - $1) <= 1e-5 * max(1, abs($1)) }, "groups \(groups), \(isa)")
        }
    }
}
