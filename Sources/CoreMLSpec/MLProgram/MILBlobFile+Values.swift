import Foundation

extension MILBlobFile.DataType {
    /// Whether values of this type are signed integers (`int4`, `int8`, `int16`, `int32`).
    package var isSignedInteger: Bool { self == .int4 || self == .int8 || self == .int16 || self == .int32 }

    /// The bytes `count` values take: whole bytes for sub-byte types, whose last byte may hold
    /// unused bits; nil when the count is negative or the size overflows.
    package func byteCount(for count: Int) -> Int? {
        guard count >= 0 else { return nil }
        let (bitCount, overflow) = count.multipliedReportingOverflow(by: bits)
        let (rounded, overflowAgain) = bitCount.addingReportingOverflow(7)
        return overflow || overflowAgain ? nil : rounded / 8
    }

    /// `count` values of this type decoded from `data` as Float.
    ///
    /// The layout is the one weight files and MIL's immediate byte values share: little-endian;
    /// sub-byte types (int4, uint1/2/3/4/6) packed one after another from the least significant
    /// bit of the first byte up, a value that crosses a byte boundary continuing in the next byte's
    /// low bits; int4 in two's complement. float16, bfloat16 and the two float8 formats are widened
    /// exactly.
    ///
    /// - Returns: nil when `data` does not hold exactly ``byteCount(for:)`` bytes.
    package func floats(from data: Data, count: Int) -> [Float]? {
        guard let size = byteCount(for: count), data.count == size else { return nil }
        let bytes = [UInt8](data)
        switch self {
        case .float32:
            return (0..<count).map { Float(bitPattern: Self.littleEndian(bytes, at: 4 * $0, width: 4)) }
        case .float16:
            return HalfPrecision.floats(fromLittleEndian: data)
        case .bfloat16:
            return (0..<count).map { Float(bitPattern: Self.littleEndian(bytes, at: 2 * $0, width: 2) << 16) }
        case .float8E5M2:
            // The high byte of a float16 with the same sign, exponent and (shorter) mantissa.
            return bytes.map { HalfPrecision.float(fromBits: UInt16($0) << 8) }
        case .float8E4M3FN:
            return bytes.map(Self.float8E4M3FN)
        case .uint8: return bytes.map { Float($0) }
        case .int8: return bytes.map { Float(Int8(bitPattern: $0)) }
        case .uint16: return (0..<count).map { Float(UInt16(Self.littleEndian(bytes, at: 2 * $0, width: 2))) }
        case .int16: return (0..<count).map { Float(Int16(bitPattern: UInt16(Self.littleEndian(bytes, at: 2 * $0, width: 2)))) }
        case .uint32: return (0..<count).map { Float(Self.littleEndian(bytes, at: 4 * $0, width: 4)) }
        case .int32: return (0..<count).map { Float(Int32(bitPattern: Self.littleEndian(bytes, at: 4 * $0, width: 4))) }
        case .int4, .uint1, .uint2, .uint3, .uint4, .uint6:
            return Self.unpack(bytes, count: count, bits: bits, signed: self == .int4).map { Float($0) }
        }
    }

    /// `count` values of `bits` bits each (at most 8) packed LSB-first in `bytes`, sign-extended
    /// when `signed`. The caller checks that `bytes` is long enough.
    package static func unpack(_ bytes: [UInt8], count: Int, bits: Int, signed: Bool) -> [Int] {
        precondition(bits >= 1 && bits <= 8 && bytes.count * 8 >= count * bits, "unpack: \(count) values of \(bits) bits need more than \(bytes.count) bytes")
        let mask = (1 << bits) - 1
        var values = [Int](repeating: 0, count: count)
        for index in 0..<count {
            let bit = index * bits, byte = bit / 8, shift = bit % 8
            var word = Int(bytes[byte])
            if shift + bits > 8 { word |= Int(bytes[byte + 1]) << 8 }
            var value = (word >> shift) & mask
            if signed && value >= 1 << (bits - 1) { value -= 1 << bits }
            values[index] = value
        }
        return values
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt32 {
        (0..<width).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    /// An 8-bit float with 4 exponent bits (bias 7) and 3 mantissa bits, no infinities; the one
    /// NaN pattern is all exponent and mantissa bits set.
    private static func float8E4M3FN(_ byte: UInt8) -> Float {
        let sign: Float = byte & 0x80 != 0 ? -1 : 1
        let exponent = Int(byte >> 3) & 0xF, mantissa = Float(byte & 0x7)
        if exponent == 0xF && byte & 0x7 == 0x7 { return .nan }
        if exponent == 0 { return sign * mantissa / 8 * Float(sign: .plus, exponent: -6, significand: 1) }
        return sign * (1 + mantissa / 8) * Float(sign: .plus, exponent: exponent - 7, significand: 1)
    }
}
