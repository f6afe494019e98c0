import CoreMLSpec
import Foundation
import _OpenCoreMLEngine
import Testing
import _OpenCoreMLTestSupport

/// Turi Create's activity-classifier network, small, as the engine trains it: a chunk of windows
/// `[steps, 1, 1, window, features]` → permute → convolution over each window (kernel = stride =
/// window) → ReLU → dropout → LSTM (sequence output) → dense → batchnorm (batch statistics) → ReLU →
/// dropout → dense → softmax → cross-entropy weighted per window. The layers compose, and Adam
/// learns to tell two sine frequencies apart.
@Suite("Activity classifier network in the engine")
struct ActivityNetworkTrainingTests {
    static let (steps, window, features, filters, hidden, dense, classes) = (5, 8, 2, 8, 6, 5, 2)

    static func model() -> CoreML_Specification_Model {
        var net = TestNetwork(seed: 77, input: "features", shape: [Int64(steps), 1, 1, Int64(window), Int64(features)])
        net.add("permute", ["features"], ["conv_in"]) { $0.permute.axis = [0, 3, 1, 2] }
        net.convolution("conv", "conv_in", "relu0_in", inputChannels: features, outputChannels: filters, kernel: [1, window], stride: [1, window])
        var relu = CoreML_Specification_ActivationParams()
        relu.reLu = CoreML_Specification_ActivationReLU()
        net.add("relu0", ["relu0_in"], ["lstm_in"]) { $0.activation = relu }
        net.lstm("lstm", inputs: ["lstm_in"], outputs: ["dense0_in"], inputSize: filters, hiddenSize: hidden)
        net.innerProduct("dense0", "dense0_in", "bn_in", inputs: hidden, outputs: dense)
        var bn = CoreML_Specification_BatchnormLayerParams()
        bn.channels = UInt64(dense)
        bn.computeMeanVar = true
        bn.epsilon = 1e-3
        bn.gamma.floatValue = [Float](repeating: 1, count: dense)
        bn.gamma.isUpdatable = true
        bn.beta.floatValue = [Float](repeating: 0, count: dense)
        bn.beta.isUpdatable = true
        bn.mean.floatValue = [Float](repeating: 0, count: dense)
        bn.variance.floatValue = [Float](repeating: 1, count: dense)
        net.add("bn", ["bn_in"], ["relu1_in"], updatable: true) { $0.batchnorm = bn }
        net.add("relu1", ["relu1_in"], ["dense1_in"]) { $0.activation = relu }
        net.innerProduct("dense1", "dense1_in", "softmax_in", inputs: dense, outputs: classes)
        net.add("softmax", ["softmax_in"], ["activityProbability"]) { $0.softmax = CoreML_Specification_SoftmaxLayerParams() }
        net.finish(output: "activityProbability", outputShape: [Int64(steps), 1, Int64(classes), 1, 1], loss: .crossEntropy)
        return net.model
    }

    static let extras = TrainingGraphExtras(dropout: ["lstm_in": 0.2, "dense1_in": 0.5], lossWeights: ["loss": "weights"], seed: 1)

    /// One chunk per example: class c is a sine of frequency c + 1 per window on both features; the
    /// last window of every other chunk is padding (weight 0, label 1 against a class-0 signal).
    static func fill(_ network: Network, batch: Int, random: inout TestRandom) -> [Int] {
        network.reserve(batch: batch, training: true)
        let x = network.inputBlob(named: "features")!.value.pointer
        let t = network.inputBlob(named: "target")!.value.pointer
        let w = network.inputBlob(named: "weights")!.value.pointer
        var labels: [Int] = []
        for example in 0..<batch {
            for step in 0..<steps {
                let label = random.int(0..<classes)
                let padded = example % 2 == 1 && step == steps - 1
                let phase = random.float(0, 2 * .pi)
                for sample in 0..<window {
                    let value = padded ? 0 : sin(phase + 2 * .pi * Float(label + 1) * Float(sample) / Float(window))
                    for feature in 0..<features {
                        x[((example * steps + step) * window + sample) * features + feature] = value + random.float(-0.1, 0.1)
                    }
                }
                t[example * steps + step] = padded ? 1 : Float(label)
                w[example * steps + step] = padded ? 0 : 1
                labels.append(padded ? -1 : label)
            }
        }
        return labels
    }

    @Test func shapesFollowTheChunk() throws {
        let network = try Network(model: Self.model(), extras: Self.extras)
        #expect(network.blobs["relu0_in"]!.shape.classic == ClassicShape(outer: Self.steps, channels: Self.filters, height: 1, width: 1))
        #expect(network.blobs["dense0_in"]!.shape.classic.outer == Self.steps)
        #expect(network.blobs["activityProbability"]!.shape.count == Self.steps * Self.classes)
        #expect(network.nodes.filter { $0 is DropoutNode }.count == 2)
    }

    @Test func adamLearnsTwoFrequenciesThroughTheWholeNetwork() throws {
        let network = try Network(model: Self.model(), extras: Self.extras)
        let optimizer = Optimizer(.adam(learningRate: 0.01, beta1: 0.9, beta2: 0.999, eps: 1e-8))
        var random = TestRandom(seed: 3)
        let batch = 8
        var first: Float = 0, last: Float = 0
        for iteration in 0..<150 {
            _ = Self.fill(network, batch: batch, random: &random)
            let loss = try network.trainingStep(batch: batch)
            #expect(loss.isFinite)
            optimizer.update(network.parameters)
            if iteration < 10 { first += loss / 10 }
            if iteration >= 140 { last += loss / 10 }
        }
        #expect(last < first * 0.5, "loss \(first) → \(last)")
        // Inference (no dropout) on fresh chunks classifies most weighted windows.
        let labels = Self.fill(network, batch: batch, random: &random)
        network.forward(batch: batch, training: false)
        let p = network.blobs["activityProbability"]!.value.pointer
        var correct = 0, counted = 0
        for (row, label) in labels.enumerated() where label >= 0 {
            counted += 1
            if (p[row * Self.classes + label] > 0.5) { correct += 1 }
        }
        #expect(Double(correct) / Double(counted) > 0.8, "\(correct) of \(counted)")
    }
}
