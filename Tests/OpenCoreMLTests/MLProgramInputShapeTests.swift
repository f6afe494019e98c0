import CoreMLSpec
import Foundation
import OpenCoreML
import Testing
import _OpenCoreMLTestSupport

/// ML Program inputs are checked against their declared shapes before the program runs, as Core
/// ML checks them: a fixed input takes exactly its shape; a flexible one a shape in its ranges or
/// among its enumerated shapes. Anything else is a feature-type error naming the input.
@Suite("ML Program input shapes")
struct MLProgramInputShapeTests {
    static let dense = MLProgramPredictionTests.folder.appendingPathComponent("Dense.mlpackage")

    static func predict(_ model: MLModel, shape: [Int]) throws {
        let x = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: .float32)
        _ = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
    }

    static func isShapeError(_ error: any Error) -> Bool {
        guard let error = error as? MLModelError else { return false }
        return error.code == .featureType && error.message.contains("input 'x' has shape")
    }

    @Test func aFixedInputTakesOnlyItsShape() throws {
        let model = try MLModel(contentsOf: Self.dense)
        try Self.predict(model, shape: [1, 32])
        // The same 32 values in another shape are refused, as Core ML refuses them.
        #expect(throws: MLModelError.self) { try Self.predict(model, shape: [32]) }
        #expect { try Self.predict(model, shape: [2, 16]) } throws: { Self.isShapeError($0) }
    }

    @Test func aRangedInputTakesShapesWithinItsRanges() throws {
        var specification = try CoreML_Specification_Model(selfContainedContentsOf: Self.dense)
        var ranges = CoreML_Specification_ArrayFeatureType.ShapeRange()
        ranges.sizeRanges = [(1, 4), (32, 32)].map { bounds in
            var range = CoreML_Specification_SizeRange()
            (range.lowerBound, range.upperBound) = (UInt64(bounds.0), Int64(bounds.1))
            return range
        }
        specification.description_p.input[0].type.multiArrayType.shapeRange = ranges
        let model = try MLModel(specification: specification)
        try Self.predict(model, shape: [1, 32])
        #expect { try Self.predict(model, shape: [5, 32]) } throws: { Self.isShapeError($0) }
        #expect { try Self.predict(model, shape: [1, 32, 1]) } throws: { Self.isShapeError($0) }
    }

    @Test func anEnumeratedInputTakesOneOfItsShapes() throws {
        var specification = try CoreML_Specification_Model(selfContainedContentsOf: Self.dense)
        var shapes = CoreML_Specification_ArrayFeatureType.EnumeratedShapes()
        shapes.shapes = ([[1, 32], [3, 32]] as [[Int64]]).map { dimensions in
            var shape = CoreML_Specification_ArrayFeatureType.Shape()
            shape.shape = dimensions
            return shape
        }
        specification.description_p.input[0].type.multiArrayType.enumeratedShapes = shapes
        let model = try MLModel(specification: specification)
        try Self.predict(model, shape: [1, 32])
        #expect { try Self.predict(model, shape: [2, 32]) } throws: { Self.isShapeError($0) }
        #expect(try FlexibleShapeTests.message(model, shape: [2, 32]) == "input 'x' has shape [2, 32]; the model accepts [1, 32] or [3, 32]")
    }
}

/// A program may return a constant (coremltools' tests of constexpr operations return their
/// decompressed weights): it comes back like any other output.
@Suite("ML Program constant outputs")
struct MLProgramConstantOutputTests {
    @Test func aConstantOutputComesBackBesideAComputedOne() throws {
        let values: [Float] = [1.5, -2, 0.25, 8]
        let model = HostilePrograms.model(
            [HostilePrograms.constant("table", floats: values, shape: [4]), HostilePrograms.operation("relu", ["x": "x"], output: "y")],
            outputs: ["table", "y"])
        let x = try MLMultiArray(shape: [4], dataType: .float32)
        for (index, value) in [-1, 2, -3, 4].enumerated() { x[index] = NSNumber(value: value) }
        let output = try MLModel(specification: model).prediction(from: MLDictionaryFeatureProvider(dictionary: ["x": x]))
        let table = try #require(output.featureValue(for: "table")?.multiArrayValue)
        #expect(table.floatValues() == values)
        #expect(try #require(output.featureValue(for: "y")?.multiArrayValue).floatValues() == [0, 2, 0, 4])
    }
}
