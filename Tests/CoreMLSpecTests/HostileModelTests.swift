import CoreMLSpec
import Foundation
import Testing
import _OpenCoreMLTestSupport

/// Hostile sizes and inconsistent wiring (`HostileModels`): each is a validation error or a layer
/// table error naming the part and the field, never a trap.
struct HostileModelTests {
    @Test(arguments: HostileModels.validationCases)
    func theValidatorRejects(_ hostile: HostileModels.Case) {
        let issues = hostile.model.validationIssues().map(\.description)
        #expect(issues.first?.contains(hostile.message) == true, "\(issues)")
        #expect(throws: ModelValidationError.self) { try hostile.model.validate() }
    }

    @Test(arguments: HostileModels.compileCases)
    func theLayerTableRejectsWhatTheValidatorAccepts(_ hostile: HostileModels.Case) {
        #expect(hostile.model.validationIssues().isEmpty, "\(hostile.model.validationIssues())")
        let message = errorMessage { _ = try hostile.model.neuralNetworkBlobShapes() }
        #expect(message.contains(hostile.message), "\(message)")
    }

    @Test func theBaseModelsAreValid() throws {
        for model in [
            HostileModels.dense(), HostileModels.convolution { _ in }, HostileModels.updatable(),
            HostileModels.classifier(labels: ["a", "b"]), HostileModels.pipeline(stageTwoInput: [2]),
            HostileModels.nearestNeighbors(inputShape: [4]),
        ] {
            #expect(model.validationIssues().isEmpty, "\(model.validationIssues())")
        }
        #expect(try HostileModels.classifier(labels: ["a", "b"]).neuralNetworkBlobShapes()["probs"] == [2, 1, 1])
    }

    // MARK: The helper

    @Test func checkedSizeConvertsOnlySizes() {
        #expect(checkedSize(UInt64(1) << 62) == 1 << 62)
        #expect(checkedSize(UInt64.max) == nil)
        #expect(checkedSize(UInt64(bitPattern: -1)) == nil)
        #expect(checkedSize(Int64(-1)) == nil)
        #expect(checkedSize(Int64.min) == nil)
        #expect(checkedSize(UInt64(3), limit: 2) == nil)
        #expect(checkedSize(Int32.max, limit: Int(Int32.max)) == Int(Int32.max))
    }

    @Test func checkedProductReportsOverflowAndNegativeSizes() {
        #expect(checkedProduct([] as [Int]) == 1)
        #expect(checkedProduct([2, 3, 4] as [UInt64]) == 24)
        #expect(checkedProduct([1 << 31, 1 << 31] as [Int64]) == 1 << 62)
        #expect(checkedProduct([1 << 40, 1 << 40] as [UInt64]) == nil)
        #expect(checkedProduct([1 << 21, 1 << 21, 1 << 21] as [Int]) == nil)
        #expect(checkedProduct([UInt64.max, 0]) == nil)
        #expect(checkedProduct([0, Int64.max, Int64.max]) == 0)
        #expect(checkedProduct([Int64(-1), 2]) == nil)
        let max32 = Int64(Int32.max)
        #expect(checkedProduct([max32, max32, max32]) == nil)
    }

    @Test func theThrowingFormsNameThePartAndTheField() throws {
        let location = "layer 'conv'"
        do {
            _ = try checkedProduct([1 << 40, 1 << 40] as [UInt64], what: "weights", where: location)
            Issue.record("no error")
        } catch {
            #expect(error.description == "invalid model: layer 'conv': weights 1099511627776 × 1099511627776 holds more elements than a 64-bit count can hold")
        }
        do {
            _ = try checkedProduct([Int64(2), -3], what: "shape", where: "input 'x'")
            Issue.record("no error")
        } catch {
            #expect(error.description == "invalid model: input 'x': shape 2 × -3 has a negative size (-3)")
        }
        do {
            _ = try checkedSize(UInt64.max, limit: Int(Int32.max), what: "dilationFactor", where: location)
            Issue.record("no error")
        } catch {
            #expect(error.description == "invalid model: layer 'conv': dilationFactor 18446744073709551615 is too large (at most 2147483647)")
        }
        do {
            _ = try checkedSize(Int64.min, what: "targetShape", where: "layer 'r'")
            Issue.record("no error")
        } catch {
            #expect(error.location == "layer 'r'" && error.message == "targetShape -9223372036854775808 is negative")
        }
        #expect(try checkedProduct([2, 3] as [UInt64], what: "weights", where: location) == 6)
    }

