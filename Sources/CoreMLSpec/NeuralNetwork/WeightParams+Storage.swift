extension CoreML_Specification_WeightParams {
    /// How the values are stored in the file.
    public enum Storage: String, Sendable {
        case float32, float16, raw, int8, empty
    }

    /// Which of the storage fields holds the values (the first non-empty one).
    public var storage: Storage {
        if !floatValue.isEmpty { return .float32 }
        if !float16Value.isEmpty { return .float16 }
        if !rawValue.isEmpty { return .raw }
        if !int8RawValue.isEmpty { return .int8 }
        return .empty
    }

    /// Whether the values are quantized (look-up table or linear), which training cannot update.
    public var isQuantized: Bool { hasQuantization || !int8RawValue.isEmpty }

    /// The number of values stored, whatever the storage.
    public var count: Int {
        switch storage {
        case .float32: return floatValue.count
        case .float16: return float16Value.count / 2
        case .int8: return int8RawValue.count
        case .raw:
            let bits = hasQuantization ? Int(quantization.numberOfBits) : 32
            return bits > 0 ? rawValue.count * 8 / bits : 0
        case .empty: return 0
        }
    }
}
