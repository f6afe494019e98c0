import Foundation

/// The shape and element type a multi-array feature must have.
public final class MLMultiArrayConstraint: @unchecked Sendable {
    public let shape: [NSNumber]
    public let dataType: MLMultiArrayDataType
    public let shapeConstraint: MLMultiArrayShapeConstraint

    init(shape: [NSNumber], dataType: MLMultiArrayDataType, shapeConstraint: MLMultiArrayShapeConstraint) {
        self.shape = shape
        self.dataType = dataType
        self.shapeConstraint = shapeConstraint
    }
}

/// Which other shapes a flexible multi-array feature accepts.
public final class MLMultiArrayShapeConstraint: @unchecked Sendable {
    public enum ConstraintType: Int, Sendable { case unspecified = 1, enumerated = 2, range = 3 }

    public let type: ConstraintType
    /// For `.range`: per dimension, the smallest and largest size (`Int.max` when unbounded).
    public let sizeRangeForDimension: [ClosedRange<Int>]
    /// For `.enumerated`: the accepted shapes.
    public let enumeratedShapes: [[NSNumber]]

    init(type: ConstraintType, sizeRangeForDimension: [ClosedRange<Int>] = [], enumeratedShapes: [[NSNumber]] = []) {
        self.type = type
        self.sizeRangeForDimension = sizeRangeForDimension
        self.enumeratedShapes = enumeratedShapes
    }
}

/// The size and pixel format an image feature must have.
public final class MLImageConstraint: @unchecked Sendable {
    public let pixelsWide: Int
    public let pixelsHigh: Int
    /// A Core Video pixel format code: `'BGRA'` for colour, `'L008'` for 8-bit grayscale,
    /// `'L00h'` for half-float grayscale.
    public let pixelFormatType: UInt32

    init(pixelsWide: Int, pixelsHigh: Int, pixelFormatType: UInt32) {
        self.pixelsWide = pixelsWide
        self.pixelsHigh = pixelsHigh
        self.pixelFormatType = pixelFormatType
    }
}

/// The key type of a dictionary feature.
public final class MLDictionaryConstraint: @unchecked Sendable {
    public let keyType: MLFeatureType
    init(keyType: MLFeatureType) { self.keyType = keyType }
}

/// The element type and length of a sequence feature.
public final class MLSequenceConstraint: @unchecked Sendable {
    public let valueDescription: MLFeatureDescription
    public let countRange: ClosedRange<Int>
    init(valueDescription: MLFeatureDescription, countRange: ClosedRange<Int>) {
        self.valueDescription = valueDescription
        self.countRange = countRange
    }
}
