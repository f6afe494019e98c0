import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCoreMLTools
import Testing
import _OpenCoreMLTestSupport

/// Model surgery on the coremltools-built fixtures.
struct SurgeryTests {
    static func randomImage(seed: UInt64) -> [Float] {
        var random = TestRandom(seed: seed)
        return random.floats(784, 0, 1)
    }

    @Test func makingLeNetUpdatableAgainGivesCoremltoolsModel() throws {
        let fixture = try Fixtures.model("lenet_updatable.mlmodel")
        var model = fixture
        try model.removeUpdatability()
        #expect(!model.isUpdatable && model.description_p.trainingInput.isEmpty && !model.neuralNetwork.hasUpdateParams)
        #expect(model.neuralNetwork.layers.allSatisfy { !$0.isUpdatable })

        try model.makeUpdatable(layers: ["conv1", "conv2", "dense1", "dense2"])
        try model.setLoss(.crossEntropy)
        try model.setOptimizer(Adam(learningRateDefault: 1e-4, miniBatchSizeDefault: 128, miniBatchSizeRange: [32, 64, 128, 256]))
        try model.setEpochs(10, allowed: [1, 5, 10, 20, 50])
        try model.setShuffle(true, seed: 42)
        #expect(model == fixture)
    }

    @Test func makingTheClassifierUpdatableAgainGivesCoremltoolsModel() throws {
        let fixture = try Fixtures.model("classifier_sgd.mlmodel")
        var model = fixture
        try model.removeUpdatability()
        try model.makeUpdatable(layers: ["dense1", "dense2"])
        try model.setLoss(.crossEntropy)
        try model.setOptimizer(SGD(learningRateDefault: 0.01, miniBatchSizeDefault: 8, miniBatchSizeRange: [4, 8, 16], momentumDefault: 0.9))
        try model.setEpochs(20, allowed: [10, 20, 40])
        try model.setShuffle(true)
        #expect(model.description_p.trainingInput == fixture.description_p.trainingInput)
        #expect(model == fixture)
    }

