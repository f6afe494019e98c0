import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// Stateful ML Programs (iOS 18 states): a one-layer decoder converted from PyTorch whose key and
/// value caches are registered buffers updated in place (make_stateful_mlprograms.py), run token
/// by token with an `MLState` against PyTorch's logits at every step (stateful_facts.json).
///
/// Tolerances: coremltools makes states float16, so even the float32 program keeps its caches in
/// float16 (PyTorch's stay float32): within 2e-3 of the step's largest logit for it, 2e-2 for the
/// float16 program (float16 weights and activations too).
@Suite("Stateful ML Programs")
struct MLProgramStateTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")
    static let packages = [("TorchKVCache.mlpackage", 2e-3), ("TorchKVCache16.mlpackage", 2e-2)]

    struct Step {
        var token: Int
        var mask: [Double]
        var logits: [Double]
    }

    static func facts(_ package: String) throws -> (steps: [Step], finalKeys: [Double], length: Int, width: Int) {
        let all = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("stateful_facts.json"))) as? [String: Any])
        let facts = try #require(all[package] as? [String: Any])
        let steps = try #require(facts["steps"] as? [[String: Any]]).map { step in
            Step(token: try #require(step["token"] as? Int), mask: try #require(step["mask"] as? [Double]),
                 logits: try #require(step["logits"] as? [Double]))
        }
        return (steps, try #require(facts["final_k_cache"] as? [Double]), try #require(facts["length"] as? Int), try #require(facts["width"] as? Int))
    }

    static func input(_ step: Step) throws -> MLDictionaryFeatureProvider {
        let ids = try MLMultiArray(shape: [1, 1], dataType: .int32)
        ids[0] = NSNumber(value: step.token)
        let mask = try MLMultiArray(shape: [1, 1, NSNumber(value: step.mask.count)], dataType: .float32)
        for (index, value) in step.mask.enumerated() { mask[index] = NSNumber(value: value) }
        return try MLDictionaryFeatureProvider(dictionary: ["ids": ids, "mask": mask])
    }

    /// The largest difference between the prediction's logits and PyTorch's, and the tolerance.
    static func check(_ output: MLFeatureProvider, _ step: Step, tolerance: Double, _ label: String) throws {
        let logits = try #require(output.featureValue(for: "logits")?.multiArrayValue)
        #expect(logits.shape.map(\.intValue) == [1, 1, step.logits.count])
        let scale = max(step.logits.map(abs).max() ?? 0, 1)
        let worst = zip(logits.floatValues(), step.logits).map { abs(Double($0) - $1) }.max() ?? .infinity
        #expect(worst <= tolerance * scale, "\(label): logits differ from PyTorch's by \(worst) (tolerance \(tolerance * scale))")
    }

    @Test(arguments: packages)
    func predictsTokenByTokenAsPyTorchDoes(package: String, tolerance: Double) throws {
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        let (steps, finalKeys, length, width) = try Self.facts(package)
        let state = model.makeState()
        for (index, step) in steps.enumerated() {
            try Self.check(model.prediction(from: Self.input(step), using: state), step, tolerance: tolerance, "\(package) step \(index)")
        }
        // The state's buffer holds the cache PyTorch's buffer holds after the last token.
        state.withMultiArray(for: "k_cache") { cache in
            #expect(cache.shape.map(\.intValue) == [1, length, width])
            #expect(cache.dataType == .float16)
            let worst = zip(cache.floatValues(), finalKeys).map { abs(Double($0) - $1) }.max() ?? .infinity
            #expect(worst <= 1e-2 * max(finalKeys.map(abs).max() ?? 0, 1), "k_cache differs from PyTorch's by \(worst)")
        }
    }

    @Test func aNewStateStartsOverAndStatesAreIndependent() throws {
        let package = "TorchKVCache.mlpackage"
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        let (steps, _, _, _) = try Self.facts(package)
        let first = model.makeState(), second = model.makeState()
        // Three tokens into the first state, then the second starts from the beginning, interleaved with the first.
        for index in 0..<3 { try Self.check(model.prediction(from: Self.input(steps[index]), using: first), steps[index], tolerance: 2e-3, "first \(index)") }
        for index in 0..<3 {
            try Self.check(model.prediction(from: Self.input(steps[index]), using: second), steps[index], tolerance: 2e-3, "second \(index)")
            try Self.check(model.prediction(from: Self.input(steps[index + 3]), using: first), steps[index + 3], tolerance: 2e-3, "first \(index + 3)")
        }
        // A state set back to zero through its buffers starts over too.
        for name in model.modelDescription.stateDescriptionsByName.keys {
            first.withMultiArray(for: name) { buffer in for index in 0..<buffer.count { buffer[index] = 0 } }
        }
        try Self.check(model.prediction(from: Self.input(steps[0]), using: first), steps[0], tolerance: 2e-3, "reset")
        try Self.check(model.prediction(from: Self.input(steps[1]), using: first), steps[1], tolerance: 2e-3, "after reset")
    }

    @Test func asyncPredictionsUpdateTheState() async throws {
        let package = "TorchKVCache16.mlpackage"
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(package))
        let (steps, _, _, _) = try Self.facts(package)
        let state = model.makeState()
        for (index, step) in steps.prefix(4).enumerated() {
            let output = try await model.prediction(from: Self.input(step), using: state, options: MLPredictionOptions())
            try Self.check(output, step, tolerance: 2e-2, "async step \(index)")
        }
    }

    @Test func theDescriptionListsTheStatesApartFromTheInputs() throws {
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent("TorchKVCache.mlpackage"))
        let description = model.modelDescription
        #expect(Set(description.inputDescriptionsByName.keys) == ["ids", "mask"])
        #expect(description.stateDescriptions.map(\.name) == ["k_cache", "v_cache"])
        let cache = try #require(description.stateDescriptionsByName["v_cache"])
        #expect(cache.type == .state)
        #expect(cache.stateConstraint?.bufferShape.map(\.intValue) == [1, 8, 32])
        #expect(cache.stateConstraint?.dataType == .float16)
        #expect(model.makeState().stateNames == ["k_cache", "v_cache"])
    }

    @Test func aStatefulModelRefusesAPredictionWithoutAStateOrWithAnotherModelsState() throws {
        let url = Self.folder.appendingPathComponent("TorchKVCache.mlpackage")
        let model = try MLModel(contentsOf: url), other = try MLModel(contentsOf: url)
        let (steps, _, _, _) = try Self.facts("TorchKVCache.mlpackage")
        let input = try Self.input(steps[0])
        do {
            _ = try model.prediction(from: input)
            Issue.record("a stateful model predicted without a state")
        } catch let error as MLModelError {
            #expect(error.message.contains("'k_cache'") && error.message.contains("'v_cache'"), "\(error.message)")
        }
        #expect(throws: MLModelError.self) { try model.predictions(fromBatch: MLArrayBatchProvider(array: [input])) }
        #expect(throws: MLModelError.self) { try model.prediction(from: input, using: other.makeState()) }
        // A stateless model's state is empty, and predicting with it is predicting.
        let dense = try MLModel(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
        #expect(dense.makeState().stateNames.isEmpty)
    }

    /// A state's size counts against the memory limit when the program compiles (before any state
    /// buffer is made): the decoder with its caches' first dimension declared 2²² long (GiBs of
    /// floats each) is refused under a 64 MiB limit, naming a state, where the same model as
    /// converted predicts under it.
    @Test func aStateLargerThanTheMemoryLimitRefusesTheModelAtLoad() throws {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = 64 << 20
        var specification = try MLModel(contentsOf: Self.folder.appendingPathComponent("TorchKVCache.mlpackage")).specification
        let (steps, _, _, _) = try Self.facts("TorchKVCache.mlpackage")
        let original = try MLModel(specification: specification, configuration: configuration)
        _ = try original.prediction(from: try Self.input(steps[0]), using: original.makeState())
        for index in specification.description_p.state.indices {
            specification.description_p.state[index].type.stateType.arrayType.shape[0] = 1 << 22
        }
        for name in specification.mlProgram.functions.keys {
            for index in specification.mlProgram.functions[name]!.inputs.indices {
                guard case .stateType? = specification.mlProgram.functions[name]!.inputs[index].type.type else { continue }
                specification.mlProgram.functions[name]!.inputs[index].type.stateType.wrappedType.tensorType.dimensions[0].constant.size = 1 << 22
            }
        }
        let model = try MLModel(specification: specification, configuration: configuration)
        do {
            _ = try model.prediction(from: try Self.input(steps[0]), using: model.makeState())
            Issue.record("a model whose states pass the memory limit predicted")
        } catch let error as MLModelError {
            #expect(error.message.contains("state '"), "\(error.message)")
        }
    }
}
