import CoreMLSpec

extension CoreML_Specification_FeatureType {
    /// A short description for error messages: `multi-array float32 [1, 28, 28]`, `String`, …
    var summary: String {
        switch type {
        case .multiArrayType(let array)?:
            let data: String
            switch array.dataType {
            case .float32: data = "float32"
            case .double: data = "double"
            case .int32: data = "int32"
            case .float16: data = "float16"
            default: data = "unknown type"
            }
            return "multi-array \(data) \(array.shape)"
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

    /// Whether a value of this type can be passed where `other` is expected (optionality aside).
    func connects(to other: CoreML_Specification_FeatureType) -> Bool {
        var a = self, b = other
        a.isOptional = false
        b.isOptional = false
        return a == b
    }
}