    @Test func leNetFeatureExtractorGivesTheInnerBlob() throws {
        let original = try Fixtures.model("lenet_updatable.mlmodel")
        let extractor = try original.featureExtractor(outputBlob: "relu3_out", outputName: "embedding")
        try Support.export(extractor, as: "surgery_lenet_features")
        #expect(extractor.neuralNetwork.layers.map(\.name) == ["conv1", "relu1", "pool1", "conv2", "relu2", "pool2", "flatten", "dense1", "relu3"])
        #expect(extractor.description_p.output.map(\.name) == ["embedding"])
        #expect(extractor.description_p.output[0].type.multiArrayType.shape == [500])
        #expect(!extractor.isUpdatable && extractor.description_p.trainingInput.isEmpty)
        #expect(extractor.description_p.metadata.shortDescription == "Features 'relu3_out' of: " + original.description_p.metadata.shortDescription)
        #expect(extractor.description_p.metadata.author == original.description_p.metadata.author)
        #expect(extractor.neuralNetwork.layers.allSatisfy { layer in
            !layer.isUpdatable && layer.weightBlobs.allSatisfy { !layer[keyPath: $0.path].isUpdatable }
        })

        // The original's probabilities are softmax(dense2(features)), with dense2 read from the fixture.
        let full = try MLModel(specification: original)
        let stripped = try MLModel(specification: extractor)
        let dense2 = original.neuralNetwork.layers[9].innerProduct
        for seed in 1...3 as ClosedRange<UInt64> {
            let input = ["image": Support.array(Self.randomImage(seed: seed), shape: [1, 28, 28])]
            let features = try Support.output(of: stripped, input, "embedding")
            #expect(features.count == 500)
            let expected = Support.softmax(Support.dense(dense2, features))
            let actual = try Support.output(of: full, input, "output")
            #expect(zip(expected, actual).allSatisfy { abs($0 - $1) < 1e-5 }, "\(expected) vs \(actual)")
        }
    }

    @Test func strippingTheClassifierGivesAPlainNetwork() throws {
        let classifier = try Fixtures.model("classifier_sgd.mlmodel")
        let extractor = try classifier.featureExtractor(outputBlob: "relu1_out")
        #expect(extractor.modelTypeName == "neuralNetwork")
        #expect(extractor.description_p.output[0].type.multiArrayType.shape == [8])
        #expect(extractor.description_p.predictedFeatureName.isEmpty)
        let labels = ["setosa", "versicolor", "virginica"]
        let dense2 = classifier.neuralNetworkClassifier.layers[2].innerProduct
        let full = try MLModel(specification: classifier)
        let stripped = try MLModel(specification: extractor)
        let input = ["features": Support.array([0.5, -1.2, 2, 0.3], shape: [4])]
        let expected = Support.softmax(Support.dense(dense2, try Support.output(of: stripped, input, "relu1_out")))
        let actual = try Support.output(of: full, input, "classProbability", labels: labels)
        #expect(zip(expected, actual).allSatisfy { abs($0 - $1) < 1e-5 }, "\(expected) vs \(actual)")
    }

    @Test func widenedClassifierKeepsOldLogitsAndLearnsNewClasses() throws {
        let original = try Fixtures.model("classifier_sgd.mlmodel")
        var widened = original
        try widened.addClasses(["setosa-2", "iris-x"])
        try widened.validate()
        try Support.export(widened, as: "surgery_widened_classifier")
        #expect(widened.neuralNetworkClassifier.stringClassLabels.vector == ["setosa", "versicolor", "virginica", "setosa-2", "iris-x"])
        let dense2 = widened.neuralNetworkClassifier.layers[2].innerProduct
        #expect(dense2.outputChannels == 5 && dense2.weights.floatValue.count == 40 && dense2.bias.floatValue.count == 5)

        // Logits (the dense2 blob) of the old classes are unchanged; the new ones start at zero.
        let before = try MLModel(specification: original.featureExtractor(outputBlob: "dense2_out"))
        let after = try MLModel(specification: widened.featureExtractor(outputBlob: "dense2_out"))
        var random = TestRandom(seed: 11)
        for _ in 0..<5 {
            let input = ["features": Support.array(random.floats(4, -2, 2), shape: [4])]
            let old = try Support.output(of: before, input, "dense2_out")
            let new = try Support.output(of: after, input, "dense2_out")
            #expect(new.count == 5 && Array(new.prefix(3)) == old && Array(new.suffix(2)) == [0, 0])
        }

        // Trained on examples of a new class, the widened model learns to predict it.
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("widened.mlmodel")
            try widened.write(to: url)
            let centers: [(String, [Float])] = [("setosa", [1.5, -1, 0.5, 0]), ("versicolor", [-1.5, 1, 0, 0.5]), ("virginica", [0, 0, -1.5, -1.5]),
                                                ("iris-x", [3, 3, 3, 3])]
            var examples: [MLFeatureProvider] = []
            for index in 0..<96 {
                let (label, center) = centers[index % 4]
                examples.append(MLDictionaryFeatureProvider(featureValues: [
                    "features": Support.array(center.map { $0 + random.float(-0.3, 0.3) }, shape: [4]), "classLabel": MLFeatureValue(string: label),
                ]))
            }
            let (trained, losses) = try Support.train(url, on: examples, parameters: [.epochs: 20, .learningRate: 0.05])
            #expect(losses.last! < losses.first!, "\(losses)")
            let result = try trained.prediction(from: MLDictionaryFeatureProvider(featureValues: ["features": Support.array([3.1, 2.9, 3, 3.2], shape: [4])]))
            #expect(result.featureValue(for: "classLabel")?.stringValue == "iris-x")
        }
    }

    @Test func widenedLeNetOutputGrowsAndKeepsOldLogits() throws {
        let original = try Fixtures.model("lenet_updatable.mlmodel")
        var widened = original
        try widened.addOutputClasses(2)
        try widened.validate()
        #expect(widened.description_p.output[0].type.multiArrayType.shape == [12])
        #expect(widened.neuralNetwork.layers[9].parameterCount == 500 * 12 + 12)
        let before = try MLModel(specification: original.featureExtractor(outputBlob: "dense2_out"))
        let after = try MLModel(specification: widened.featureExtractor(outputBlob: "dense2_out"))
        let input = ["image": Support.array(Self.randomImage(seed: 4), shape: [1, 28, 28])]
        let old = try Support.output(of: before, input, "dense2_out")
        let new = try Support.output(of: after, input, "dense2_out")
        // The same logits up to float rounding (other suites switch the kernels' instruction set and
        // thread count in this process), and zeros for the new classes.
        #expect(zip(new.prefix(10), old).allSatisfy { abs($0 - $1) <= 1e-5 * max(1, abs($1)) } && old.count == 10)
        #expect(Array(new.suffix(2)) == [0, 0])
    }

    @Test func frozenExtractorMadeUpdatableTrainsOnlyItsLastLayer() throws {
        let pipeline = try Fixtures.model("pipeline_knn.mlmodel")
        var extractor = pipeline.pipelineClassifier.pipeline.models[0]
        #expect(!extractor.isUpdatable)
        try extractor.makeUpdatable(layers: ["embed"])
        try extractor.setLoss(.meanSquaredError)
        try extractor.setOptimizer(SGD(learningRateDefault: 0.01, miniBatchSizeDefault: 8))
        try extractor.setEpochs(8)
        try extractor.validate()
        try Support.export(extractor, as: "surgery_updatable_extractor")
        #expect(extractor.specificationVersion == 4)
        #expect(extractor.description_p.trainingInput.map(\.name) == ["image", "features_true"])
        #expect(extractor.description_p.trainingInput[1].type.multiArrayType.shape == [16])
        #expect(extractor.neuralNetwork.updateParams.lossLayers[0].meanSquaredErrorLossLayer.input == "features")

        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("extractor.mlmodel")
            try extractor.write(to: url)
            var examples: [MLFeatureProvider] = []
            for index in 0..<32 {
                let target = [Float](repeating: 0.5, count: 16)
                examples.append(MLDictionaryFeatureProvider(featureValues: [
                    "image": Support.array(Self.randomImage(seed: UInt64(100 + index)), shape: [1, 28, 28]),
                    "features_true": Support.array(target, shape: [16]),
                ]))
            }
            let (trained, losses) = try Support.train(url, on: examples, parameters: [.learningRate: 0.1])
            #expect(losses.count == 8 && losses.last! < losses.first! * 0.9, "\(losses)")
            let after = try #require(trained.specification)
            #expect(after.neuralNetwork.layers[0] == extractor.neuralNetwork.layers[0])
            #expect(after.neuralNetwork.layers[4].innerProduct.weights != extractor.neuralNetwork.layers[4].innerProduct.weights)
        }
    }

    @Test func pipelineOfStrippedLeNetAndNearestNeighbors() throws {
        let extractor = try Fixtures.model("lenet_updatable.mlmodel").featureExtractor(outputBlob: "relu3_out", outputName: "features")
        let knn = try Model {
            Input(name: "features", shape: [500])
            KNearestNeighborsClassifier(numberOfNeighbors: 3, index: .kdTree(leafSize: 20), weighting: .inverseDistance, labelType: .string)
        }.makeSpecification()
        try Support.export(knn, as: "dsl_knn_500")
        let pipeline = try CoreML_Specification_Model.pipeline([extractor, knn], names: ["lenet", "knn"])
        try Support.export(pipeline, as: "surgery_pipeline")
        #expect(pipeline.modelTypeName == "pipelineClassifier")
        #expect(pipeline.isUpdatable && pipeline.specificationVersion == 4)
        #expect(pipeline.description_p.input.map(\.name) == ["image"])
        #expect(pipeline.description_p.output.map(\.name) == ["label", "labelProbs"])
        #expect(pipeline.description_p.trainingInput.map(\.name) == ["image", "label"])
        #expect(pipeline.description_p.predictedFeatureName == "label")
        #expect(pipeline.pipelineClassifier.pipeline.names == ["lenet", "knn"])

        // The personalization recipe end to end (the k-NN and pipeline runtime): examples added with
        // MLUpdateTask, then new images get the label of their kind.
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("personal.mlmodel")
            try pipeline.write(to: url)
            let examples = SeedLeNetTests.examples(count: 20, seed: 21)
            let providers: [MLFeatureProvider] = examples.map { example in
                MLDictionaryFeatureProvider(featureValues: [
                    "image": Support.array(example.image, shape: [1, 28, 28]),
                    "label": MLFeatureValue(string: example.label == 3 ? "top" : "bottom"),
                ])
            }
            let (personal, _) = try Support.train(url, on: providers)
            #expect(personal.specification.pipelineClassifier.pipeline.models[1].kNearestNeighborsClassifier.nearestNeighborsIndex.floatSamples.count == 20)
            for example in SeedLeNetTests.examples(count: 10, seed: 22) {
                let result = try personal.prediction(from: MLDictionaryFeatureProvider(featureValues: ["image": Support.array(example.image, shape: [1, 28, 28])]))
                #expect(result.featureValue(for: "label")?.stringValue == (example.label == 3 ? "top" : "bottom"))
            }
        }

        // Choosing outputs: expose the features too.
        let both = try CoreML_Specification_Model.pipeline([extractor, knn], outputs: ["label", "features"])
        #expect(both.description_p.output.map(\.name) == ["label", "features"])
        #expect(both.description_p.output[1].type.multiArrayType.shape == [500])
    }

    private func message(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func badEditsNameWhatAndWhere() throws {
        let lenet = try Fixtures.model("lenet_updatable.mlmodel")
        let classifier = try Fixtures.model("classifier_sgd.mlmodel")
        let knn = try Fixtures.model("knn_linear_string.mlmodel")
        var copy = lenet
        #expect(message { try copy.makeUpdatable(layers: ["dense9"]) }.hasPrefix("layer 'dense9': no layer has this name; the layers are conv1, relu1"))
        #expect(message { try copy.makeUpdatable(layers: ["pool1"]) }.hasPrefix("layer 'pool1': pooling layers cannot be trained"))
        var other = knn
        #expect(message { try other.makeUpdatable(layers: ["x"]) } == "model: a kNearestNeighborsClassifier model has no neural network to edit")
        #expect(message { try copy.setLoss(.crossEntropy, input: "dense2_out") }
            == "loss 'lossLayer': cross-entropy needs a softmax output, but 'dense2_out' comes from the innerProduct layer 'dense2'")
        #expect(message { try copy.setLoss(.meanSquaredError, name: "conv1") } == "loss 'conv1': a layer already has this name")
        #expect(message { try copy.setOptimizer(Adam(learningRateDefault: 0.1, miniBatchSizeDefault: 7, miniBatchSizeRange: [8, 16])) }
            == "optimizer › miniBatchSize: the default 7 is not one of the allowed values [8, 16]")
        #expect(message { try copy.setEpochs(0) }.hasPrefix("epochs: the default 0 must be positive"))
        #expect(message { _ = try lenet.featureExtractor(outputBlob: "image") } == "blob 'image': is a model input, not a layer output")
        #expect(message { _ = try lenet.featureExtractor(outputBlob: "dense3_out") }.hasPrefix("blob 'dense3_out': no layer writes this blob"))
        #expect(message { _ = try lenet.featureExtractor(outputBlob: "relu3_out", outputName: "pool1_out") }
            == "blob 'relu3_out': cannot rename it to 'pool1_out': another blob has that name")
        var widened = classifier
        #expect(message { try widened.addClasses([7]) } == "class labels: the new labels are Int64, the model's are String")
        #expect(message { try widened.addClasses(["virginica"]) } == "class labels: 'virginica' is already a label (or given twice)")
        copy = lenet
        #expect(message { try copy.addClasses(["x"]) }.hasPrefix("model: a neuralNetwork model has no class labels to add to"))

        let extractor = try lenet.featureExtractor(outputBlob: "relu3_out", outputName: "features")
        let small = try Fixtures.model("knn_empty_string.mlmodel")
        #expect(message { _ = try CoreML_Specification_Model.pipeline([extractor, small]) }
            == "pipeline model 2 (kNearestNeighborsClassifier) › input 'features': expects multi-array float32 [8], but pipeline model 1 (neuralNetwork)'s output gives multi-array float32 [500]")
        #expect(message { _ = try CoreML_Specification_Model.pipeline([lenet, extractor]) }
            == "pipeline model 1 (neuralNetwork): only the last model of a pipeline can be updatable")
        #expect(message { _ = try CoreML_Specification_Model.pipeline([extractor], outputs: ["probabilities"]) }
            .hasPrefix("pipeline output 'probabilities': no model produces it; the models' outputs are features"))
        #expect(message { _ = try CoreML_Specification_Model.pipeline([extractor, small], inputs: ["pixels"]) }
            .hasPrefix("pipeline model 1 (neuralNetwork) › input 'image': is neither one of the pipeline's inputs (pixels)"))
        #expect(message { _ = try CoreML_Specification_Model.pipeline([]) } == "pipeline: give at least one model")
    }
}
