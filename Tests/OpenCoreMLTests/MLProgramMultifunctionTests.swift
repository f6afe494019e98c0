import Foundation
import OpenCoreML
import Testing

/// A multifunction ML Program (iOS 18) made by coremltools' `save_multifunction` from two PyTorch
/// models sharing a weight (make_multifunction_mlprograms.py): `MLModelConfiguration.functionName`
/// picks the function, whose description and predictions are its own, checked against PyTorch's
/// outputs (multifunction_facts.json) within 1e-4.
@Suite("Multifunction ML Programs")
struct MLProgramMultifunctionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")
    static let package = folder.appendingPathComponent("TorchMultifunction.mlpackage")

    static func facts() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("multifunction_facts.json"))) as? [String: Any])
    }

    static func load(_ function: String?) throws -> MLModel {
        let configuration = MLModelConfiguration()
        configuration.functionName = function
        return try MLModel(contentsOf: package, configuration: configuration)
    }

    /// Predicts with `model` on the facts' input and compares every output of `function`.
    static func check(_ model: MLModel, _ function: String) throws {
        let facts = try facts()
        let input = try #require(facts["input"] as? [String: Any])
        let x = try MLMultiArray(shape: [1, 6], dataType: .float32)
        for (index, value) in try #require(input["values"] as? [Double]).enumerated() { x[index] = NSNumber(value: value) }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        let expected = try #require((facts["functions"] as? [String: Any])?[function] as? [String: Any])
        #expect(Set(model.modelDescription.outputDescriptionsByName.keys) == Set(expected.keys))
        for (name, json) in expected {
            let reference = try #require((json as? [String: Any])?["values"] as? [Double])
            let values = try #require(output.featureValue(for: name)?.multiArrayValue, "\(function): output '\(name)'").floatValues()
            #expect(values.count == reference.count)
            let worst = zip(values, reference).map { abs(Double($0) - $1) }.max() ?? .infinity
            #expect(worst <= 1e-4, "\(function): '\(name)' differs from PyTorch's by \(worst)")
        }
    }

    @Test func theDefaultFunctionRunsUnlessAnotherIsNamed() throws {
        let base = try Self.load(nil)
        #expect(base.modelDescription.outputDescriptions.map(\.name) == ["y"])
        #expect(base.modelDescription.inputDescriptions.map(\.name) == ["x"])
        try Self.check(base, "base")
        try Self.check(Self.load("base"), "base")
        let adapter = try Self.load("adapter")
        #expect(adapter.modelDescription.outputDescriptions.map(\.name) == ["y", "scale"])
        try Self.check(adapter, "adapter")
    }

    @Test func anUnknownFunctionIsAnErrorNamingTheFunctions() throws {
        do {
            _ = try Self.load("decoder")
            Issue.record("an unknown function loaded")
        } catch let error as MLModelError {
            #expect(error.message.contains("'decoder'") && error.message.contains("'base'") && error.message.contains("'adapter'"), "\(error.message)")
        }
        // A model of one function takes its name, `main`, and no other.
        let configuration = MLModelConfiguration()
        configuration.functionName = "main"
        _ = try MLModel(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"), configuration: configuration)
        configuration.functionName = "base"
        #expect(throws: MLModelError.self) { try MLModel(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"), configuration: configuration) }
    }

    @Test func theConfigurationKeepsTheFunctionName() throws {
        let configuration = MLModelConfiguration()
        configuration.functionName = "adapter"
        let model = try MLModel(contentsOf: Self.package, configuration: configuration)
        configuration.functionName = "base"
        #expect(model.configuration.functionName == "adapter")
        #expect(configuration.copy().functionName == "base")
    }
}
