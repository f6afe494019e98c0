import CoreMLSpec

extension CoreML_Specification_WeightParams {
    /// The weights as float32 whatever their storage: float32, float16, or quantized raw bytes
    /// (linear or look-up-table quantization, 1–8 bits).
    func floatValues(location: String) throws -> [Float] {
        switch storage {
        case .empty:
            return []
        case .float32:
            return floatValue
        case .float16:
            let bytes = [UInt8](float16Value)
            return stride(from: 0, to: bytes.count - 1, by: 2).map {
                HalfPrecision.float(fromBits: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
            }
        case .int8:
            return try dequantize([UInt8](int8RawValue).map { Int(Int8(bitPattern: $0)) }, location: location)
        case .raw:
            let bytes = [UInt8](rawValue)
            guard hasQuantization else {
                // Unquantized raw bytes hold little-endian float32 values.
                return stride(from: 0, to: bytes.count - 3, by: 4).map {
                    Float(bitPattern: UInt32(bytes[$0]) | UInt32(bytes[$0 + 1]) << 8 | UInt32(bytes[$0 + 2]) << 16 | UInt32(bytes[$0 + 3]) << 24)
                }
            }
            let bits = Int(quantization.numberOfBits)
            guard (1...8).contains(bits) else {
                throw EngineError(location, "quantized with \(bits) bits; 1 to 8 are supported")
            }
            let total = bytes.count * 8 / bits
            var codes = [Int](repeating: 0, count: total)
            for index in 0..<total {
                var code = 0
                for bit in 0..<bits {
                    let position = index * bits + bit
                    // Bits are packed most-significant first within each byte.
                    if bytes[position / 8] & (0x80 >> (position % 8)) != 0 { code |= 1 << (bits - 1 - bit) }
                }
                codes[index] = code
            }
            return try dequantize(codes, location: location)
        }
    }

    private func dequantize(_ codes: [Int], location: String) throws -> [Float] {
        switch quantization.quantizationType {
        case .linearQuantization(let linear)?:
            let scales = linear.scale, biases = linear.bias
            guard !scales.isEmpty else { throw EngineError(location, "linear quantization without a scale") }
            let channels = scales.count
            let perChannel = max(1, codes.count / channels)
            return codes.indices.map { index in
                let channel = min(index / perChannel, channels - 1)
                let bias = biases.isEmpty ? 0 : biases[min(channel, biases.count - 1)]
                return Float(codes[index]) * scales[channel] + bias
            }
        case .lookupTableQuantization(let table)?:
            let values = table.floatValue
            return try codes.map { code in
                guard code >= 0, code < values.count else {
                    throw EngineError(location, "quantization code \(code) outside the look-up table of \(values.count)")
                }
                return values[code]
            }
        case nil:
            // int8 weights without parameters: the codes themselves.
            return codes.map(Float.init)
        }
    }
}