    // MARK: Quantized weights with hostile bit counts

    @Test(arguments: [UInt64.max, UInt64(bitPattern: -8), 1 << 40, 0, 9])
    func quantizationBitsOutsideOneToEightDoNotTrap(bits: UInt64) {
        var weights = CoreML_Specification_WeightParams()
        weights.rawValue = Data(repeating: 0x55, count: 6)
        weights.quantization.numberOfBits = bits
        weights.quantization.linearQuantization.scale = [1]
        #expect(!weights.holds(6))
        #expect(throws: LayerSpecificationError.self) { try weights.floatValues(count: 6) }
        _ = weights.count
        var model = HostileModels.dense()
        model.neuralNetwork.layers[0].innerProduct.weights = weights
        let issues = model.validationIssues().map(\.description)
        #expect(issues == ["invalid model: layer 'dense': weights is quantized with \(bits) bits; 1 to 8 are supported"])
    }

    // MARK: Blob shapes

    @Test func everyBlobsElementCountFitsAnInt() throws {
        // Sides of at most Int32.max each, whose product does not fit.
        let max32 = Int64(Int32.max)
        let cube = HostileModels.network([("x", [max32, max32, max32])], [TestSpecs.layer("sm", ["x"], ["y"]) { $0.softmax = .init() }])
        #expect(cube.validationIssues().first?.description.contains("holds more elements than a 64-bit count can hold") == true)
        #expect(errorMessage { _ = try cube.neuralNetworkBlobShapes() }.contains("input 'x'"))

        // Padding that grows a blob past an Int's count.
        var pad = CoreML_Specification_PaddingLayerParams()
        pad.constant = .init()
        var edge = CoreML_Specification_BorderAmounts.EdgeSizes()
        (edge.startEdgeSize, edge.endEdgeSize) = (UInt64(Int32.max), UInt64(Int32.max))
        pad.paddingAmounts.borderAmounts = [edge, edge]
        let padded = HostileModels.network([("x", [2, 4, 4])], [TestSpecs.layer("pad", ["x"], ["y"]) { $0.padding = pad }])
        #expect(padded.validationIssues().isEmpty)
        let message = errorMessage { _ = try padded.neuralNetworkBlobShapes() }
        #expect(message.contains("layer 'pad' (padding): output 'y' of shape 2 × 4294967298 × 4294967298 holds more elements"), "\(message)")
    }

    @Test func scaleAndBiasShapesOfHugeSidesFailWithoutTrapping() {
        let max32 = UInt64(Int32.max)
        let result = CoreML_Specification_NeuralNetworkLayer.classicParameterShape(declared: [max32, max32, max32], count: 2, input: [1, 2, 4, 4])
        guard case .failure(let error) = result else { Issue.record("accepted"); return }
        #expect(error.message.contains("holds more elements"), "\(error.message)")
        let negative = CoreML_Specification_NeuralNetworkLayer.classicParameterShape(declared: [UInt64(bitPattern: -2)], count: 2, input: [1, 2, 4, 4])
        guard case .failure(let tooLarge) = negative else { Issue.record("accepted"); return }
        #expect(tooLarge.message == "shape 18446744073709551614 is too large (at most 2147483647)")
    }

    // MARK: Rules from Core ML's validator

