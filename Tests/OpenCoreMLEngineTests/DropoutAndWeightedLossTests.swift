import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// The training-only graph parts of `TrainingGraphExtras`: dropout (inference copies, training
/// masks; gradients by finite differences with a frozen mask) and the per-step weighted
/// cross-entropy (hand-computed values, weight-0 steps ignored, gradients by finite differences).
@Suite("Training-only dropout and the per-step weighted cross-entropy")
struct DropoutAndWeightedLossTests {
    /// x [6] → dense 6→8 → dropout → dense 8→3 → MSE, with dropout at `rate` on the hidden blob.
    static func dropoutNetwork(rate: Float, seed: UInt64 = 3) throws -> Network {
        var net = TestNetwork(seed: 40, shape: [6])
        net.innerProduct("dense0", "x", "hidden", inputs: 6, outputs: 8)
        net.innerProduct("dense1", "hidden", "y", inputs: 8, outputs: 3)
        net.finish(output: "y", outputShape: [3], loss: .meanSquaredError)
        return try Network(model: net.model, extras: TrainingGraphExtras(dropout: ["hidden": rate], seed: seed))
    }

    static func dropoutNode(_ network: Network) -> DropoutNode {
        network.nodes.compactMap { $0 as? DropoutNode }.first!
    }

    @Test func dropoutCopiesOutsideTrainingAndMasksInTraining() throws {
        let network = try Self.dropoutNetwork(rate: 0.5)
        #expect(network.nodes.map(\.name) == ["dense0", TrainingGraphExtras.dropoutOutput(of: "hidden"), "dense1"])
        let batch = 64
        GradientCheck.fillRandomly(network, model: CoreML_Specification_Model(), batch: batch, seed: 5)
        network.forward(batch: batch, training: false)
        let hidden = network.blobs["hidden"]!.value.array(batch * 8)
        let dropped = network.blobs[TrainingGraphExtras.dropoutOutput(of: "hidden")]!.value.array(batch * 8)
        #expect(hidden == dropped)
        let inference = network.blobs["y"]!.value.array(batch * 3)

        network.forward(batch: batch, training: true)
        let trained = network.blobs[TrainingGraphExtras.dropoutOutput(of: "hidden")]!.value.array(batch * 8)
        var zeros = 0
        for (h, d) in zip(hidden, trained) {
            if d == 0 { zeros += 1 } else { #expect(abs(d - 2 * h) <= 1e-6 * max(1, abs(h))) }
        }
        // 512 values at rate 0.5: 256 ± 3σ (σ ≈ 11.3).
        #expect((222...290).contains(zeros), "\(zeros) of 512 dropped")
        // A new training pass draws a new mask; inference is unchanged by training passes.
        network.forward(batch: batch, training: true)
        #expect(network.blobs[TrainingGraphExtras.dropoutOutput(of: "hidden")]!.value.array(batch * 8) != trained)
        network.forward(batch: batch, training: false)
        #expect(network.blobs["y"]!.value.array(batch * 3) == inference)
    }

    @Test func dropoutMasksAreSeeded() throws {
        func mask(seed: UInt64) throws -> [Float] {
            let network = try Self.dropoutNetwork(rate: 0.3, seed: seed)
            GradientCheck.fillRandomly(network, model: CoreML_Specification_Model(), batch: 4, seed: 5)
            network.forward(batch: 4, training: true)
            return network.blobs[TrainingGraphExtras.dropoutOutput(of: "hidden")]!.value.array(32)
        }
        #expect(try mask(seed: 1) == mask(seed: 1))
        #expect(try mask(seed: 1) != mask(seed: 2))
    }

    @Test(arguments: [Float(0.2), 0.5])
    func dropoutGradientsMatchFiniteDifferencesWithAFixedMask(rate: Float) throws {
        let network = try Self.dropoutNetwork(rate: rate)
        GradientCheck.fillRandomly(network, model: CoreML_Specification_Model(), batch: 4, seed: 9)
        network.forward(batch: 4, training: true)
        Self.dropoutNode(network).freezesMask = true
        try GradientCheck.checkFilled(network, batch: 4, samples: 16)
        // The frozen mask held: the checked passes dropped values (zeros where dense0's outputs are not).
        let hidden = network.blobs["hidden"]!.value.array(32)
        let dropped = network.blobs[TrainingGraphExtras.dropoutOutput(of: "hidden")]!.value.array(32)
        #expect(zip(hidden, dropped).contains { $0 != 0 && $1 == 0 })
    }

    // MARK: Weighted cross-entropy

    /// x [steps, 1, 3, 1, 1] → dense 3→classes per step → softmax (→ a copy when `shared`) → weighted CE.
    static func weightedNetwork(steps: Int = 5, classes: Int = 4, shared: Bool = false) throws -> Network {
        var net = TestNetwork(seed: 41, shape: [Int64(steps), 1, 3, 1, 1])
        net.innerProduct("dense", "x", "logits", inputs: 3, outputs: classes)
        net.add("softmax", ["logits"], ["p"]) { $0.softmax = CoreML_Specification_SoftmaxLayerParams() }
        if shared {
            var linear = CoreML_Specification_ActivationParams()
            linear.linear.alpha = 1
            net.add("copy", ["p"], ["p2"]) { $0.activation = linear }
        }
        net.finish(output: "p", outputShape: [Int64(steps), 1, Int64(classes), 1, 1], loss: .crossEntropy)
        return try Network(model: net.model, extras: TrainingGraphExtras(lossWeights: ["loss": "weights"]))
    }

    static func fill(_ network: Network, batch: Int, steps: Int, classes: Int, weights: [Float], seed: UInt64) {
        var random = TestRandom(seed: seed)
        network.reserve(batch: batch, training: true)
        let x = network.inputBlob(named: "x")!.value.pointer
        for i in 0..<(batch * steps * 3) { x[i] = random.float(-1, 1) }
        let t = network.inputBlob(named: "target")!.value.pointer
        for i in 0..<(batch * steps) { t[i] = Float(random.int(0..<classes)) }
        network.inputBlob(named: "weights")!.value.pointer.update(from: weights, count: batch * steps)
    }

    @Test func weightedLossIsTheWeightedMeanOfStepLosses() throws {
        let (batch, steps, classes) = (2, 5, 4)
        let network = try Self.weightedNetwork(steps: steps, classes: classes)
        #expect(network.inputBlob(named: "weights")!.shape == TensorShape([steps]))
        let weights: [Float] = [1, 1, 1, 0, 0, 1, 2, 1, 1, 0]
        Self.fill(network, batch: batch, steps: steps, classes: classes, weights: weights, seed: 2)
        let loss = try network.trainingStep(batch: batch)
        let p = network.blobs["p"]!.value.array(batch * steps * classes)
        let t = network.inputBlob(named: "target")!.value.array(batch * steps)
        var sum = 0.0, total = 0.0
        for row in 0..<(batch * steps) where weights[row] > 0 {
            sum -= Double(weights[row]) * log(Double(p[row * classes + Int(t[row])]))
            total += Double(weights[row])
        }
        #expect(abs(Double(loss) - sum / total) < 1e-5)

        // Weight-0 steps: their labels are not read (even invalid ones) and do not change the loss.
        let target = network.inputBlob(named: "target")!.value.pointer
        target[3] = 99
        target[9] = -1
        #expect(abs(try network.trainingStep(batch: batch) - loss) < 1e-6)
        // A weighted step with a bad label is an error naming the example and the step.
        target[2] = 7
        #expect(throws: EngineError.self) { try network.trainingStep(batch: batch) }
        do { _ = try network.trainingStep(batch: batch) } catch { #expect("\(error)".contains("example 0, step 2")) }
    }

    @Test func allZeroWeightsGiveZeroLossAndGradient() throws {
        let network = try Self.weightedNetwork(steps: 3, classes: 2)
        Self.fill(network, batch: 2, steps: 3, classes: 2, weights: [Float](repeating: 0, count: 6), seed: 4)
        #expect(try network.trainingStep(batch: 2) == 0)
        for parameter in network.parameters where parameter.isTrainable {
            #expect(parameter.gradient.array(parameter.count).allSatisfy { $0 == 0 })
        }
    }

    @Test(arguments: [false, true])
    func weightedLossGradientsMatchFiniteDifferences(shared: Bool) throws {
        let (batch, steps, classes) = (3, 5, 4)
        let network = try Self.weightedNetwork(steps: steps, classes: classes, shared: shared)
        let weights: [Float] = [1, 1, 1, 1, 0, 0.5, 2, 1, 0, 0, 1, 1, 1, 1, 1]
        Self.fill(network, batch: batch, steps: steps, classes: classes, weights: weights, seed: 6)
        try GradientCheck.checkFilled(network, batch: batch, samples: 16)
    }
}
