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

extension CoreML_Specification_WeightParams {
    /// How many of the storage fields hold values; Core ML rejects a blob with more than one, as it
    /// cannot tell which to read.
    public var filledStorageCount: Int {
        [!floatValue.isEmpty, !float16Value.isEmpty, !rawValue.isEmpty, !int8RawValue.isEmpty].filter { $0 }.count
    }

    /// Whether the storage holds `expected` values: exactly that many, or, for codes packed in
    /// fewer than 8 bits, enough bytes for them (as Core ML checks: the last byte may end in
    /// padding bits).
    public func holds(_ expected: Int) -> Bool {
        guard storage == .raw, hasQuantization else { return count == expected }
        let bits = Int(quantization.numberOfBits)
        let (totalBits, overflow) = expected.multipliedReportingOverflow(by: bits)
        return !overflow && bits > 0 && rawValue.count >= totalBits / 8 + (totalBits % 8 == 0 ? 0 : 1)
    }
}