    @Test func layerTypesNameTheirInputsAndOutputs() {
        let x = [("x", [Int64(2), 4, 4])]
        let cases: [(CoreML_Specification_NeuralNetworkLayer, String)] = [
            (TestSpecs.layer("c", ["x"], ["y"]) { $0.concat = .init() }, "a concat layer takes at least 2 inputs; this one names 1"),
            (TestSpecs.layer("k", ["x"], ["y"]) { $0.loadConstant.shape = [2, 4, 4]; $0.loadConstant.data = TestSpecs.weights(count: 32) },
             "a loadConstant layer takes no inputs; this one names 1"),
            (TestSpecs.layer("s", ["x"], ["y", "z"]) { $0.softmax = .init() }, "a softmax layer produces 1 output; this one names 2"),
            (TestSpecs.layer("a", [], ["y"]) { $0.add = .init() }, "an add layer takes at least 1 input; this one names 0"),
            (TestSpecs.layer("m", ["x", "x", "x"], ["y"]) { $0.batchedMatmul = .init() }, "a batchedMatmul layer takes 1 to 2 inputs; this one names 3"),
            (TestSpecs.layer("l", ["x"], []) { $0.uniDirectionalLstm = .init() }, "a uniDirectionalLSTM layer produces 1 to 3 outputs; this one names 0"),
        ]
        for (layer, message) in cases {
            let issues = HostileModels.network(x, [layer]).validationIssues().map(\.description)
            #expect(issues.contains { $0.contains("layer '\(layer.name)': \(message)") }, "\(issues)")
        }
    }

    @Test func pipelineOutputsKeepTheirDeclaredTypes() {
        var model = HostileModels.pipeline(stageTwoInput: [2])
        model.description_p.output[0].type.multiArrayType.dataType = .double
        #expect(model.validationIssues().map(\.description)
            == ["invalid model: output 'z': the pipeline declares multi-array double [2], but the output of pipeline model 2 gives multi-array float32 [2]"])
        // Optional inputs and flexible shapes connect as in Core ML.
        var flexible = HostileModels.pipeline(stageTwoInput: [2])
        flexible.pipeline.models[1].description_p.input[0].type.isOptional = true
        var range = CoreML_Specification_SizeRange()
        (range.lowerBound, range.upperBound) = (1, -1)
        flexible.pipeline.models[1].description_p.input[0].type.multiArrayType.shapeRange.sizeRanges = [range]
        #expect(flexible.validationIssues().isEmpty, "\(flexible.validationIssues())")
    }

    @Test func pipelineModelNamesAreUnique() {
        var model = HostileModels.pipeline(stageTwoInput: [2])
        model.pipeline.names = ["stage", "stage"]
        #expect(model.validationIssues().map(\.description) == ["invalid model: the model name 'stage' is used twice"])
    }

    @Test func aClassifierWithOneProbabilityPerLabelIsValid() throws {
        var model = HostileModels.classifier(labels: ["a", "b", "c"])
        #expect(model.classifierProbabilityBlob == "probs")
        model.neuralNetworkClassifier.labelProbabilityLayerName = "logits"
        #expect(model.classifierProbabilityBlob == "logits")
        let issues = model.validationIssues().map(\.description)
        #expect(issues == ["invalid model: there are 3 class labels, but the probabilities 'logits' hold 2 values (shape [2, 1, 1]); there must be one per class"])
        model.neuralNetworkClassifier.stringClassLabels.vector = ["a", "b"]
        #expect(model.validationIssues().isEmpty)
    }

    @Test func crossEntropyTargetsAreClassIndices() {
        var model = HostileModels.updatable()
        model.description_p.trainingInput[1].type.doubleType = .init()
        #expect(model.validationIssues().isEmpty)
        model.description_p.trainingInput[1] = TestSpecs.array("target", [1])
        #expect(model.validationIssues().isEmpty)
        model.description_p.trainingInput[1].type.dictionaryType.int64KeyType = .init()
        #expect(model.validationIssues().first?.description.contains("is not a class index") == true)
    }

    @Test func poolingAndConvolutionSizesArePositive() {
        var pooling = HostileModels.convolution { _ in }
        pooling.neuralNetwork.layers[0].pooling.kernelSize = [2, 0]
        pooling.neuralNetwork.layers[0].pooling.stride = [1, 0]
        #expect(pooling.validationIssues().map(\.description) == [
            "invalid model: layer 'conv': kernelSize [2, 0] must be two positive sizes",
            "invalid model: layer 'conv': stride [1, 0] must be two positive sizes",
        ])
        let dilated = HostileModels.convolution { $0.dilationFactor = [1, 0] }
        #expect(dilated.validationIssues().map(\.description) == ["invalid model: layer 'conv': dilationFactor [1, 0] must be two positive sizes"])
    }
}
