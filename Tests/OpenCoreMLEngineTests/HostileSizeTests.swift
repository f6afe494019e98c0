import CoreMLSpec
import Testing
import _OpenCoreMLEngine
import _OpenCoreMLTestSupport

/// Compiling a network from hostile declared sizes throws an error naming the layer and the field
/// (the network is compiled from unvalidated specifications too, so the nodes check what they read).
struct HostileSizeTests {
    @Test(arguments: HostileModels.compileCases)
    func compilingThrowsNamingTheLayerAndTheField(_ hostile: HostileModels.Case) {
        let message = errorMessage { _ = try Network(model: hostile.model) }
        #expect(message.contains(hostile.message), "\(message)")
    }

    @Test(arguments: [UInt64(1) << 40, .max, UInt64(bitPattern: -1)])
    func nodesCheckTheSizesTheShapeRulesDoNotRead(inputDim: UInt64) {
        // The embedding's shape rule reads only outputChannels; the node reads inputDim.
        let model = HostileModels.network([("x", [1])], [TestSpecs.layer("embed", ["x"], ["y"]) {
            $0.embedding.inputDim = inputDim
            $0.embedding.outputChannels = 2
            $0.embedding.weights = TestSpecs.weights(count: 8)
        }])
        let message = errorMessage { _ = try Network(model: model) }
        #expect(message == "layer 'embed' (embedding): inputDim \(inputDim) is too large (at most 2147483647)")
    }
}
