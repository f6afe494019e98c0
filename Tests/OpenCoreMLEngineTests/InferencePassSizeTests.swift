import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Prediction passes take as many examples as keep the largest layer's input and output within
/// the cache budget, at least one per thread and at most the caller's limit.
@Suite("Inference pass size")
struct InferencePassSizeTests {
    static func network(shape: [Int]) throws -> Network {
        var net = TestNetwork(seed: 1, shape: shape.map(Int64.init))
        net.convolution("conv", "x", "y", inputChannels: shape[0], outputChannels: 4, kernel: [1, 1], updatable: false)
        return try Network(model: {
            var model = net.model
            model.neuralNetwork.layers = net.layers
            return model
        }())
    }

    @Test func largeActivationsGoThroughInSmallPasses() throws {
        // The largest blob: 4 × 400 × 400 floats, 2.56 MB; input and output of 3 examples exceed 16 MiB.
        let large = try Self.network(shape: [3, 400, 400])
        let fitting = Network.inferenceCacheBytes / (2 * 4 * 4 * 400 * 400)
        #expect(fitting == 3)
        #expect(large.inferencePassSize(threads: 2, limit: 64) == 3)
        #expect(large.inferencePassSize(threads: 8, limit: 64) == 8, "one example per thread at least")
        #expect(large.inferencePassSize(threads: 8, limit: 5) == 5, "the limit wins")
    }

    @Test func smallActivationsTakeTheLimit() throws {
        let small = try Self.network(shape: [2, 8, 8])
        #expect(small.inferencePassSize(threads: 2, limit: 64) == 64)
    }
}
