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

    /// Checks an array from the server before any of its values is read: a readable `.npy` header,
    /// a floating-point element type (float16, float32 or float64; the model's float32 takes any of
    /// them) that is the one the Array's `dtype` says, the shape the Array says, and exactly the
    /// bytes that shape needs. A header claiming more values than memory holds costs nothing.
    /// - Throws: ``FlowerClientError/badInstruction(_:)`` naming the array (`name`) and what is wrong.
    static func check(_ array: FlowerArray, name: String) throws {
        let header: NPYFile.Header
        do {
            header = try NPYFile.header(array.data, path: "npy data")
        } catch {
            throw FlowerClientError.badInstruction("array '\(name)': \(error)")
        }
        guard header.type.isFloatingPoint else {
            throw FlowerClientError.badInstruction("array '\(name)' holds \(header.type.numpyName) values ('\(header.descr)'); the model's weights take float32, float16 or float64")
        }
        guard header.type.numpyName == array.dtype else {
            throw FlowerClientError.badInstruction("array '\(name)' says dtype \(array.dtype) but its .npy data is \(header.type.numpyName) ('\(header.descr)')")
        }
        guard header.shape == array.shape else {
            throw FlowerClientError.badInstruction("array '\(name)' has shape \(array.shape) but its .npy header says \(header.shape)")
        }
        let available = array.data.count - header.dataOffset
        guard let needed = header.dataCount, available == needed else {
            throw FlowerClientError.badInstruction("array '\(name)' has \(available) bytes of .npy data; shape \(header.shape) of \(header.type.numpyName) needs \(header.dataCount.map(String.init) ?? "more than memory holds")")
        }
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
        // Any other layout NPYFile reads (float16/float64, another header padding; a client checks
        // arrays with `check(_:name:)` first, which refuses integer dtypes): FedAvg's mean of such
        // arrays is float anyway, so a well-formed vector of the right length is accepted.
        let (values, shape) = try NPYFile.read(data, path: "npy data")
        guard shape.count == 1, shape[0] == count else {
            throw FormatError("npy data", "shape \(shape); expected [\(count)]")
        }
        return try finite(values).map(Float.init).withUnsafeBufferPointer(body)
    }
}
