import Foundation
import OpenCoreML
import _OpenCoreMLFormats

/// A model's arrays as the `.npy` bytes Flower exchanges (float32, C order, as `numpy.save`
/// writes them), and back.
enum NumPyArrays {
    /// `array`'s values as float32 `.npy` bytes in its shape.
    static func data(of array: MLMultiArray) -> Data {
        let values = array.floatValues().map { $0.bitPattern.littleEndian }
        return values.withUnsafeBytes { NPYFile.data(type: .float32, shape: array.shape.map(\.intValue), elements: $0) }
    }

    /// The `.npy` header `numpy.save` writes for a float32 array of `shape` (the bytes before its
    /// values).
    static func float32Header(shape: [Int]) -> Data {
        NPYFile.data(type: .float32, shape: shape, elements: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// A float32 array with the values and shape of `.npy` bytes (any element type the reader
    /// takes); every value must be finite.
    static func multiArray(_ data: Data) throws -> MLMultiArray {
        let (values, shape) = try NPYFile.read(data, path: "npy data")
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw FormatError("npy data", "value \(bad) is \(values[bad])")
        }
        let array = try MLMultiArray(shape: (shape.isEmpty ? [1] : shape).map { NSNumber(value: $0) }, dataType: .float32)
        let pointer = array.dataPointer.assumingMemoryBound(to: Float.self)
        for (index, value) in values.enumerated() { pointer[index] = Float(value) }
        return array
    }

    /// The float32 values of `.npy` bytes holding a 1-D array of `count` values, read straight
    /// from the bytes when they are laid out as `numpy.save` writes float32 (one pass, no
    /// intermediate array), else through the general reader (other element types, other header
    /// layouts). `body` gets the values; every value must be finite.
    static func withFloat32Values<Result>(_ data: Data, count: Int, _ body: (UnsafeBufferPointer<Float>) throws -> Result) throws -> Result {
        func finite<C: Collection>(_ values: C) throws -> C where C.Element: BinaryFloatingPoint, C.Index == Int {
            if let bad = values.firstIndex(where: { !$0.isFinite }) { throw FormatError("npy data", "value \(bad) is \(values[bad])") }
            return values
        }
        let header = float32Header(shape: [count])
        if data.count == header.count + 4 * count, data.starts(with: header) {
            return try data.withUnsafeBytes { raw in
                let bytes = UnsafeRawBufferPointer(rebasing: raw[header.count...])
                // The header says little-endian ('<f4'): the bytes are the host's Floats only on a
                // little-endian host; elsewhere the byte-swapping read below.
                #if _endian(little)
                if let aligned = bytes.baseAddress, Int(bitPattern: aligned) % MemoryLayout<Float>.alignment == 0 {
                    return try body(finite(UnsafeBufferPointer(start: aligned.assumingMemoryBound(to: Float.self), count: count)))
                }
                #endif
                let values = (0..<count).map { Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
                return try finite(values).withUnsafeBufferPointer(body)
            }
        }
        // Any other layout NPYFile reads (float16/float64, Fortran order, and the integer
        // dtypes, whose values are taken as numbers as NumPy's astype(float32) would): FedAvg's mean
        // of such arrays is float anyway, so a well-formed vector of the right length is accepted.
        let (values, shape) = try NPYFile.read(data, path: "npy data")
        guard shape.count == 1, shape[0] == count else {
            throw FormatError("npy data", "shape \(shape); expected [\(count)]")
        }
        return try finite(values).map(Float.init).withUnsafeBufferPointer(body)
    }
}
