import CoreMLSpec
import Foundation
import OpenCoreML
import Testing

/// A flexible multi-array input refuses a shape it does not accept with an error that names the
/// input, the shape given and the shapes it accepts: ranges as `lower...upper` (`lower...` when
/// unbounded, one number when fixed), enumerated shapes joined by "or" (the enumerated case is in
/// ``MLProgramInputShapeTests``).
@Suite("Flexible input shapes: what a refusal says")
struct FlexibleShapeTests {
    static func message(_ model: MLModel, shape: [Int]) throws -> String? {
        do {
            try MLProgramInputShapeTests.predict(model, shape: shape)
            return nil
        } catch let error as MLModelError {
            #expect(error.code == .featureType)
            return error.message
        }
    }

    static func ranged(_ bounds: [(UInt64, Int64)]) throws -> MLModel {
        var specification = try CoreML_Specification_Model(selfContainedContentsOf: MLProgramInputShapeTests.dense)
        var ranges = CoreML_Specification_ArrayFeatureType.ShapeRange()
        ranges.sizeRanges = bounds.map { bounds in
            var range = CoreML_Specification_SizeRange()
            (range.lowerBound, range.upperBound) = bounds
            return range
        }
        specification.description_p.input[0].type.multiArrayType.shapeRange = ranges
        return try MLModel(specification: specification)
    }

    @Test func rangesAreNamed() throws {
        let model = try Self.ranged([(1, 4), (32, 32)])
        #expect(try Self.message(model, shape: [5, 32]) == "input 'x' has shape [5, 32]; the model accepts [1...4, 32]")
        let unbounded = try Self.ranged([(1, -1), (32, 32)])
        try MLProgramInputShapeTests.predict(unbounded, shape: [300, 32])
        #expect(try Self.message(unbounded, shape: [2, 16]) == "input 'x' has shape [2, 16]; the model accepts [1..., 32]")
    }

    @Test func aFixedShapeIsNamed() throws {
        let model = try MLModel(contentsOf: MLProgramInputShapeTests.dense)
        #expect(try Self.message(model, shape: [2, 16]) == "input 'x' has shape [2, 16]; the model expects [1, 32]")
    }
}
