/// The kind of a feature, without its details (shape, key type, …): what Core ML's validators of
/// the classic model types check a model's inputs and outputs against.
enum FeatureKind: String, Sendable {
    case int64 = "Int64"
    case double = "Double"
    case string = "String"
    case multiArray = "multi-array"
    case dictionary = "dictionary"
    case image = "image"
    case sequence = "sequence"
    case state = "state"

    init?(_ type: CoreML_Specification_FeatureType) {
        switch type.type {
        case .int64Type?: self = .int64
        case .doubleType?: self = .double
        case .stringType?: self = .string
        case .multiArrayType?: self = .multiArray
        case .dictionaryType?: self = .dictionary
        case .imageType?: self = .image
        case .sequenceType?: self = .sequence
        case .stateType?: self = .state
        case nil: return nil
        }
    }
}

extension ValidationContext {
    /// Core ML's rule for the interface of a classic model: at most `limit` features of the `kind`
    /// ("input", "output"), when a limit is given, each of one of the `allowed` kinds. Returns
    /// whether the rule holds, so callers can skip the checks that depend on it.
    @discardableResult
    mutating func checkFeatures(_ features: [CoreML_Specification_FeatureDescription], kind: String, limit: Int?,
                                allowed: [FeatureKind], model: String) -> Bool {
        var holds = true
        if let limit, features.count > limit {
            fail("\(model) takes \(limit == 1 ? "one \(kind)" : "at most \(limit) \(kind)s"); this one has \(features.count)")
            holds = false
        }
        for feature in features {
            if let found = FeatureKind(feature.type), allowed.contains(found) { continue }
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            fail("\(model) takes \(names) \(kind)s, not \(feature.type.summary)", at: "\(kind) '\(feature.name)'")
            holds = false
        }
        return holds
    }
}
