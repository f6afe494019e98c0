import Foundation

/// A layer or weight blob that breaks a rule of its layer type: inputs of shapes the layer cannot
/// take, or values that cannot be decoded.
///
/// The message says what is wrong; the caller adds where (the layer, the blob).
public struct LayerSpecificationError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

extension CoreML_Specification_WeightParams {
    /// The values as float32, whatever their storage: float32, little-endian half precision,
    /// unquantized raw float32 bytes, or quantized codes (1 to 8 bits, linear or look-up table).
    ///
    /// This is the one decoder of stored weights. `count` is how many values the layer expects:
    /// codes packed in fewer than 8 bits may end in padding bits, which it cuts off (without it,
    /// every whole code the bytes hold is decoded). Throws when the quantization cannot be read.
    public func floatValues(count: Int? = nil) throws -> [Float] {
        switch storage {
        case .empty:
            return []
        case .float32:
            return floatValue
        case .float16:
            return HalfPrecision.floats(fromLittleEndian: float16Value)
        case .int8:
            return try dequantize([UInt8](int8RawValue).map { Int(Int8(bitPattern: $0)) })
        case .raw:
            let bytes = [UInt8](rawValue)
            guard hasQuantization else {
                // Unquantized raw bytes hold little-endian float32 values.
                return stride(from: 0, to: bytes.count - 3, by: 4).map {
                    Float(bitPattern: UInt32(bytes[$0]) | UInt32(bytes[$0 + 1]) << 8 | UInt32(bytes[$0 + 2]) << 16 | UInt32(bytes[$0 + 3]) << 24)
                }
            }
            guard let bits = codeBits, (1...8).contains(bits) else {
                throw LayerSpecificationError("quantized with \(quantization.numberOfBits) bits; 1 to 8 are supported")
            }
            let available = bytes.count * 8 / bits
            if let count, count > available {
                throw LayerSpecificationError("\(bytes.count) bytes hold \(available) codes of \(bits) bits; \(count) are needed")
            }
            let total = count ?? available
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
            return try dequantize(codes)
        }
    }

    private func dequantize(_ codes: [Int]) throws -> [Float] {
        switch quantization.quantizationType {
        case .linearQuantization(let linear)?:
            let scales = linear.scale, biases = linear.bias
            guard !scales.isEmpty else { throw LayerSpecificationError("linear quantization without a scale") }
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
                    throw LayerSpecificationError("quantization code \(code) outside the look-up table of \(values.count)")
                }
                return values[code]
            }
        case nil:
            // int8 weights without parameters: the codes themselves.
            return codes.map(Float.init)
        }
    }
}
