import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

struct MLModelTests {
    @Test(arguments: Fixtures.allNames)
    func descriptionsMatchTheFixtureFacts(_ name: String) throws {
        let model = try MLModel(contentsOf: Fixtures.url(name))
        let facts = Fixtures.facts(name)
        let description = model.modelDescription
        #expect(Set(description.inputDescriptionsByName.keys) == Set(facts.inputs.map(\.name)))
        #expect(Set(description.outputDescriptionsByName.keys) == Set(facts.outputs.map(\.name)))
        #expect(Set(description.trainingInputDescriptionsByName.keys) == Set(facts.trainingInputs.map(\.name)))
        #expect(description.isUpdatable == facts.isUpdatable)
        #expect((description.predictedFeatureName ?? "") == facts.predictedFeatureName)
        for expected in facts.inputs + facts.outputs {
            let feature = try #require(description.inputDescriptionsByName[expected.name] ?? description.outputDescriptionsByName[expected.name])
            #expect(feature.type.description.lowercased() + "type" == expected.type.lowercased(), "\(expected.name)")
            if let shape = expected.shape {
                #expect(feature.multiArrayConstraint?.shape.map(\.intValue) == shape)
            }
        }
        if let labels = facts.classLabels {
            #expect(description.classLabels as? [String] == labels)
        }
    }

    @Test func lenetParameters() throws {
        let model = try MLModel(contentsOf: Fixtures.url("lenet_updatable.mlmodel"))
        let parameters = model.modelDescription.parameterDescriptionsByKey
        #expect(Set(parameters.keys.map(\.name)) == ["learningRate", "miniBatchSize", "beta1", "beta2", "eps", "epochs", "shuffle", "seed"])
        #expect(parameters[.learningRate]?.defaultValue as? Double == 1e-4)
        #expect(parameters[.miniBatchSize]?.defaultValue as? Int == 128)
        #expect(parameters[.miniBatchSize]?.numericConstraint?.enumeratedNumbers?.map(\.intValue).sorted() == [32, 64, 128, 256])
        #expect(parameters[.epochs]?.defaultValue as? Int == 10)
        #expect(try model.parameterValue(for: .learningRate) as? Double == 1e-4)
        #expect(model.modelDescription.metadata[.author] as? String == "OpenCoreML test fixtures")
    }

    @Test func configurationOverridesAreChecked() throws {
        let url = Fixtures.url("lenet_updatable.mlmodel")
        let configuration = MLModelConfiguration()
        configuration.parameters = [.learningRate: 0.01, .epochs: 5.0, .shuffle: false]
        let model = try MLModel(contentsOf: url, configuration: configuration)
        #expect(try model.parameterValue(for: .learningRate) as? Double == 0.01)
        #expect(try model.parameterValue(for: .epochs) as? Int == 5)  // given as 5.0, read as the parameter's type
        #expect(try model.parameterValue(for: .shuffle) as? Bool == false)
        #expect(throws: MLModelError.self) { try model.parameterValue(for: .momentum) }

        for (key, value, expected) in [
            (MLParameterKey.learningRate, 3.0 as Any, "learningRate': 3 is not allowed; the model allows 0 ... 1"),
            (.miniBatchSize, 100, "miniBatchSize': 100 is not allowed; the model allows one of 32, 64, 128, 256"),
            (.numberOfNeighbors, 3, "'numberOfNeighbors' is not a parameter of this model"),
            (.epochs, Double.nan, "expected a whole number"),
        ] {
            configuration.parameters = [key: value]
            do {
                _ = try MLModel(contentsOf: url, configuration: configuration)
                Issue.record("\(key) = \(value) was accepted")
            } catch let error as MLModelError {
                #expect(error.code == .parameters)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
    }

    @Test func nearestNeighborsK() throws {
        let url = Fixtures.url("knn_kdtree_int64.mlmodel")
        let model = try MLModel(contentsOf: url)
        #expect(model.modelDescription.parameterDescriptionsByKey[.numberOfNeighbors]?.defaultValue as? Int == 5)
        #expect((model.modelDescription.classLabels as? [NSNumber])?.map(\.int64Value) == [10, 300, 5_000_000_000])
        let configuration = MLModelConfiguration()
        configuration.parameters = [.numberOfNeighbors: 4]
        #expect(throws: MLModelError.self) { try MLModel(contentsOf: url, configuration: configuration) }
        configuration.parameters = [.numberOfNeighbors: 7]
        #expect(try MLModel(contentsOf: url, configuration: configuration).parameterValue(for: .numberOfNeighbors) as? Int == 7)
    }

    @Test func compileAndWriteBack() throws {
        let source = Fixtures.url("pipeline_knn.mlmodel")
        let compiled = try MLModel.compileModel(at: source)
        defer { try? FileManager.default.removeItem(at: compiled.deletingLastPathComponent()) }
        #expect(compiled.lastPathComponent == "pipeline_knn.mlmodelc")
        let model = try MLModel(contentsOf: compiled)
        try withTemporaryDirectory { folder in
            let back = folder.appendingPathComponent("back.mlmodel")
            try model.write(to: back)
            #expect(try Data(contentsOf: back) == Data(contentsOf: source))
        }
    }

    @Test func loadingErrorsUseCoreMLCodes() throws {
        do {
            _ = try MLModel(contentsOf: URL(fileURLWithPath: "/nonexistent/Model.mlmodel"))
            Issue.record("loaded a missing file")
        } catch let error as MLModelError {
            #expect(error.code == .io)
            #expect(error.localizedDescription.contains("/nonexistent/Model.mlmodel"))
        }
        var invalid = try Fixtures.model("lenet_updatable.mlmodel")
        invalid.specificationVersion = 2
        #expect(throws: MLModelError.self) { try MLModel(specification: invalid) }
    }
}
