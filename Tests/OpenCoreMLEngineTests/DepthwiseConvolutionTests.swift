import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// The depthwise fast path (inference) against the general im2col + GEMM path (which training
/// runs, and which the gradient tests check) on the same network and input.
@Suite("Depthwise convolution")
struct DepthwiseConvolutionTests {
    static let cases: [(kernel: [Int], stride: [Int], dilation: [Int], same: Bool, padding: [Int])] = [
        ([3, 3], [1, 1], [1, 1], true, [0, 0, 0, 0]),
        ([3, 3], [2, 2], [1, 1], true, [0, 0, 0, 0]),
        ([5, 5], [2, 2], [1, 1], true, [0, 0, 0, 0]),
        ([5, 3], [1, 2], [1, 1], false, [2, 1, 0, 3]),
        ([3, 3], [1, 1], [2, 2], false, [1, 1, 1, 1]),
        ([3, 3], [1, 1], [1, 1], false, [0, 0, 0, 0]),
    ]

    /// What follows the convolution: fused into it (a ReLU; a clip, here with both bounds inside
    /// the outputs' range) or nothing.
    enum After: String, CaseIterable, Sendable { case nothing, relu, clip }

    @Test(arguments: 0..<cases.count, After.allCases)
    func fastPathEqualsTheGeneralPath(index: Int, after: After) throws {
        let c = Self.cases[index]
        var net = TestNetwork(seed: UInt64(40 + index), shape: [6, 11, 9])
        net.convolution("depthwise", "x", "y", inputChannels: 6, outputChannels: 6, kernel: c.kernel, stride: c.stride,
                        dilation: c.dilation, groups: 6, same: c.same, padding: c.padding)
        switch after {
        case .nothing: break
        case .relu: net.add("relu", ["y"], ["z"]) { $0.activation.reLu = .init() }
        case .clip: net.add("clip", ["y"], ["z"]) { $0.clip.minVal = -0.25; $0.clip.maxVal = 0.5 }
        }
        let network = try Network(model: {
            var model = net.model
            model.neuralNetwork.layers = net.layers
            return model
        }())
        #expect(network.blobs["y"]!.isElided == (after != .nothing), "the activation is fused")
        let batch = 3
        network.reserve(batch: batch, training: true)
        let x = network.inputBlob(named: "x")!
        var random = TestRandom(seed: UInt64(index))
        for i in 0..<(batch * x.shape.count) { x.value.pointer[i] = random.float() }
        let y = network.blobs[after == .nothing ? "y" : "z"]!
        network.forward(batch: batch, training: false)
        let fast = Array(UnsafeBufferPointer(start: y.value.pointer, count: batch * y.shape.count))
        network.forward(batch: batch, training: true)
        let general = Array(UnsafeBufferPointer(start: y.value.pointer, count: batch * y.shape.count))
        #expect(fast.count > 0 && fast.contains { $0 != 0 })
        if after == .clip {
            #expect(fast.contains(-0.25) && fast.contains(0.5), "both bounds are reached")
        }
        #expect(zip(fast, general).map { abs($0 - $1) }.max()! < 1e-5, "case \(c), \(after)")
    }
}
