import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// ML Programs run from their `.mlpackage` through `MLModel`, against numpy's forward pass of the
/// same programs (`Tests/Fixtures/mlprogram/facts.json`, made by make_mlprograms.py): within 1e-4
/// for float32 programs, 1e-2 relative for the float16 one.
@Suite("ML Program predictions")
struct MLProgramPredictionTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/mlprogram")

    static func reference(_ name: String) throws -> (shape: [Int], x: [Double], y: [Double]) {
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("facts.json"))) as! [String: Any]
        let reference = (all[name] as! [String: Any])["reference"] as! [String: Any]
        return (reference["shape"] as! [Int], reference["x"] as! [Double], reference["y"] as! [Double])
    }

    @Test(arguments: [("Dense.mlpackage", 1e-4, false), ("Dense16.mlpackage", 1e-2, true), ("Conv.mlpackage", 1e-4, false)])
    func predictsWhatNumpyComputes(name: String, tolerance: Double, relative: Bool) throws {
        let reference = try Self.reference(name)
        let model = try MLModel(contentsOf: Self.folder.appendingPathComponent(name))
        let x = try MLMultiArray(shape: reference.shape.map { NSNumber(value: $0) }, dataType: .float32)
        for (index, value) in reference.x.enumerated() { x[index] = NSNumber(value: Float(value)) }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        let name = try #require(model.modelDescription.outputDescriptionsByName.keys.first)
        let y = try #require(output.featureValue(for: name)?.multiArrayValue)
        #expect(y.count == reference.y.count)
        for (index, expected) in reference.y.enumerated() {
            let difference = abs(y[index].doubleValue - expected)
            #expect(difference <= tolerance * (relative ? abs(expected) : 1), "\(name)[\(index)]: \(y[index]) vs \(expected)")
        }
    }

    @Test func anUnsupportedOperationIsAnErrorNamingItWhenTheModelFirstRuns() throws {
        var specification = try CoreML_Specification_Model(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
            .inliningMLProgramWeights(from: ModelPackage(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage")))
        guard case .mlProgram(var program)? = specification.type else { Issue.record("not an ML Program"); return }
        var function = program.functions["main"]!
        var block = function.blockSpecializations[function.opset]!
        let index = block.operations.firstIndex { $0.type == "relu" }!
        block.operations[index].type = "thresholded_relu_9"
        function.blockSpecializations[function.opset] = block
        program.functions["main"] = function
        specification.mlProgram = program
        let model = try MLModel(specification: specification)
        let x = try MLMultiArray(shape: [1, 32], dataType: .float32)
        let error = #expect(throws: MLModelError.self) { try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x])) }
        #expect(error?.localizedDescription.contains("operation type 'thresholded_relu_9' is not supported yet") == true, "\(String(describing: error))")
    }

    /// The Conv program with one constant replaced (its declared type kept as int32 of `values`'s shape).
    static func convProgram(replacing constant: String, with values: [Int32]) throws -> CoreML_Specification_Model {
        let url = folder.appendingPathComponent("Conv.mlpackage")
        var specification = try CoreML_Specification_Model(contentsOf: url).inliningMLProgramWeights(from: ModelPackage(contentsOf: url))
        guard case .mlProgram(var program)? = specification.type else { throw MLModelError(.generic, "not an ML Program") }
        var function = program.functions["main"]!
        var block = function.blockSpecializations[function.opset]!
        let index = block.operations.firstIndex { $0.type == "const" && $0.outputs.first?.name == constant }!
        var value = block.operations[index].attributes["val"]!
        value.immediateValue.tensor.ints.values = values
        var dimension = CoreML_Specification_MILSpec_Dimension()
        dimension.constant.size = UInt64(values.count)
        value.type.tensorType.dimensions = [dimension]
        value.type.tensorType.dataType = .int32
        block.operations[index].attributes["val"] = value
        block.operations[index].outputs[0].type = value.type
        function.blockSpecializations[function.opset] = block
        program.functions["main"] = function
        specification.mlProgram = program
        return specification
    }

    /// Parameters that would divide by zero, overflow a size or allocate gigabytes are errors
    /// naming the operation, never a crash.
    @Test(arguments: [("max_pool_0_strides_0", [Int32(0), 0], "must be positive"),
                      ("max_pool_0_kernel_sizes_0", [-2, 2], "must be positive"),
                      ("conv_0_dilations_0", [1 << 20, 1], "at most 65536"),
                      ("conv_0_strides_0", [0, 1], "bad strides"),
                      ("reshape_0_shape_0", [1 << 30, 1 << 30, 1 << 30], "memory limit"),
                      ("reshape_0_shape_0", [-1, -1], "cannot reshape"),
                      ("softmax_1_axis_0", [7], "axis 7 is out of range")])
    func hostileParametersAreErrors(constant: String, values: [Int32], expected: String) throws {
        let specification = try Self.convProgram(replacing: constant, with: values)
        let x = try MLMultiArray(shape: [1, 3, 16, 16], dataType: .float32)
        let model = try MLModel(specification: specification)
        let error = #expect(throws: MLModelError.self) { try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x])) }
        #expect(error?.localizedDescription.contains(expected) == true, "\(String(describing: error))")
    }

    @Test func weightsOutsideThePackageAreAnErrorNotACrash() throws {
        // The specification alone still points into the package's weight file.
        let specification = try CoreML_Specification_Model(contentsOf: Self.folder.appendingPathComponent("Dense.mlpackage"))
        let model = try MLModel(specification: specification)
        let x = try MLMultiArray(shape: [1, 32], dataType: .float32)
        let error = #expect(throws: MLModelError.self) { try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x])) }
        #expect(error?.localizedDescription.contains("load the model from its .mlpackage") == true, "\(String(describing: error))")
    }
}
