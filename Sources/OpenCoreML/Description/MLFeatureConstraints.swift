import Foundation

/// The shape and element type a multi-array feature must have.
public final class MLMultiArrayConstraint: @unchecked Sendable {
    /// The shape the feature declares, such as `[1, 28, 28]`.
    public let shape: [NSNumber]
    /// The element type the model stores the feature as.
    public let dataType: MLMultiArrayDataType
    /// The other shapes the feature accepts, if the model declares any.
    public let shapeConstraint: MLMultiArrayShapeConstraint

    init(shape: [NSNumber], dataType: MLMultiArrayDataType, shapeConstraint: MLMultiArrayShapeConstraint) {
        self.shape = shape
        self.dataType = dataType
        self.shapeConstraint = shapeConstraint
    }
}

/// Which other shapes a flexible multi-array feature accepts.
public final class MLMultiArrayShapeConstraint: @unchecked Sendable {
    /// How a multi-array feature's shape may vary: `unspecified` (only the declared shape), `enumerated`
    /// (any of a list of shapes) or `range` (any size within a range per dimension).
    public enum ConstraintType: Int, Sendable { case unspecified = 1, enumerated = 2, range = 3 }

    /// Which kind of flexibility the feature has.
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
    /// The width in pixels that an image must have.
    public let pixelsWide: Int
    /// The height in pixels that an image must have.
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
    /// The type of the dictionary's keys: ``MLFeatureType/string`` or ``MLFeatureType/int64``.
    public let keyType: MLFeatureType
    init(keyType: MLFeatureType) { self.keyType = keyType }
}

/// The element type and length of a sequence feature.
public final class MLSequenceConstraint: @unchecked Sendable {
    /// The type of the sequence's elements (strings or 64-bit integers).
    public let valueDescription: MLFeatureDescription
    /// The lengths the sequence may have (`Int.max` as the upper bound when unbounded).
    public let countRange: ClosedRange<Int>
    init(valueDescription: MLFeatureDescription, countRange: ClosedRange<Int>) {
        self.valueDescription = valueDescription
        self.countRange = countRange
    }
}
