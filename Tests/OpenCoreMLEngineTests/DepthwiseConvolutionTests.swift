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

    @Test(arguments: 0..<cases.count)
    func fastPathEqualsTheGeneralPath(index: Int) throws {
        let c = Self.cases[index]
        var net = TestNetwork(seed: UInt64(40 + index), shape: [6, 11, 9])
        net.convolution("depthwise", "x", "y", inputChannels: 6, outputChannels: 6, kernel: c.kernel, stride: c.stride,
                        dilation: c.dilation, groups: 6, same: c.same, padding: c.padding)
        // ReLU6 as a clip, as in EfficientNet (a plain ReLU would be fused into the convolution,
        // which then takes the general path).
        net.add("relu6", ["y"], ["z"]) { $0.clip.minVal = 0; $0.clip.maxVal = 6 }
        let network = try Network(model: {
            var model = net.model
            model.neuralNetwork.layers = net.layers
            return model
        }())
        let batch = 3
        network.reserve(batch: batch, training: true)
        let x = network.inputBlob(named: "x")!
        var random = TestRandom(seed: UInt64(index))
        for i in 0..<(batch * x.shape.count) { x.value.pointer[i] = random.float() }
        let y = network.blobs["y"]!
        network.forward(batch: batch, training: false)
        let fast = Array(UnsafeBufferPointer(start: y.value.pointer, count: batch * y.shape.count))
        network.forward(batch: batch, training: true)
        let general = Array(UnsafeBufferPointer(start: y.value.pointer, count: batch * y.shape.count))
        #expect(fast.count > 0 && fast.contains { $0 != 0 })
        #expect(zip(fast, general).map { abs($0 - $1) }.max()! < 1e-5, "case \(c)")
    }
}
