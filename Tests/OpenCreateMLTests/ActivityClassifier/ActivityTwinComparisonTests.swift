import Foundation
@testable import OpenCreateML
import Testing
import _OpenCoreMLEngine

/// One training step of the activity classifier against its PyTorch twin (Scripts/activity_twin.py,
/// Turi Create's network and training), layer by layer, on the same weights and batch: both sides
/// compute the weights (`offset + limit · sin(0.7 i + 1.3 p + 0.5)` for value i of the p-th
/// parameter, Core ML's layout) and two sessions of samples from formulas; the fixture holds the
/// twin's results in float64 (each tensor's sum, sum of squares and 24 values): the chunks' weights
/// and labels, every layer's output, the loss, every parameter's gradient and its value after one
/// Adam step, and the batchnorm's moving statistics. Dropout is off on both sides.
@Suite("Activity classifier: one training step against the PyTorch twin of Turi Create's")
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
    struct Fixture: Decodable {
        let window: Int
        let features: Int
        let classes: [String]
        let sessions: [Int]
        let weights: [Float]
        let labels: [Int]
        let loss: Double
        let forward: [String: Summary]
        let gradients: [String: Summary]
        let after_step: [String: Summary]
        let running_mean: Summary
        let running_variance: Summary
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

    @Test func oneStepMatchesTheTwinLayerByLayer() throws {
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

        let (loss, _) = try trainer.epoch(chunks, order: Array(chunks.indices), batchSize: chunks.count)
        var problems: [String] = []
        if abs(loss - fixture.loss) > 1e-4 * abs(fixture.loss) { problems.append("loss \(loss), the twin's \(fixture.loss)") }
        for (blob, expected) in fixture.forward.sorted(by: { $0.key < $1.key }) {
            let name = blob == "probabilities" ? "activityProbability" : blob
            let b = try #require(trainer.network.blobs[name], "no blob \(name)")
            problems += Self.compare("forward \(name)", b.value.pointer, count: expected.count, expected, relative: 1e-4)
        }
        for formula in fixture.parameters {
            let parameter = try #require(byName[formula.name])
            let gradient = try #require(fixture.gradients[formula.name])
            problems += Self.compare("gradient of \(formula.name)", parameter.gradient.pointer, count: parameter.count, gradient,
                                     relative: 1e-3, absolute: 1e-6)
            // After one Adam step each value moved by about 1e-3 against its gradient's sign; a
            // gradient that is zero up to rounding (the bias before the batchnorm) moves either way.
            let after = try #require(fixture.after_step[formula.name])
            let rms = (gradient.squares / Double(max(gradient.count, 1))).squareRoot()
            for (j, i) in after.indices.enumerated() where abs(gradient.values[j]) > 1e-4 * rms + 1e-12 {
                if abs(Double(parameter.value.pointer[i]) - after.values[j]) > 2e-6 {
                    problems.append("\(formula.name)[\(i)] after one step: \(parameter.value.pointer[i]) (from \(initial[formula.name]![i])), the twin's \(after.values[j])")
                    break
                }
            }
        }
        problems += trainer.runningMean.withUnsafeBufferPointer {
            Self.compare("moving mean", $0.baseAddress!, count: $0.count, fixture.running_mean, relative: 1e-4)
        }
        problems += trainer.runningVariance.withUnsafeBufferPointer {
            Self.compare("moving variance", $0.baseAddress!, count: $0.count, fixture.running_variance, relative: 1e-4)
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }
}
