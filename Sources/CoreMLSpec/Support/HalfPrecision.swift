import Foundation

/// IEEE 754 half-precision conversion, so `.float16` arrays work where Swift's `Float16` is unavailable.
package enum HalfPrecision {
    /// The value of the half-precision bit pattern `bits`: subnormals, infinities and NaN included.
    package static func float(fromBits bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = Int((bits >> 10) & 0x1F)
        let mantissa = UInt32(bits & 0x3FF)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa · 2^-24.
            let magnitude = Float(mantissa) * 0x1p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13))
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
        }
    }

    /// The half-precision bit pattern nearest to `value`: rounds to nearest, ties to even; overflows
    /// to infinity.
    package static func bits(from value: Float) -> UInt16 {
        let pattern = value.bitPattern
        let sign = UInt16((pattern >> 16) & 0x8000)
        if value.isNaN { return sign | 0x7E00 }
        let magnitude = abs(value)
        if magnitude >= 65520 { return sign | 0x7C00 }
        if magnitude < 0x1p-14 {
            // Subnormal half: round magnitude / 2^-24 to an integer.
            return sign | UInt16((magnitude * 0x1p24).rounded(.toNearestOrEven))
        }
        let exponent = Int((pattern >> 23) & 0xFF) - 127 + 15
        var mantissa = pattern & 0x7F_FFFF
        var half = UInt32(exponent) << 10 | (mantissa >> 13)
        mantissa &= 0x1FFF
        if mantissa > 0x1000 || (mantissa == 0x1000 && half & 1 == 1) { half += 1 }
        return sign | UInt16(half)
    }
}

extension HalfPrecision {
    /// Decodes little-endian half-precision values, two bytes each, as `WeightParams.float16Value`
    /// stores them; a trailing odd byte is ignored.
    package static func floats(fromLittleEndian bytes: Data) -> [Float] {
        bytes.withUnsafeBytes { raw in
            (0..<raw.count / 2).map { float(fromBits: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self))) }
        }
    }
}
