import CoreMLSpec
import Foundation

/// The buffer of a state feature (Core ML's `MLStateConstraint`, iOS 18): its shape and element type.
public final class MLStateConstraint: @unchecked Sendable, CustomStringConvertible {
    /// The shape of the state's buffer.
    public let bufferShape: [NSNumber]
    /// The element type of the state's buffer (float16 for the states coremltools writes).
    public let dataType: MLMultiArrayDataType

    init(bufferShape: [NSNumber], dataType: MLMultiArrayDataType) {
        self.bufferShape = bufferShape
        self.dataType = dataType
    }

    convenience init(_ spec: CoreML_Specification_ArrayFeatureType) {
        self.init(bufferShape: spec.shape.map { NSNumber(value: $0) }, dataType: MLMultiArrayDataType(rawValue: spec.dataType.rawValue) ?? .float32)
    }

    /// The shape and type, such as `[1, 8, 32] Float16`.
    public var description: String { "\(bufferShape.map(\.intValue)) \(dataType)" }
}
