import CoreMLSpec

extension ClassLabelSet {
    /// The dictionary key of class `index`.
    func key(at index: Int) -> AnyHashable {
        switch self {
        case .strings(let labels): return AnyHashable(labels[index])
        case .int64s(let labels): return AnyHashable(labels[index])
        case .none: return AnyHashable(Int64(index))
        }
    }

    /// Every class's dictionary key, in class order.
    var keys: [AnyHashable] { (0..<count).map(key(at:)) }

    /// The predicted-label feature value of class `index`.
    func featureValue(at index: Int) -> MLFeatureValue {
        switch self {
        case .strings(let labels): return MLFeatureValue(string: labels[index])
        case .int64s(let labels): return MLFeatureValue(int64: labels[index])
        case .none: return MLFeatureValue(int64: Int64(index))
        }
    }

    /// The class index of a label feature value, if it names one of the classes.
    func index(of value: MLFeatureValue) -> Int? {
        switch self {
        case .strings(let labels): return value.type == .string ? labels.firstIndex(of: value.stringValue) : nil
        case .int64s(let labels): return value.type == .int64 ? labels.firstIndex(of: value.int64Value) : nil
        case .none: return nil
        }
    }
}
