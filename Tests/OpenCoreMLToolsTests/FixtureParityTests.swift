import CoreMLSpec
import OpenCoreMLTools
import Testing
import _OpenCoreMLTestSupport

/// The DSL declares the models coremltools' builders made (`make_fixtures.py`) with the same
/// settings, and must write the same specification, field for field.
struct FixtureParityTests {
    /// Compares part by part, so a failure says where the two differ.
    func expectSame(_ built: CoreML_Specification_Model, _ fixture: CoreML_Specification_Model, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(built.specificationVersion == fixture.specificationVersion, sourceLocation: sourceLocation)
        #expect(built.isUpdatable == fixture.isUpdatable, sourceLocation: sourceLocation)
        #expect(built.description_p.input == fixture.description_p.input, sourceLocation: sourceLocation)
        #expect(built.description_p.output == fixture.description_p.output, sourceLocation: sourceLocation)
        #expect(built.description_p.trainingInput == fixture.description_p.trainingInput, sourceLocation: sourceLocation)
        #expect(built.description_p.metadata == fixture.description_p.metadata, sourceLocation: sourceLocation)
        #expect(built.description_p.predictedFeatureName == fixture.description_p.predictedFeatureName, sourceLocation: sourceLocation)
        #expect(built.description_p.predictedProbabilitiesName == fixture.description_p.predictedProbabilitiesName, sourceLocation: sourceLocation)
        if let a = built.neuralNetworkSpecification, let b = fixture.neuralNetworkSpecification {
            #expect(a.layers.count == b.layers.count, sourceLocation: sourceLocation)
            for (x, y) in zip(a.layers, b.layers) {
                #expect(x == y, "layer '\(x.name)' differs", sourceLocation: sourceLocation)
            }
            #expect(a.updateParams == b.updateParams, sourceLocation: sourceLocation)
        }
        #expect(built == fixture, sourceLocation: sourceLocation)
    }

    func metadata(_ fixture: CoreML_Specification_Model) -> (String, String, String, [String: String]) {
        let m = fixture.description_p.metadata
        return (m.shortDescription, m.author, m.license, m.userDefined)
    }

    @Test func lenetMatchesCoremltools() throws {
        let fixture = try Fixtures.model("lenet_updatable.mlmodel")
        let w = fixture.neuralNetwork.layers
        let (summary, author, license, userDefined) = metadata(fixture)
        let border = ConvolutionPaddingType.valid(borderAmounts: [EdgeSizes(startEdgeSize: 0, endEdgeSize: 0), EdgeSizes(startEdgeSize: 0, endEdgeSize: 0)])
        let pooling = PoolingPaddingType.valid(borderAmounts: [EdgeSizes(startEdgeSize: 0, endEdgeSize: 0), EdgeSizes(startEdgeSize: 0, endEdgeSize: 0)])
        let model = Model(version: 4, shortDescription: summary, author: author, license: license, userDefined: userDefined) {
            Input(name: "image", shape: [1, 28, 28])
            Output(name: "output", shape: [10])
            NeuralNetwork(losses: [CategoricalCrossEntropy(name: "lossLayer", input: "output", target: "output_true")],
                          optimizer: Adam(learningRateDefault: 1e-4, learningRateMax: 1, miniBatchSizeDefault: 128, miniBatchSizeRange: [32, 64, 128, 256],
                                          beta1Default: 0.9, beta1Max: 1, beta2Default: 0.999, beta2Max: 1, epsDefault: 1e-8, epsMax: 1),
                          epochDefault: 10, epochSet: [1, 5, 10, 20, 50], shuffle: true, seed: 42) {
                for (index, (name, input, channels, kernel)) in [("conv1", "image", UInt(1), UInt(3)), ("conv2", "pool1_out", 32, 2)].enumerated() {
                    let layer = w[index * 3].convolution
                    Convolution(name: name, input: [input], output: ["\(name)_out"], weight: layer.weights.floatValue, bias: layer.bias.floatValue,
                                outputChannels: 32, kernelChannels: channels, kernelSize: [kernel, kernel], paddingType: border, updatable: true)
                    ReLu(name: "relu\(index + 1)", input: ["\(name)_out"], output: ["relu\(index + 1)_out"])
                    Pooling(name: "pool\(index + 1)", input: ["relu\(index + 1)_out"], output: ["pool\(index + 1)_out"],
                            poolingType: .max, kernelSize: [2, 2], stride: [2, 2], paddingType: pooling)
                }
                Flatten(name: "flatten", input: ["pool2_out"], output: ["flatten_out"], mode: .first)
                InnerProduct(name: "dense1", input: ["flatten_out"], output: ["dense1_out"], weight: w[7].innerProduct.weights.floatValue,
                             bias: w[7].innerProduct.bias.floatValue, inputChannels: 1152, outputChannels: 500, updatable: true)
                ReLu(name: "relu3", input: ["dense1_out"], output: ["relu3_out"])
                InnerProduct(name: "dense2", input: ["relu3_out"], output: ["dense2_out"], weight: w[9].innerProduct.weights.floatValue,
                             bias: w[9].innerProduct.bias.floatValue, inputChannels: 500, outputChannels: 10, updatable: true)
                Softmax(name: "softmax", input: ["dense2_out"], output: ["output"])
            }
        }
        expectSame(try model.makeSpecification(), fixture)
    }

