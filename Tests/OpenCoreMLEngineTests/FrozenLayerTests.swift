import CoreMLSpec
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Only layers and weights marked updatable change; gradients still flow through frozen layers.
@Suite("Frozen layers")
struct FrozenLayerTests {
    @Test func frozenWeightsStayAndUpstreamWeightsStillLearn() throws {
        var net = TestNetwork(seed: 11, shape: [5])
        net.innerProduct("first", "x", "h", inputs: 5, outputs: 4)
        net.innerProduct("frozen", "h", "g", inputs: 4, outputs: 4, updatable: false)
        net.add("tanh", ["g"], ["a"]) { $0.activation.tanh = .init() }
        net.innerProduct("last", "a", "y", inputs: 4, outputs: 2)
        net.finish(output: "y", outputShape: [2], loss: .meanSquaredError)
        try net.model.validate()
        let network = try Network(model: net.model)
        GradientCheck.fillRandomly(network, model: net.model, batch: 4, seed: 12)
        let before = network.parameters.map(\.values)
        let optimizer = Optimizer(.adam(learningRate: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8))
        for _ in 0..<3 {
            _ = try network.trainingStep(batch: 4)
            optimizer.update(network.parameters)
        }
        for (parameter, original) in zip(network.parameters, before) {
            if parameter.name.hasPrefix("frozen.") {
                #expect(!parameter.isTrainable)
                #expect(parameter.values == original, "\(parameter.name) changed")
            } else {
                #expect(parameter.isTrainable)
                #expect(parameter.values != original, "\(parameter.name) did not change")
            }
        }
        // Written back: frozen weights keep their bytes, trained ones carry the new values.
        var model = net.model
        network.store(in: &model)
        #expect(model.neuralNetwork.layers[1].innerProduct.weights == net.model.neuralNetwork.layers[1].innerProduct.weights)
        #expect(model.neuralNetwork.layers[0].innerProduct.weights.floatValue == network.parameters[0].values)
    }
}
