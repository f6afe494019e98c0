import CoreMLSpec
import Foundation
import Testing

/// Decoding the values a weight file or an immediate byte value holds, for every blob type: bit
/// patterns worked out by hand from the formats' definitions.
@Suite("ML Program blob values")
struct MLProgramBlobValueTests {
    static func decode(_ type: MILBlobFile.DataType, _ bytes: [UInt8], count: Int) -> [Float]? {
        type.floats(from: Data(bytes), count: count)
    }

    @Test func subByteTypesArePackedLeastSignificantBitFirst() {
        // uint1: 1, 0, 1, 1, 0, 0, 0, 0, 1 → 0b0000_1101, 0b1.
        #expect(Self.decode(.uint1, [0b0000_1101, 0b1], count: 9) == [1, 0, 1, 1, 0, 0, 0, 0, 1])
        // uint2: 3, 0, 2, 1 → 0b01_10_00_11.
        #expect(Self.decode(.uint2, [0b0110_0011], count: 4) == [3, 0, 2, 1])
        // uint3: 5, 2, 7 — bits 101 010 111 → 0b11_010_101, 0b1 (the 7 crosses the byte boundary).
        #expect(Self.decode(.uint3, [0b1101_0101, 0b1], count: 3) == [5, 2, 7])
        // uint4: 0xA, 0x3, 0xF.
        #expect(Self.decode(.uint4, [0x3A, 0x0F], count: 3) == [10, 3, 15])
        // uint6: 63, 1 → 0b01_111111, 0b0000.
        #expect(Self.decode(.uint6, [0b0111_1111, 0b0000], count: 2) == [63, 1])
        // int4 in two's complement: -8, 7, -1, 0.
        #expect(Self.decode(.int4, [0x78, 0x0F], count: 4) == [-8, 7, -1, 0])
    }

    @Test func wholeByteTypes() {
        #expect(Self.decode(.int8, [0xFF, 0x80, 0x7F], count: 3) == [-1, -128, 127])
        #expect(Self.decode(.uint16, [0x34, 0x12], count: 1) == [0x1234])
        #expect(Self.decode(.int16, [0xFE, 0xFF], count: 1) == [-2])
        #expect(Self.decode(.int32, [0xFF, 0xFF, 0xFF, 0xFF], count: 1) == [-1])
        #expect(Self.decode(.uint32, [0x00, 0x00, 0x01, 0x00], count: 1) == [65536])
        #expect(Self.decode(.float32, [0x00, 0x00, 0xC0, 0x3F], count: 1) == [1.5])
        #expect(Self.decode(.float16, [0x00, 0xBC], count: 1) == [-1])
        // bfloat16 0x4049 is the top half of float32 0x40490000 (3.140625).
        #expect(Self.decode(.bfloat16, [0x49, 0x40], count: 1) == [3.140625])
    }

    @Test func float8Formats() throws {
        // E4M3FN: 0x38 = 1.0, 0xC4 = -3.0 (exponent 8, mantissa 4/8), 0x7E = 448 (the largest),
        // 0x01 = 2⁻⁹ (subnormal), 0x7F is NaN.
        let e4m3 = try #require(Self.decode(.float8E4M3FN, [0x38, 0xC4, 0x7E, 0x01, 0x7F], count: 5))
        #expect(Array(e4m3.prefix(4)) == [1, -3, 448, 1.0 / 512] && e4m3[4].isNaN)
        // E5M2: 0x3C = 1.0, 0xC2 = -3.0, 0x7C = +infinity.
        #expect(Self.decode(.float8E5M2, [0x3C, 0xC2, 0x7C], count: 3) == [1, -3, .infinity])
    }

    @Test func aByteCountThatDoesNotFitIsRefused() {
        #expect(Self.decode(.uint3, [0xFF], count: 3) == nil)      // 9 bits need 2 bytes
        #expect(Self.decode(.uint4, [0xFF, 0xFF], count: 3) != nil)  // 12 bits need 2 bytes
        #expect(Self.decode(.uint4, [0xFF, 0xFF, 0xFF], count: 3) == nil)
        #expect(Self.decode(.float32, [0, 0, 0], count: 1) == nil)
        #expect(MILBlobFile.DataType.uint1.byteCount(for: Int.max) == nil)
        #expect(MILBlobFile.DataType.uint6.byteCount(for: 5) == 4)
    }
}