    @Test func classifierMatchesCoremltools() throws {
        let fixture = try Fixtures.model("classifier_sgd.mlmodel")
        let w = fixture.neuralNetworkClassifier.layers
        let (summary, author, license, userDefined) = metadata(fixture)
        let model = Model(version: 4, shortDescription: summary, author: author, license: license, userDefined: userDefined) {
            Input(name: "features", shape: [4])
            ClassLabels(["setosa", "versicolor", "virginica"], predictedFeatureName: "classLabel")
            NeuralNetwork(losses: [CategoricalCrossEntropy(name: "lossLayer", input: "classProbability", target: "classProbability_true")],
                          optimizer: SGD(learningRateDefault: 0.01, learningRateMax: 1, miniBatchSizeDefault: 8, miniBatchSizeRange: [4, 8, 16],
                                         momentumDefault: 0.9, momentumMax: 1),
                          epochDefault: 20, epochSet: [10, 20, 40], shuffle: true) {
                InnerProduct(name: "dense1", input: ["features"], output: ["dense1_out"], weight: w[0].innerProduct.weights.floatValue,
                             bias: w[0].innerProduct.bias.floatValue, inputChannels: 4, outputChannels: 8, updatable: true)
                ReLu(name: "relu1", input: ["dense1_out"], output: ["relu1_out"])
                InnerProduct(name: "dense2", input: ["relu1_out"], output: ["dense2_out"], weight: w[2].innerProduct.weights.floatValue,
                             bias: w[2].innerProduct.bias.floatValue, inputChannels: 8, outputChannels: 3, updatable: true)
                Softmax(name: "softmax", input: ["dense2_out"], output: ["classProbability"])
            }
        }
        let built = try model.makeSpecification()
        expectSame(built, fixture)
        #expect(built.neuralNetworkClassifier.labelProbabilityLayerName == fixture.neuralNetworkClassifier.labelProbabilityLayerName)
    }

    /// The fixture's samples and labels, as the DSL takes them.
    func samples(_ fixture: CoreML_Specification_Model) -> ([[Float]], [ClassLabel]) {
        let knn = fixture.kNearestNeighborsClassifier
        let samples = knn.nearestNeighborsIndex.floatSamples.map(\.vector)
        let labels: [ClassLabel] = knn.int64ClassLabels.vector.isEmpty
            ? knn.stringClassLabels.vector.map(ClassLabel.string) : knn.int64ClassLabels.vector.map(ClassLabel.int64)
        return (samples, labels)
    }

    func knnModel(_ fixture: CoreML_Specification_Model, dimensions: UInt, _ knn: KNearestNeighborsClassifier) -> Model {
        let (summary, author, license, userDefined) = metadata(fixture)
        return Model(version: 4, shortDescription: summary, author: author, license: license, userDefined: userDefined) {
            Input(name: "features", shape: [dimensions])
            knn
        }
    }

    @Test func nearestNeighborsMatchCoremltools() throws {
        let linear = try Fixtures.model("knn_linear_string.mlmodel")
        var (points, labels) = samples(linear)
        #expect(points.count == 12)
        expectSame(try knnModel(linear, dimensions: 4, KNearestNeighborsClassifier(
            numberOfNeighbors: 3, allowedNeighbors: .range(1...10), index: .linear, weighting: .uniform,
            samples: points, labels: labels, defaultLabel: "unknown")).makeSpecification(), linear)

        let kdTree = try Fixtures.model("knn_kdtree_int64.mlmodel")
        (points, labels) = samples(kdTree)
        #expect(points.count == 21 && labels.contains(5_000_000_000))
        expectSame(try knnModel(kdTree, dimensions: 3, KNearestNeighborsClassifier(
            numberOfNeighbors: 5, allowedNeighbors: .set([1, 3, 5, 7]), index: .kdTree(leafSize: 8), weighting: .inverseDistance,
            samples: points, labels: labels, defaultLabel: -1)).makeSpecification(), kdTree)

        let emptyStrings = try Fixtures.model("knn_empty_string.mlmodel")
        expectSame(try knnModel(emptyStrings, dimensions: 8, KNearestNeighborsClassifier(
            numberOfNeighbors: 3, weighting: .inverseDistance, defaultLabel: "unknown")).makeSpecification(), emptyStrings)

        let emptyIntegers = try Fixtures.model("knn_empty_int64.mlmodel")
        expectSame(try knnModel(emptyIntegers, dimensions: 8, KNearestNeighborsClassifier(
            numberOfNeighbors: 1, index: .kdTree(), defaultLabel: -1)).makeSpecification(), emptyIntegers)
    }

    @Test func pipelineMatchesCoremltools() throws {
        let fixture = try Fixtures.model("pipeline_knn.mlmodel")
        let extractor = fixture.pipelineClassifier.pipeline.models[0]
        let (summary, author, license, userDefined) = metadata(fixture)
        let model = Model(version: 4, shortDescription: summary, author: author, license: license, userDefined: userDefined) {
            Pipeline {
                extractor
                Model {
                    Input(name: "features", shape: [16])
                    KNearestNeighborsClassifier(numberOfNeighbors: 3, weighting: .inverseDistance, defaultLabel: "unknown")
                }
            }
        }
        let built = try model.makeSpecification()
        expectSame(built, fixture)
        #expect(built.pipelineClassifier.pipeline.models[1] == fixture.pipelineClassifier.pipeline.models[1])
        try Support.export(built, as: "dsl_pipeline_knn")
    }
}
