import CoreMLSpec
import Foundation
import _OpenCoreMLKernels

extension MLMultiArray {
    /// Copies the elements, in row-major order and converted to `Float`, to `destination`
    /// (which must hold `count` floats). Contiguous float32, double and int32 arrays take a fast path.
    func copyFloats(to destination: UnsafeMutablePointer<Float>) {
        guard isContiguous else {
            let values = floatValues()
            values.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: count) }
            return
        }
        switch dataType {
        case .float32:
            destination.update(from: dataPointer.assumingMemoryBound(to: Float.self), count: count)
        case .double:
            let source = dataPointer.assumingMemoryBound(to: Double.self)
            for i in 0..<count { destination[i] = Float(source[i]) }
        case .int32:
            let source = dataPointer.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { destination[i] = Float(source[i]) }
        case .float16:
            // The input of an fp16 program: element by element through `floatValues` it cost more than the prediction.
            ocm_half_to_float(dataPointer.assumingMemoryBound(to: UInt16.self), destination, count)
        default:
            let values = floatValues()
            values.withUnsafeBufferPointer { destination.update(from: $0.baseAddress!, count: count) }
        }
    }

    /// A new contiguous array of `shape` and `dataType` holding `values` (row-major).
    static func make(shape: [Int], dataType: MLMultiArrayDataType, values: UnsafePointer<Float>) throws -> MLMultiArray {
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: dataType)
        array.storeFloats(values)
        return array
    }

    /// Overwrites the elements of this contiguous array with `values` (row-major, `count` of
    /// them), each converted to the element type.
    func storeFloats(_ values: UnsafePointer<Float>) {
        switch dataType {
        case .float32:
            dataPointer.assumingMemoryBound(to: Float.self).update(from: values, count: count)
        case .double:
            let target = dataPointer.assumingMemoryBound(to: Double.self)
            for i in 0..<count { target[i] = Double(values[i]) }
        case .float16:
            let target = dataPointer.assumingMemoryBound(to: UInt16.self)
            for i in 0..<count { target[i] = HalfPrecision.bits(from: values[i]) }
        default:
            for i in 0..<count { self[i] = NSNumber(value: values[i]) }
        }
    }
}

extension MLMultiArray {
    /// Copies the elements, in row-major order and converted to `Double`, to `destination`
    /// (which must hold `count` doubles).
    func copyDoubles(to destination: UnsafeMutablePointer<Double>) {
        guard isContiguous else {
            for i in 0..<count { destination[i] = self[i].doubleValue }
            return
        }
        switch dataType {
        case .double:
            destination.update(from: dataPointer.assumingMemoryBound(to: Double.self), count: count)
        case .float32:
            let source = dataPointer.assumingMemoryBound(to: Float.self)
            for i in 0..<count { destination[i] = Double(source[i]) }
        case .int32:
            let source = dataPointer.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { destination[i] = Double(source[i]) }
        default:
            for i in 0..<count { destination[i] = self[i].doubleValue }
        }
    }

    /// A new contiguous array of `shape` and `dataType` holding `values` (row-major).
    static func make(shape: [Int], dataType: MLMultiArrayDataType, doubles values: UnsafePointer<Double>) throws -> MLMultiArray {
        let array = try MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: dataType)
        let count = array.count
        switch dataType {
        case .double:
            array.dataPointer.assumingMemoryBound(to: Double.self).update(from: values, count: count)
        case .float32:
            let target = array.dataPointer.assumingMemoryBound(to: Float.self)
            for i in 0..<count { target[i] = Float(values[i]) }
        default:
            for i in 0..<count { array[i] = NSNumber(value: values[i]) }
        }
        return array
    }
}
