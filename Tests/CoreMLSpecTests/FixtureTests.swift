import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Every coremltools-built fixture loads, validates, and matches what coremltools recorded about it.
struct FixtureTests {
    @Test(arguments: Fixtures.allNames)
    func loadsValidatesAndMatchesFacts(_ name: String) throws {
        let model = try Fixtures.model(name)
        let facts = Fixtures.facts(name)
        #expect(model.validationIssues() == [])
        #expect(model.modelTypeName == facts.modelType)
        #expect(Int(model.specificationVersion) == facts.specificationVersion)
        #expect(model.isUpdatable == facts.isUpdatable)
        #expect(model.description_p.input.map(\.name) == facts.inputs.map(\.name))
        #expect(model.description_p.output.map(\.name) == facts.outputs.map(\.name))
        #expect(model.description_p.trainingInput.map(\.name) == facts.trainingInputs.map(\.name))
        #expect(model.description_p.predictedFeatureName == facts.predictedFeatureName)
        for (feature, expected) in zip(model.description_p.input, facts.inputs) {
            if let shape = expected.shape {
                #expect(feature.type.multiArrayType.shape.map(Int.init) == shape)
            }
        }
    }

    @Test func lenetHasElevenLayersAnd585958Parameters() throws {
        let model = try Fixtures.model("lenet_updatable.mlmodel")
        let network = try #require(model.neuralNetworkSpecification)
        let facts = try #require(Fixtures.facts("lenet_updatable.mlmodel").neuralNetwork)
        #expect(network.layers.count == 11)
        #expect(network.parameterCount == 585_958)
        #expect(network.layers.count == facts.layerCount)
        #expect(network.parameterCount == facts.parameterCount)
        #expect(network.layers.filter(\.isUpdatable).map(\.name) == facts.updatableLayers)
    }

    @Test(arguments: Fixtures.facts.filter { $0.neuralNetwork != nil }.map(\.file))
    func layersMatchCoremltools(_ name: String) throws {
        let network = try #require(try Fixtures.model(name).neuralNetworkSpecification)
        let facts = try #require(Fixtures.facts(name).neuralNetwork)
        #expect(network.layers.count == facts.layers.count)
        for (layer, expected) in zip(network.layers, facts.layers) {
            #expect(layer.name == expected.name)
            #expect(layer.layerTypeName == expected.type, "layer \(layer.name)")
            #expect(layer.input == expected.inputs)
            #expect(layer.output == expected.outputs)
            #expect(layer.isUpdatable == expected.isUpdatable)
            #expect(layer.parameterCount == expected.parameterCount, "layer \(layer.name)")
        }
    }

    @Test(arguments: Fixtures.facts.filter { $0.kNearestNeighbors != nil }.map(\.file))
    func nearestNeighborsMatchCoremltools(_ name: String) throws {
        let model = try Fixtures.model(name)
        let knn = model.kNearestNeighborsClassifier
        let facts = try #require(Fixtures.facts(name).kNearestNeighbors)
        #expect(Int(knn.nearestNeighborsIndex.numberOfDimensions) == facts.numberOfDimensions)
        #expect(knn.nearestNeighborsIndex.floatSamples.count == facts.sampleCount)
        #expect(knn.classLabelSet.count == facts.labelCount)
        #expect(Int(knn.numberOfNeighbors.defaultValue) == facts.kDefault)
    }

    @Test func pipelineSubModels() throws {
        let model = try Fixtures.model("pipeline_knn.mlmodel")
        let models = model.pipelineClassifier.pipeline.models
        #expect(models.map(\.modelTypeName) == Fixtures.facts("pipeline_knn.mlmodel").subModelTypes)
        #expect(models.last?.isUpdatable == true)
        #expect(models.first?.isUpdatable == false)
    }

    /// The fixture's lrn and mvn layers (once unknown fields) decode with the values
    /// Tests/Fixtures/make_fixtures.py gave coremltools; they predict (as an ML Program).
    @Test func lrnAndMvnLayersDecode() throws {
        let network = try #require(try Fixtures.model("unmodeled_layer.mlmodel").neuralNetworkSpecification)
        #expect(network.layers.map(\.layerTypeName) == ["lrn", "activation", "mvn"])
        #expect(network.layers.map(\.isModeledLayerType) == [true, true, true])
        #expect(network.layers.map(\.isSupportedLayerType) == [true, true, true])
        #expect(network.layers.allSatisfy { $0.unknownFields.data.isEmpty })
        let lrn = try #require(network.layers.first).lrn
        #expect(lrn.alpha == 1e-4 && lrn.beta == 0.75 && lrn.localSize == 3 && lrn.k == 2)
        let mvn = try #require(network.layers.last).mvn
        #expect(!mvn.acrossChannels && mvn.normalizeVariance && mvn.epsilon == 1e-5)
    }
}
