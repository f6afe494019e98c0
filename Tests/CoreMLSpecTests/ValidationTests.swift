import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Each test breaks one of Core ML's rules in an otherwise valid fixture and checks that the
/// validator names the broken part.
struct ValidationTests {
    /// The only issue reported for `model`, as one line.
    private func soleIssue(_ model: CoreML_Specification_Model, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let issues = model.validationIssues()
        #expect(issues.count == 1, "\(issues)", sourceLocation: sourceLocation)
        return issues.first?.description ?? ""
    }

    private func lenet() throws -> CoreML_Specification_Model { try Fixtures.model("lenet_updatable.mlmodel") }

    @Test func updatableNeedsSpecificationVersion4() throws {
        var model = try lenet()
        model.specificationVersion = 3
        #expect(soleIssue(model).contains("specification version 4"))
        #expect(throws: ModelValidationError.self) { try model.validate() }
    }

    @Test func updatableModelNeedsAnUpdatableLayer() throws {
        var model = try lenet()
        for index in model.neuralNetwork.layers.indices { model.neuralNetwork.layers[index].isUpdatable = false }
        #expect(soleIssue(model).contains("none of its layers are"))
    }

    @Test func updatableLayerNeedsUpdatableWeights() throws {
        var model = try lenet()
        model.neuralNetwork.layers[0].convolution.bias.isUpdatable = false
        let issue = soleIssue(model)
        #expect(issue.contains("layer 'conv1'") && issue.contains("bias"))
    }

    @Test func onlySupportedLayerTypesCanBeUpdatable() throws {
        var model = try lenet()
        model.neuralNetwork.layers[2].isUpdatable = true  // pool1
        let issue = soleIssue(model)
        #expect(issue.contains("layer 'pool1'") && issue.contains("pooling"))
    }

    @Test func sgdNeedsLearningRateAndBatchSize() throws {
        var model = try Fixtures.model("classifier_sgd.mlmodel")
        model.neuralNetworkClassifier.updateParams.optimizer.sgdOptimizer.clearLearningRate()
        #expect(soleIssue(model).contains("SGD optimizer: learningRate is required"))
        model = try Fixtures.model("classifier_sgd.mlmodel")
        model.neuralNetworkClassifier.updateParams.optimizer.sgdOptimizer.clearMiniBatchSize()
        #expect(soleIssue(model).contains("miniBatchSize is required"))
    }

    @Test func adamNeedsBetasAndEps() throws {
        for clear in [
            { (adam: inout CoreML_Specification_AdamOptimizer) in adam.clearBeta1() },
            { (adam: inout CoreML_Specification_AdamOptimizer) in adam.clearBeta2() },
            { (adam: inout CoreML_Specification_AdamOptimizer) in adam.clearEps() },
        ] {
            var model = try lenet()
            clear(&model.neuralNetwork.updateParams.optimizer.adamOptimizer)
            #expect(soleIssue(model).contains("Adam optimizer"))
        }
    }

    @Test func defaultsMustBeAllowed() throws {
        var model = try lenet()
        model.neuralNetwork.updateParams.optimizer.adamOptimizer.learningRate.defaultValue = 2
        #expect(soleIssue(model).contains("learningRate: the default 2.0 is outside the allowed range"))
        model = try lenet()
        model.neuralNetwork.updateParams.optimizer.adamOptimizer.miniBatchSize.defaultValue = 100
        #expect(soleIssue(model).contains("miniBatchSize: the default 100 is not in the allowed set"))
    }

    @Test func epochsAreRequiredAndPositive() throws {
        var model = try lenet()
        model.neuralNetwork.updateParams.clearEpochs()
        #expect(soleIssue(model).contains("epochs are required"))
        model = try lenet()
        model.neuralNetwork.updateParams.epochs.defaultValue = 0
        model.neuralNetwork.updateParams.epochs.set.values = [0, 1]
        #expect(model.validationIssues().contains { $0.description.contains("epochs: the default 0 must be positive") })
    }

    @Test func lossTargetMustBeATrainingInput() throws {
        var model = try lenet()
        model.description_p.trainingInput.removeLast()
        #expect(soleIssue(model).contains("do not include the loss target 'output_true'"))
    }

    @Test func crossEntropyNeedsSoftmaxInput() throws {
        var model = try lenet()
        model.neuralNetwork.updateParams.lossLayers[0].categoricalCrossEntropyLossLayer.input = "dense2_out"
        #expect(soleIssue(model).contains("needs the output of a softmax layer"))
    }

    @Test func everyLayerInputMustExist() throws {
        var model = try lenet()
        model.neuralNetwork.layers[3].input = ["nowhere"]
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("layer 'conv2'") && $0.contains("input 'nowhere'") })
    }

    @Test func noCycles() throws {
        var model = try lenet()
        model.neuralNetwork.layers[0].input = ["relu1_out"]  // conv1 ← relu1 ← conv1
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("cycle") && $0.contains("conv1") && $0.contains("relu1") })
    }

    @Test func noBlobProducedTwice() throws {
        var model = try lenet()
        model.neuralNetwork.layers[4].output = ["conv2_out"]
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("layer 'relu2'") && $0.contains("also produced by layer 'conv2'") })
    }

    @Test func weightCountsMatchSizes() throws {
        var model = try lenet()
        model.neuralNetwork.layers[7].innerProduct.weights.floatValue.removeLast()
        let issue = soleIssue(model)
        #expect(issue.contains("layer 'dense1'") && issue.contains("weights holds 575999 values"))
    }

    @Test func nearestNeighborsSamplesAndLabels() throws {
        var model = try Fixtures.model("knn_linear_string.mlmodel")
        model.kNearestNeighborsClassifier.stringClassLabels.vector.removeLast()
        #expect(soleIssue(model).contains("12 samples but 11 labels"))
        model = try Fixtures.model("knn_linear_string.mlmodel")
        model.kNearestNeighborsClassifier.nearestNeighborsIndex.floatSamples[5].vector.append(1)
        #expect(soleIssue(model).contains("sample 5 has 5 values"))
        model = try Fixtures.model("knn_linear_string.mlmodel")
        model.kNearestNeighborsClassifier.numberOfNeighbors.defaultValue = 0
        #expect(model.validationIssues().contains { $0.description.contains("numberOfNeighbors: the default 0 must be positive") })
    }

    @Test func onlyTheLastPipelineModelIsUpdatable() throws {
        var model = try Fixtures.model("pipeline_knn.mlmodel")
        model.pipelineClassifier.pipeline.models[0].isUpdatable = true
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("pipeline model 1") && $0.contains("only the last model") })
    }

    @Test func pipelineInputsMustBeAvailable() throws {
        var model = try Fixtures.model("pipeline_knn.mlmodel")
        model.pipelineClassifier.pipeline.models[1].description_p.input[0].name = "embedding"
        let issues = model.validationIssues().map(\.description)
        #expect(issues.contains { $0.contains("pipeline model 2") && $0.contains("input 'embedding'") })
    }

    @Test func featuresNeedNamesAndTypes() throws {
        var model = try lenet()
        model.description_p.input[0].type.multiArrayType.dataType = .invalidArrayDataType
        // The training input of the same name is that input, so it changes too.
        model.description_p.trainingInput[0].type.multiArrayType.dataType = .invalidArrayDataType
        let issues = model.validationIssues().map(\.description)
        #expect(issues.count == 2 && issues.allSatisfy { $0.contains("input 'image': the array's data type is missing") }, "\(issues)")
    }
}
