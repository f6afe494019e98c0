import Foundation
import Testing
@testable import _OpenCoreMLFormats

struct NPYFileTests {
    /// Every element type round-trips: bytes written for a shape read back as the same values.
    @Test(arguments: NPYFile.ElementType.allCases)
    func roundTrip(_ type: NPYFile.ElementType) throws {
        let values: [Double] = [0, 1, -2, 3, 100, -7]
        let shape = [2, 3]
        var bytes: [UInt8] = []
        for value in values {
            switch type {
            case .float16:
                // Small integers are exact in half precision: sign, exponent and mantissa by hand.
                let halves: [Double: UInt16] = [0: 0x0000, 1: 0x3C00, -2: 0xC000, 3: 0x4200, 100: 0x5640, -7: 0xC700]
                withUnsafeBytes(of: halves[value]!.littleEndian) { bytes += $0 }
            case .float32: withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { bytes += $0 }
            case .float64: withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
            case .int32: withUnsafeBytes(of: Int32(value).littleEndian) { bytes += $0 }
            case .int64: withUnsafeBytes(of: Int64(value).littleEndian) { bytes += $0 }
            case .int8: bytes.append(UInt8(bitPattern: Int8(value)))
            case .uint8: bytes.append(UInt8(bitPattern: Int8(value)))
            }
        }
        let data = bytes.withUnsafeBytes { NPYFile.data(type: type, shape: shape, elements: $0) }
        // NumPy's layout: the data starts at a multiple of 64 bytes, after a newline.
        let headerEnd = 10 + Int(data[8]) + Int(data[9]) << 8
        #expect(headerEnd % 64 == 0 && data[headerEnd - 1] == 0x0A)
        let (read, readShape) = try NPYFile.read(data, path: "a.npy")
        #expect(readShape == shape)
        let expected = type == .uint8 ? values.map { $0 < 0 ? $0 + 256 : $0 } : values
        #expect(read == expected)
    }

    @Test func halfPrecisionCoversSubnormalsInfinitiesAndNaN() {
        #expect(NPYFile.float(half: 0x0001) == 0x1p-24)  // the smallest subnormal
        #expect(NPYFile.float(half: 0x03FF) == 1023 * 0x1p-24)  // the largest subnormal
        #expect(NPYFile.float(half: 0x7BFF) == 65504)  // the largest normal
        #expect(NPYFile.float(half: 0x8000).sign == .minus && NPYFile.float(half: 0x8000) == 0)
        #expect(NPYFile.float(half: 0x7C00) == .infinity && NPYFile.float(half: 0xFC00) == -.infinity)
        #expect(NPYFile.float(half: 0x7E00).isNaN)
        #expect(NPYFile.float(half: 0x3555) == 0.333251953125)  // 1365/4096
    }

    @Test func badFilesAreNamedNotTrapped() throws {
        func message(_ bytes: [UInt8]) -> String {
            do { _ = try NPYFile.read(Data(bytes), path: "x.npy"); return "no error" } catch { return error.description }
        }
        let good = [Float(1), 2].withUnsafeBytes { NPYFile.data(type: .float32, shape: [2], elements: $0) }
        #expect(message([1, 2, 3]).contains("not a .npy file"))
        #expect(message(Array(good.dropLast(1))).contains("truncated .npy data"))
        #expect(message(Array(good) + [0]).contains("1 unexpected bytes"))
        var version = Array(good)
        version[6] = 9
        #expect(message(version).contains("format version 9.0 is not supported"))
        // 'fortran_order': False → True (padded to the same length), byte for byte.
        var fortran = Array(good)
        let at = try #require((0..<fortran.count - 5).first { Array(fortran[$0..<($0 + 5)]) == Array("False".utf8) })
        fortran.replaceSubrange(at..<(at + 5), with: Array("True ".utf8))
        #expect(message(fortran).contains("Fortran-order"))
    }
}
