import Foundation
@testable import OpenCreateML
import Testing
import _OpenCoreMLEngine

/// Two training steps of the activity classifier against its PyTorch twin (Scripts/activity_twin.py,
/// Turi Create 6.3's network and training), layer by layer, on the same weights and batches, then
/// prediction: both sides compute the weights (`offset + limit · sin(0.7 i + 1.3 p + 0.5)` for value i
/// of the p-th parameter, Core ML's layout) and two sessions of samples (3 chunks) from formulas; the
/// fixture holds the twin's results in float64 (each tensor's sum, sum of squares and 24 values): the
/// chunks' weights and labels; for each of the two steps of 2 chunks (the second batch filled up with
/// an empty chunk) every layer's output, the loss, every parameter's gradient and its value after the
/// Adam step; the batchnorm's moving statistics after both; and every chunk's probabilities in eval
/// mode (moving statistics, no dropout), compared with ``ActivityChunkPredictor`` on the trainer's
/// chunk specification. Dropout is off on both sides while training.
@Suite("Activity classifier: two training steps and prediction against the PyTorch twin of Turi Create's")
struct ActivityTwinComparisonTests {
    struct Summary: Decodable {
        let count: Int
        let sum: Double
        let squares: Double
        let indices: [Int]
        let values: [Double]
    }
    struct ParameterFormula: Decodable {
        let name: String
        let limit: Double
        let offset: Double
    }
    struct Step: Decodable {
        let loss: Double
        let forward: [String: Summary]
        let gradients: [String: Summary]
        let after_step: [String: Summary]
        let dense_bias_after: [Double]
    }
    struct Fixture: Decodable {
        let window: Int
        let features: Int
        let classes: [String]
        let sessions: [Int]
        let batch_size: Int
        let weights: [Float]
        let labels: [Int]
        let steps: [Step]
        let running_mean: Summary
        let running_variance: Summary
        let eval_probabilities: [Double]
        let parameters: [ParameterFormula]
    }

    static func fixture() throws -> Fixture {
        try JSONDecoder().decode(Fixture.self, from: Data(ActivityTwinFixture.json.utf8))
    }

    /// Session s's samples and labels, as `fixture_sessions` in the twin computes them.
    static func session(_ s: Int, samples n: Int, features: Int, classes: Int) -> (samples: [[Float]], labels: [Int]) {
        func value(_ t: Int, _ f: Int) -> Float {
            let (time, feature, session) = (Double(t), Double(f), Double(s))
            let slow: Double = sin(0.05 * time * (feature + 1) + session)
            let fast: Double = 0.3 * cos(0.31 * time + feature)
            return Float(slow + fast)
        }
        let samples: [[Float]] = (0..<n).map { t in (0..<features).map { f in value(t, f) } }
        return (samples, (0..<n).map { ($0 / 10 + s) % classes })
    }

    /// Whether `values` (count values) matches the twin's summary: the sum and the sum of squares,
    /// and each sampled value within `relative` of the tensor's root mean square (plus `absolute`).
    static func compare(_ what: String, _ values: UnsafePointer<Float>, count: Int, _ expected: Summary,
                        relative: Double, absolute: Double = 1e-7) -> [String] {
        guard count == expected.count else { return ["\(what): \(count) values, the twin has \(expected.count)"] }
        var sum = 0.0, squares = 0.0
        for i in 0..<count { sum += Double(values[i]); squares += Double(values[i]) * Double(values[i]) }
        let rms = (expected.squares / Double(max(count, 1))).squareRoot()
        var problems: [String] = []
        if abs(sum - expected.sum) > relative * rms * Double(count).squareRoot() * 10 + absolute * Double(count) {
            problems.append("\(what): sum \(sum), the twin's \(expected.sum)")
        }
        if abs(squares - expected.squares) > relative * 10 * expected.squares + absolute {
            problems.append("\(what): sum of squares \(squares), the twin's \(expected.squares)")
        }
        for (i, v) in zip(expected.indices, expected.values) where abs(Double(values[i]) - v) > relative * rms + absolute {
            problems.append("\(what)[\(i)]: \(values[i]), the twin's \(v)")
            break
        }
        return problems
    }

