import CoreMLSpec
import Foundation

/// The name, type and constraints of one input, output or training input.
public final class MLFeatureDescription: @unchecked Sendable, CustomStringConvertible {
    /// The feature's name, which is its key in feature providers.
    public let name: String
    /// The kind of value the feature holds.
    public let type: MLFeatureType
    /// Whether a prediction may leave the feature out (give an undefined value for it).
    public let isOptional: Bool
    /// The shape and element type of a multi-array feature; nil for other types.
    public let multiArrayConstraint: MLMultiArrayConstraint?
    /// The size and pixel format of an image feature; nil for other types.
    public let imageConstraint: MLImageConstraint?
    /// The key type of a dictionary feature; nil for other types.
    public let dictionaryConstraint: MLDictionaryConstraint?
    /// The element type and length of a sequence feature; nil for other types.
    public let sequenceConstraint: MLSequenceConstraint?
    /// The buffer shape and element type of a state feature (iOS 18); nil for other types.
    public let stateConstraint: MLStateConstraint?
    /// The feature's documentation in the model (an OpenCoreML addition).
    public let shortDescription: String

    init(
        name: String, type: MLFeatureType, isOptional: Bool = false, shortDescription: String = "",
        multiArrayConstraint: MLMultiArrayConstraint? = nil, imageConstraint: MLImageConstraint? = nil,
        dictionaryConstraint: MLDictionaryConstraint? = nil, sequenceConstraint: MLSequenceConstraint? = nil,
        stateConstraint: MLStateConstraint? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.shortDescription = shortDescription
        self.multiArrayConstraint = multiArrayConstraint
        self.imageConstraint = imageConstraint
        self.dictionaryConstraint = dictionaryConstraint
        self.sequenceConstraint = sequenceConstraint
        self.stateConstraint = stateConstraint
    }

    convenience init(_ feature: CoreML_Specification_FeatureDescription) {
        let type = feature.type
        var kind = MLFeatureType.invalid
        var array: MLMultiArrayConstraint?
        var image: MLImageConstraint?
        var dictionary: MLDictionaryConstraint?
        var sequence: MLSequenceConstraint?
        var state: MLStateConstraint?
        switch type.type {
        case .int64Type?: kind = .int64
        case .doubleType?: kind = .double
        case .stringType?: kind = .string
        case .multiArrayType(let spec)?:
            kind = .multiArray
            array = MLMultiArrayConstraint(spec)
        case .imageType(let spec)?:
            kind = .image
            let format: UInt32
            switch spec.colorSpace {
            case .grayscale: format = 0x4C30_3038  // 'L008'
            case .grayscaleFloat16: format = 0x4C30_3068  // 'L00h'
            default: format = 0x4247_5241  // 'BGRA'
            }
            image = MLImageConstraint(pixelsWide: Int(spec.width), pixelsHigh: Int(spec.height), pixelFormatType: format)
        case .dictionaryType(let spec)?:
            kind = .dictionary
            dictionary = MLDictionaryConstraint(keyType: spec.keyType.map {
                if case .stringKeyType = $0 { return .string } else { return .int64 }
            } ?? .invalid)
        case .sequenceType(let spec)?:
            kind = .sequence
            let element: MLFeatureType
            if case .stringType? = spec.type { element = .string } else { element = .int64 }
            let upper = spec.sizeRange.upperBound < 0 ? Int.max : Int(spec.sizeRange.upperBound)
            let lower = min(Int(clamping: spec.sizeRange.lowerBound), upper)
            sequence = MLSequenceConstraint(
                valueDescription: MLFeatureDescription(name: "", type: element), countRange: lower...upper)
        case .stateType(let spec)?:
            kind = .state
            state = MLStateConstraint(spec.arrayType)
        case nil: kind = .invalid
        }
        self.init(
            name: feature.name, type: kind, isOptional: type.isOptional, shortDescription: feature.shortDescription,
            multiArrayConstraint: array, imageConstraint: image, dictionaryConstraint: dictionary,
            sequenceConstraint: sequence, stateConstraint: state)
    }

    /// The name and type, such as `image : MultiArray`.
    public var description: String { "\(name) : \(type)" }
}

extension MLMultiArrayConstraint {
    convenience init(_ spec: CoreML_Specification_ArrayFeatureType) {
        let dataType = MLMultiArrayDataType(rawValue: spec.dataType.rawValue) ?? .float32
        let shapeConstraint: MLMultiArrayShapeConstraint
        switch spec.shapeFlexibility {
        case .enumeratedShapes(let shapes)?:
            shapeConstraint = MLMultiArrayShapeConstraint(
                type: .enumerated, enumeratedShapes: shapes.shapes.map { $0.shape.map { NSNumber(value: $0) } })
        case .shapeRange(let ranges)?:
            shapeConstraint = MLMultiArrayShapeConstraint(type: .range, sizeRangeForDimension: ranges.sizeRanges.map {
                let upper = $0.upperBound < 0 ? Int.max : Int($0.upperBound)
                return min(Int(clamping: $0.lowerBound), upper)...upper
            })
        case nil:
            shapeConstraint = MLMultiArrayShapeConstraint(type: .unspecified)
        }
        self.init(shape: spec.shape.map { NSNumber(value: $0) }, dataType: dataType, shapeConstraint: shapeConstraint)
    }
}
