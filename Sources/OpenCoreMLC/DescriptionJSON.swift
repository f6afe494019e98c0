import CoreMLSpec
import Foundation

/// A model's description as the JSON object `ocm_model_description_json` documents. Every string
/// from the model goes through `JSONSerialization`, so it lands escaped.
enum DescriptionJSON {
    static func text(of model: CoreML_Specification_Model) throws -> String {
        let description = model.description_p
        let metadata = description.metadata
        let object: [String: Any] = [
            "specificationVersion": Int(model.specificationVersion),
            "modelType": model.type.map { Mirror(reflecting: $0).children.first?.label ?? "unknown" } ?? NSNull(),
            "isUpdatable": model.isUpdatable,
            "inputs": description.input.map(feature),
            "outputs": description.output.map(feature),
            "states": description.state.map(feature),
            "predictedFeatureName": nullable(description.predictedFeatureName),
            "predictedProbabilitiesName": nullable(description.predictedProbabilitiesName),
            "classLabels": classLabels(model) ?? NSNull(),
            "metadata": [
                "author": metadata.author, "license": metadata.license, "shortDescription": metadata.shortDescription,
                "version": metadata.versionString, "userDefined": metadata.userDefined,
            ] as [String: Any],
        ]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private static func nullable(_ text: String) -> Any { text.isEmpty ? NSNull() : text }

    /// A classifier's labels (strings or integers), nil for other models.
    private static func classLabels(_ model: CoreML_Specification_Model) -> [Any]? {
        switch model.classLabelSet {
        case .strings(let labels): return labels
        case .int64s(let labels): return labels.map { Int($0) }
        case .none: return nil
        }
    }

    private static func feature(_ feature: CoreML_Specification_FeatureDescription) -> [String: Any] {
        var object: [String: Any] = [
            "name": feature.name, "optional": feature.type.isOptional, "shortDescription": feature.shortDescription,
        ]
        switch feature.type.type {
        case .int64Type?: object["type"] = "int64"
        case .doubleType?: object["type"] = "double"
        case .stringType?: object["type"] = "string"
        case .multiArrayType(let array)?:
            object["type"] = "multiArray"
            object.merge(self.array(array)) { $1 }
        case .stateType(let state)?:
            object["type"] = "state"
            object.merge(self.array(state.arrayType)) { $1 }
        case .imageType(let image)?:
            object["type"] = "image"
            object["width"] = Int(image.width)
            object["height"] = Int(image.height)
            switch image.colorSpace {
            case .grayscale: object["colorSpace"] = "GRAYSCALE"
            case .bgr: object["colorSpace"] = "BGR"
            case .grayscaleFloat16: object["colorSpace"] = "GRAYSCALE_FLOAT16"
            default: object["colorSpace"] = "RGB"
            }
            switch image.sizeFlexibility {
            case .enumeratedSizes(let sizes)?:
                object["sizeFlexibility"] = ["kind": "enumerated", "sizes": sizes.sizes.map { [Int($0.width), Int($0.height)] }] as [String: Any]
            case .imageSizeRange(let range)?:
                object["sizeFlexibility"] = ["kind": "range", "width": bounds(range.widthRange), "height": bounds(range.heightRange)] as [String: Any]
            case nil: object["sizeFlexibility"] = NSNull()
            }
        case .dictionaryType(let dictionary)?:
            object["type"] = "dictionary"
            if case .stringKeyType? = dictionary.keyType { object["keyType"] = "string" } else { object["keyType"] = "int64" }
        case .sequenceType(let sequence)?:
            object["type"] = "sequence"
            if case .stringType? = sequence.type { object["elementType"] = "string" } else { object["elementType"] = "int64" }
            object["countRange"] = bounds(sequence.sizeRange)
        case nil: object["type"] = "invalid"
        }
        return object
    }

    private static func array(_ array: CoreML_Specification_ArrayFeatureType) -> [String: Any] {
        var object: [String: Any] = ["dataType": dataTypeName(array.dataType), "shape": array.shape.map { Int($0) }]
        switch array.shapeFlexibility {
        case .enumeratedShapes(let shapes)?:
            object["shapeFlexibility"] = ["kind": "enumerated", "shapes": shapes.shapes.map { $0.shape.map { Int($0) } }] as [String: Any]
        case .shapeRange(let ranges)?:
            object["shapeFlexibility"] = ["kind": "range", "ranges": ranges.sizeRanges.map(bounds)] as [String: Any]
        case nil: object["shapeFlexibility"] = NSNull()
        }
        return object
    }

    /// `[lower, upper]`, upper -1 when unbounded.
    private static func bounds(_ range: CoreML_Specification_SizeRange) -> [Int] {
        [Int(range.lowerBound), range.upperBound < 0 ? -1 : Int(range.upperBound)]
    }

    private static func dataTypeName(_ type: CoreML_Specification_ArrayFeatureType.ArrayDataType) -> String {
        switch type {
        case .float32: return "float32"
        case .double: return "float64"
        case .float16: return "float16"
        case .int32: return "int32"
        case .int8: return "int8"
        default: return "invalid"
        }
    }
}
