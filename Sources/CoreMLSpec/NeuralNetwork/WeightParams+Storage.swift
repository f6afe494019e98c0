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
            guard let bits = codeBits, bits > 0 else { return 0 }
            return rawValue.count * 8 / bits
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
        guard let bits = codeBits, bits > 0, let totalBits = checkedProduct([expected, bits]) else { return false }
        return rawValue.count >= totalBits / 8 + (totalBits % 8 == 0 ? 0 : 1)
    }

    /// The bits one raw value takes: 32 for unquantized float32 bytes, else the quantization's
    /// `numberOfBits`; nil when that does not fit the supported 1 to 8 bits' arithmetic (past
    /// `Int32.max`, or `UInt64`'s top half, which a corrupt file may hold).
    public var codeBits: Int? {
        hasQuantization ? checkedSize(quantization.numberOfBits, limit: Int(Int32.max)) : 32
    }
}
