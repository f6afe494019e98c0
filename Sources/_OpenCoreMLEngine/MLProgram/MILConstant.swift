import CoreMLSpec
import Foundation

/// A value known when the program is compiled: a numeric tensor or strings (pad types, dtypes).
package enum MILConstant: Sendable {
    case tensor(MILTensor)
    case strings([String])

    /// Decodes an immediate tensor value of its declared type.
    ///
    /// - Parameter limit: the most values it may hold.
    /// - Throws: `EngineError` for blob file values (inline them first), non-tensor values,
    ///   unknown or unsupported data types, a value count the shape does not match, or more
    ///   values than `limit` (checked before any is decoded).
    init(_ value: CoreML_Specification_MILSpec_Value, at place: String, limit: Int = Int(Int32.max)) throws {
        guard case .immediateValue(let immediate)? = value.value else {
            throw EngineError("\(place): a value stored in a blob file (load the model from its .mlpackage)")
        }
        guard case .tensor(let tensor)? = immediate.value else {
            throw EngineError("\(place): only tensor values are supported, not \(String(describing: immediate.value))")
        }
        let type = value.type.tensorType
        var shape: [Int] = []
        for dimension in type.dimensions {
            guard case .constant(let constant)? = dimension.dimension, constant.size <= UInt64(Int32.max) else {
                throw EngineError("\(place): a constant with an unknown or huge dimension")
            }
            shape.append(Int(constant.size))
        }
        let expected = try MILTensor.checkedCount(shape, limit: min(limit, Int(Int32.max)), place)
        let values: [Float]
        switch tensor.value {
        case .floats(let floats)?: values = floats.values
        case .doubles(let doubles)?: values = doubles.values.map { Float($0) }
        case .ints(let ints)?: values = ints.values.map { Float($0) }
        case .longInts(let longs)?: values = longs.values.map { Float($0) }
        case .bools(let bools)?: values = bools.values.map { $0 ? 1 : 0 }
        case .strings(let strings)?:
            self = .strings(strings.values)
            return
        case .bytes(let bytes)?: values = try Self.decode(bytes.values, type.dataType, count: expected, at: place)
        case nil: values = []
        }
        guard values.count == expected else {
            throw EngineError("\(place): \(values.count) values for shape \(shape)")
        }
        self = .tensor(MILTensor(shape: shape, values: values))
    }

    /// `count` raw values of `type` (laid out as in a weight file: little-endian, sub-byte types
    /// packed LSB-first) as Float.
    static func decode(_ data: Data, _ type: CoreML_Specification_MILSpec_DataType, count: Int, at place: String) throws -> [Float] {
        guard let stored = MILBlobFile.DataType(type) else {
            throw EngineError("\(place): values of type \(type) are not supported yet")
        }
        guard let values = stored.floats(from: data, count: count) else {
            throw EngineError("\(place): \(data.count) bytes of \(stored) values; \(count) values take \(stored.byteCount(for: count).map(String.init) ?? "too many")")
        }
        return values
    }

    var tensor: MILTensor? { if case .tensor(let tensor) = self { return tensor } else { return nil } }
}