    @Test func twoStepsAndPredictionMatchTheTwinLayerByLayer() throws {
        let fixture = try Self.fixture()
        let classCount = fixture.classes.count
        var chunks: [ActivityChunk] = []
        for (s, n) in fixture.sessions.enumerated() {
            let (samples, labels) = Self.session(s, samples: n, features: fixture.features, classes: classCount)
            chunks += ActivityChunk.chunks(samples: samples, labels: labels, featureCount: fixture.features,
                                           predictionWindow: fixture.window, classCount: classCount)
        }
        // The chunks: same windows, labels and weights.
        #expect(chunks.flatMap(\.windowWeights) == fixture.weights)
        #expect(chunks.flatMap(\.windowLabels) == fixture.labels)

        let trainer = try ActivityTrainer(featureCount: fixture.features, predictionWindow: fixture.window, classLabels: fixture.classes,
                                          labelName: "activity", seed: 0, dropout: [:])
        let byName = Dictionary(uniqueKeysWithValues: trainer.network.parameters.map { ($0.name, $0) })
        #expect(Set(trainer.network.parameters.filter(\.isTrainable).map(\.name)) == Set(fixture.parameters.map(\.name)))
        var initial: [String: [Float]] = [:]
        for (ordinal, formula) in fixture.parameters.enumerated() {
            let parameter = try #require(byName[formula.name])
            for i in 0..<parameter.count {
                parameter.value.pointer[i] = Float(formula.offset + formula.limit * sin(0.7 * Double(i) + 1.3 * Double(ordinal) + 0.5))
            }
            initial[formula.name] = Array(UnsafeBufferPointer(start: parameter.value.pointer, count: parameter.count))
        }

        #expect(chunks.count == 3 && fixture.batch_size == 2 && fixture.steps.count == 2)
        var problems: [String] = []
        var previousGradients: [String: Summary] = [:]
        var losses: [Double] = []
        // Each step is compared when it is done (its blobs and gradients are still the network's).
        _ = try trainer.epoch(chunks, order: Array(chunks.indices), batchSize: fixture.batch_size) { step, meanLoss in
            let index = step - 1
            guard index < fixture.steps.count else { problems.append("step \(step): the twin made \(fixture.steps.count)"); return }
            let expected = fixture.steps[index]
            let loss = meanLoss * Double(step) - losses.reduce(0, +)
            losses.append(loss)
            if abs(loss - expected.loss) > 1e-4 * abs(expected.loss) { problems.append("step \(step): loss \(loss), the twin's \(expected.loss)") }
            for (blob, summary) in expected.forward.sorted(by: { $0.key < $1.key }) {
                let name = blob == "probabilities" ? "activityProbability" : blob
                guard let b = trainer.network.blobs[name] else { problems.append("no blob \(name)"); continue }
                problems += Self.compare("step \(step) forward \(name)", b.value.pointer, count: summary.count, summary, relative: 1e-4)
            }
            for formula in fixture.parameters {
                guard let parameter = byName[formula.name], let gradient = expected.gradients[formula.name],
                      let after = expected.after_step[formula.name] else { problems.append("step \(step): no \(formula.name)"); continue }
                // The bias of the dense layer before the batch-statistics batchnorm has a gradient
                // of 0 up to rounding (float32 here, float64 in the twin): only its size is compared.
                let roundingOnly = formula.name == "dense_layer.bias"
                problems += Self.compare("step \(step) gradient of \(formula.name)", parameter.gradient.pointer, count: parameter.count, gradient,
                                         relative: 1e-3, absolute: roundingOnly ? 1e-5 : 1e-6)
                // After each Adam step a value moved by about 1e-3 against its gradients' signs; one
                // whose gradient is zero up to rounding on some step (the bias before the batchnorm)
                // moves either way, so only values with gradients on every step so far are compared.
                let rms = (gradient.squares / Double(max(gradient.count, 1))).squareRoot()
                for (j, i) in after.indices.enumerated() where abs(gradient.values[j]) > 1e-4 * rms + 1e-12 {
                    if let previous = previousGradients[formula.name] {
                        let previousRMS = (previous.squares / Double(max(previous.count, 1))).squareRoot()
                        if abs(previous.values[j]) <= 1e-4 * previousRMS + 1e-12 { continue }
                    }
                    if abs(Double(parameter.value.pointer[i]) - after.values[j]) > 2e-6 * Double(step) {
                        problems.append("\(formula.name)[\(i)] after step \(step): \(parameter.value.pointer[i]) (from \(initial[formula.name]![i])), the twin's \(after.values[j])")
                        break
                    }
                }
            }
            previousGradients = expected.gradients
            // Adam turns that rounding into a step of ±1e-3 on the rounding's sign, on either side:
            // the twin's values are taken over, so that the next step's batchnorm input, the moving
            // mean and the prediction compare what the implementations decide (in training the
            // batchnorm cancels the bias; its statistics and the prediction see it).
            if let bias = byName["dense_layer.bias"], bias.count == expected.dense_bias_after.count {
                for i in 0..<bias.count { bias.value.pointer[i] = Float(expected.dense_bias_after[i]) }
            } else {
                problems.append("step \(step): the twin's dense_layer.bias after the step has \(expected.dense_bias_after.count) values")
            }
        }
        #expect(losses.count == 2)
        problems += trainer.runningMean.withUnsafeBufferPointer {
            Self.compare("moving mean", $0.baseAddress!, count: $0.count, fixture.running_mean, relative: 1e-4)
        }
        problems += trainer.runningVariance.withUnsafeBufferPointer {
            Self.compare("moving variance", $0.baseAddress!, count: $0.count, fixture.running_variance, relative: 1e-4)
        }

        // Prediction after the steps: the trainer's chunk network (moving statistics, no dropout).
        let predictor = try ActivityChunkPredictor(specification: trainer.specification(.chunk(steps: ActivityTrainer.steps)),
                                                   classCount: classCount, predictionWindow: fixture.window, featureCount: fixture.features)
        let probabilities = predictor.probabilities(chunks, probabilitiesName: "activityProbability").flatMap { $0.flatMap { $0 } }
        #expect(probabilities.count == fixture.eval_probabilities.count)
        for (i, (ours, twin)) in zip(probabilities, fixture.eval_probabilities).enumerated() where abs(Double(ours) - twin) > 1e-4 * twin + 1e-6 {
            problems.append("eval probability [\(i)]: \(ours), the twin's \(twin)")
            break
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
