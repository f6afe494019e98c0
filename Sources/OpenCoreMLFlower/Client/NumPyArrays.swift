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
}
