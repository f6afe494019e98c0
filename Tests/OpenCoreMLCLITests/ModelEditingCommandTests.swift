import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `make-updatable`, `strip-classifier` and `pipeline`.
struct ModelEditingCommandTests {
    @Test func stripClassifierWritesAFeatureExtractor() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("features.mlmodel")
            let result = try CommandRunner.run(["strip-classifier", Fixtures.url("lenet_updatable.mlmodel").path,
                                                "--output-blob", "relu3_out", "--output-name", "features", "--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "Wrote \(output.path): a neural network of 9 layers (of 11) from image to 'features' (float32 500).\n")
            let model = try CoreML_Specification_Model(contentsOf: output)
            #expect(model.validationIssues().isEmpty)
            #expect(model.neuralNetwork.layers.last?.output == ["features"])
            #expect(model.description_p.output[0].type.multiArrayType.shape == [500])
            #expect(!model.isUpdatable)
        }
    }

    @Test func makeUpdatableWritesTheTrainingSettings() throws {
        try withTemporaryDirectory { folder in
            // Start from the classifier with its training settings removed.
            var frozen = try Fixtures.model("classifier_sgd.mlmodel")
            frozen.isUpdatable = false
            frozen.description_p.trainingInput = []
            frozen.neuralNetworkClassifier.clearUpdateParams()
            for index in frozen.neuralNetworkClassifier.layers.indices {
                frozen.neuralNetworkClassifier.layers[index].isUpdatable = false
                if case .innerProduct(var dense)? = frozen.neuralNetworkClassifier.layers[index].layer {
                    dense.weights.isUpdatable = false
                    dense.bias.isUpdatable = false
                    frozen.neuralNetworkClassifier.layers[index].innerProduct = dense
                }
            }
            let source = folder.appendingPathComponent("frozen.mlmodel")
            try frozen.write(to: source)
            let output = folder.appendingPathComponent("updatable.mlmodel")
            let result = try CommandRunner.run(["make-updatable", source.path, "--layers", "dense2", "--loss", "cross-entropy",
                                                "--optimizer", "sgd", "--learning-rate", "0.05", "--batch-size", "12", "--momentum", "0.5",
                                                "--epochs", "7", "--seed", "3", "--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("updatable layers dense2; cross-entropy loss on 'classProbability'; SGD learning rate 0.05, batch 12, 7 epochs"))
            let model = try CoreML_Specification_Model(contentsOf: output)
            #expect(model.validationIssues().isEmpty)
            #expect(model.isUpdatable && model.specificationVersion == 4)
            let classifier = model.neuralNetworkClassifier
            #expect(classifier.layers.filter(\.isUpdatable).map(\.name) == ["dense2"])
            #expect(model.description_p.trainingInput.map(\.name) == ["features", "classLabel"])
            let sgd = classifier.updateParams.optimizer.sgdOptimizer
            #expect(sgd.learningRate.defaultValue == 0.05 && sgd.learningRate.range.maxValue == 1)
            #expect(sgd.miniBatchSize.defaultValue == 12 && sgd.miniBatchSize.set.values == [8, 12, 16, 32, 64, 128, 256])
            #expect(sgd.momentum.defaultValue == 0.5)
            #expect(classifier.updateParams.epochs.defaultValue == 7 && classifier.updateParams.epochs.range.maxValue == 1000)
            #expect(classifier.updateParams.seed.defaultValue == 3 && classifier.updateParams.shuffle.defaultValue)

            // The result trains with `opencoreml train` (two epochs on a CSV of iris-like rows, class index first).
            let csv = folder.appendingPathComponent("iris.csv")
            try (0..<24).map { index in
                "\(index % 3),\(Float(index % 3)),1,\(Float(index % 5) / 5),0.5"
            }.joined(separator: "\n").write(to: csv, atomically: true, encoding: .utf8)
            let trained = folder.appendingPathComponent("trained.mlmodel")
            let training = try CommandRunner.run(["train", output.path, "--data", csv.path, "--scale", "1", "--output", trained.path, "--epochs", "2"])
            #expect(training.status == 0, "\(training.stderr)")
        }
    }

    @Test func pipelineChecksAndWritesTheCombination() throws {
        try withTemporaryDirectory { folder in
            let extractor = folder.appendingPathComponent("extractor.mlmodel")
            try Fixtures.model("pipeline_knn.mlmodel").pipelineClassifier.pipeline.models[0].write(to: extractor)
            // The empty k-NN fixture, widened to the extractor's 16 features.
            var knn = try Fixtures.model("knn_empty_string.mlmodel")
            knn.kNearestNeighborsClassifier.nearestNeighborsIndex.numberOfDimensions = 16
            knn.description_p.input[0].type.multiArrayType.shape = [16]
            knn.description_p.trainingInput[0].type.multiArrayType.shape = [16]
            let knnURL = folder.appendingPathComponent("knn.mlmodel")
            try knn.write(to: knnURL)

            let output = folder.appendingPathComponent("pipeline.mlmodel")
            let result = try CommandRunner.run(["pipeline", extractor.path, knnURL.path, "--names", "extractor,knn", "--output", output.path])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == "Wrote \(output.path): pipelineClassifier of neuralNetwork → kNearestNeighborsClassifier; inputs image; "
                + "outputs label, labelProbs; updatable (training inputs image, label).\n")
            let pipeline = try CoreML_Specification_Model(contentsOf: output)
            #expect(pipeline.validationIssues().isEmpty)
            #expect(pipeline.pipelineClassifier.pipeline.names == ["extractor", "knn"])
            #expect(pipeline.description_p.predictedFeatureName == "label")

            // The same two models as coremltools combined them, apart from metadata and names.
            let fixture = try Fixtures.model("pipeline_knn.mlmodel")
            #expect(pipeline.description_p.input == fixture.description_p.input)
            #expect(pipeline.description_p.output == fixture.description_p.output)
            #expect(pipeline.description_p.trainingInput == fixture.description_p.trainingInput)
        }
    }

    private func expectOneLineFailure(_ arguments: [String], output: URL, mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(arguments)
        #expect(result.status == 1, sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: output.path), sourceLocation: sourceLocation)
    }

    @Test func badInputFailsOnOneLineAndWritesNothing() throws {
        try withTemporaryDirectory { folder in
            let out = folder.appendingPathComponent("out.mlmodel")
            let lenet = Fixtures.url("lenet_updatable.mlmodel").path
            let knn = Fixtures.url("knn_empty_string.mlmodel").path
            let missing = folder.appendingPathComponent("missing.mlmodel").path
            let update = ["--loss", "cross-entropy", "--optimizer", "adam", "--output", out.path]
            try expectOneLineFailure(["make-updatable", missing, "--layers", "dense2"] + update, output: out, mentioning: "missing.mlmodel: no such file")
            try expectOneLineFailure(["make-updatable", lenet, "--layers", "dense2,dense9"] + update, output: out,
                                     mentioning: "lenet_updatable.mlmodel: layer 'dense9': no layer has this name")
            try expectOneLineFailure(["make-updatable", lenet, "--layers", "pool1"] + update, output: out,
                                     mentioning: "layer 'pool1': pooling layers cannot be trained")
            try expectOneLineFailure(["make-updatable", lenet, "--layers", "dense2", "--loss", "hinge", "--optimizer", "sgd", "--output", out.path],
                                     output: out, mentioning: "--loss must be cross-entropy or mse, got 'hinge'")
            try expectOneLineFailure(["make-updatable", lenet, "--layers", "dense2", "--loss", "mse", "--optimizer", "sgd", "--learning-rate", "3",
                                      "--output", out.path], output: out, mentioning: "--learning-rate must be in (0, 1], got 3.0")
            try expectOneLineFailure(["make-updatable", knn, "--layers", "x"] + update, output: out,
                                     mentioning: "knn_empty_string.mlmodel: model: a kNearestNeighborsClassifier model has no neural network")
            try expectOneLineFailure(["strip-classifier", lenet, "--output-blob", "nowhere", "--output", out.path], output: out,
                                     mentioning: "blob 'nowhere': no layer writes this blob")
            try expectOneLineFailure(["strip-classifier", lenet, "--output-blob", "image", "--output", out.path], output: out,
                                     mentioning: "blob 'image': is a model input")
            try expectOneLineFailure(["pipeline", lenet, knn, "--output", out.path], output: out,
                                     mentioning: "pipeline model 1 (neuralNetwork): only the last model of a pipeline can be updatable")
            let features = folder.appendingPathComponent("features.mlmodel")
            _ = try CommandRunner.run(["strip-classifier", lenet, "--output-blob", "relu3_out", "--output-name", "features", "--output", features.path])
            try expectOneLineFailure(["pipeline", features.path, knn, "--output", out.path], output: out,
                                     mentioning: "pipeline model 2 (kNearestNeighborsClassifier) › input 'features': expects multi-array float32 [8], but pipeline model 1 (neuralNetwork)'s output gives multi-array float32 [500]")
            try expectOneLineFailure(["pipeline", features.path, "--output", out.path], output: out, mentioning: "a pipeline needs at least two models")
            try expectOneLineFailure(["pipeline", features.path, knn, "--kind", "ranker", "--output", out.path], output: out,
                                     mentioning: "--kind must be one of automatic, pipeline, classifier, regressor")
        }
    }
}
