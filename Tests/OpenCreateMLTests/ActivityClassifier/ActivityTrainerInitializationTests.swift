@testable import OpenCreateML
import Testing
import _OpenCoreMLEngine

/// Turi Create's initial weights as ``ActivityTrainer`` draws them: Xavier-uniform within
/// ±√(6 / (fan in + fan out)) per weight matrix, every bias 0, batchnorm scale 1 and shift 0, and
/// the draw a function of the seed.
@Suite("Activity classifier: initial weights")
struct ActivityTrainerInitializationTests {
    static let (features, window, classes) = (3, 4, 3)

    static func parameters(seed: Int) throws -> [String: [Float]] {
        let trainer = try ActivityTrainer(featureCount: features, predictionWindow: window, classLabels: ["a", "b", "c"],
                                          labelName: "activity", seed: seed)
        var result: [String: [Float]] = [:]
        for parameter in trainer.network.parameters where parameter.isTrainable {
            result[parameter.name] = Array(UnsafeBufferPointer(start: parameter.value.pointer, count: parameter.count))
        }
        return result
    }

    /// The Xavier limits, by hand: convolution fans 3·4 = 12 and 64·4 = 256; each LSTM gate's input
    /// block 64 → 200 and recurrent block 200 → 200; dense 200 → 128 and 128 → 3.
    static let limits: [String: Double] = {
        var limits = ["conv_layer.weights": (6.0 / 268).squareRoot(),
                      "dense_layer.weights": (6.0 / 328).squareRoot(),
                      "dense_layer1.weights": (6.0 / 131).squareRoot()]
        for gate in ["inputGate", "forgetGate", "blockInput", "outputGate"] {
            limits["lstm_layer.\(gate)WeightMatrix"] = (6.0 / 264).squareRoot()
            limits["lstm_layer.\(gate)RecursionMatrix"] = (6.0 / 400).squareRoot()
        }
        return limits
    }()

    @Test func weightsAreXavierUniformBiasesZeroBatchnormIdentity() throws {
        let parameters = try Self.parameters(seed: 0)
        let biases = ["conv_layer.bias", "dense_layer.bias"] + ["inputGate", "forgetGate", "blockInput", "outputGate"].map { "lstm_layer.\($0)BiasVector" }
        #expect(Set(parameters.keys) == Set(Self.limits.keys).union(biases).union(["bn_layer.gamma", "bn_layer.beta"]))
        for (name, limit) in Self.limits.sorted(by: { $0.key < $1.key }) {
            let values = try #require(parameters[name]).map(Double.init)
            let largest = values.map(abs).max() ?? 0
            let mean = values.reduce(0, +) / Double(values.count)
            // Uniform on ±limit: standard deviation limit/√3, so the mean's is limit/√(3n); 5 of them.
            #expect(largest <= limit && largest > 0.9 * limit, "\(name): largest |w| \(largest), limit \(limit)")
            #expect(abs(mean) < 5 * limit / (3 * Double(values.count)).squareRoot(), "\(name): mean \(mean)")
        }
        for name in biases {
            let values = try #require(parameters[name])
            #expect(values.allSatisfy { $0 == 0 }, "\(name)")
        }
        let (gamma, beta) = (try #require(parameters["bn_layer.gamma"]), try #require(parameters["bn_layer.beta"]))
        #expect(gamma.allSatisfy { $0 == 1 } && beta.allSatisfy { $0 == 0 })
    }

    @Test func theSeedDecidesTheWeights() throws {
        let zero = try Self.parameters(seed: 0), again = try Self.parameters(seed: 0), one = try Self.parameters(seed: 1)
        #expect(zero == again)
        for name in Self.limits.keys.sorted() {
            let a = try #require(zero[name]), b = try #require(one[name])
            // Independent draws: at most a few values could agree by chance.
            #expect(zip(a, b).filter { $0 == $1 }.count < a.count / 100 + 1, "\(name): seeds 0 and 1 give the same weights")
        }
    }
}
