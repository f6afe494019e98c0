extension CoreML_Specification_FeatureType {
    /// A short description for messages: `multi-array float32 [1, 28, 28]`, `image 28×28 grayscale`,
    /// `String`, `dictionary [Int64: Double]`, …
    public var summary: String {
        switch type {
        case .multiArrayType(let array)?:
            return "multi-array \(array.dataType.displayName.lowercased()) \(array.shape)"
        case .imageType(let image)?: return "image \(image.width)×\(image.height) \(image.colorSpace)"
        case .stringType?: return "String"
        case .int64Type?: return "Int64"
        case .doubleType?: return "Double"
        case .dictionaryType(let dictionary)?:
            if case .int64KeyType? = dictionary.keyType { return "dictionary [Int64: Double]" }
            return "dictionary [String: Double]"
        case .sequenceType?: return "sequence"
        default: return "no type"
        }
    }

    /// Whether a feature of this type can be fed where `other` is declared, by Core ML's rule for
    /// connecting features (a pipeline stage's input to what comes before it, a training input to
    /// the model input of its name): the same kind of feature; for multi-arrays the same data type
    /// and rank, and the same shape unless either is flexible; for images the same size and colour
    /// space; for dictionaries the same key type. Whether either is optional does not matter.
    public func isCompatible(with other: CoreML_Specification_FeatureType) -> Bool {
        switch (type, other.type) {
        case (.multiArrayType(let a)?, .multiArrayType(let b)?):
            guard a.dataType == b.dataType, a.declaredRank == b.declaredRank else { return false }
            return a.shapeFlexibility != nil || b.shapeFlexibility != nil || a.shape == b.shape
        case (.imageType(let a)?, .imageType(let b)?):
            return a.width == b.width && a.height == b.height && a.colorSpace == b.colorSpace
        case (.dictionaryType(let a)?, .dictionaryType(let b)?):
            switch (a.keyType, b.keyType) {
            case (.int64KeyType?, .int64KeyType?), (.stringKeyType?, .stringKeyType?), (nil, nil): return true
            default: return false
            }
        case (.sequenceType(let a)?, .sequenceType(let b)?):
            switch (a.type, b.type) {
            case (.int64Type?, .int64Type?), (.stringType?, .stringType?), (nil, nil): return true
            default: return false
            }
        case (.int64Type?, .int64Type?), (.doubleType?, .doubleType?), (.stringType?, .stringType?), (nil, nil):
            return true
        default:
            return false
        }
    }
}

extension CoreML_Specification_ArrayFeatureType {
    /// The number of dimensions: of the first enumerated shape, of the shape range, or of the shape.
    var declaredRank: Int {
        switch shapeFlexibility {
        case .enumeratedShapes(let shapes)?: return shapes.shapes.first?.shape.count ?? 0
        case .shapeRange(let ranges)?: return ranges.sizeRanges.count
        case nil: return shape.count
        }
    }
}

extension CoreML_Specification_ArrayFeatureType.ArrayDataType {
    /// The data type's name as Xcode shows it: `Float32`, `Double`, `Float16`, `Int32`, `Int8`;
    /// `invalid` for a missing or unknown one.
    public var displayName: String {
        switch self {
        case .float32: return "Float32"
        case .double: return "Double"
        case .float16: return "Float16"
        case .int32: return "Int32"
        case .int8: return "Int8"
        default: return "invalid"
        }
    }
}
