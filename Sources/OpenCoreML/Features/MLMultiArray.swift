import CoreMLSpec
import Foundation

/// A multidimensional array of numbers, the way Core ML passes tensors in and out of models.
///
/// ```swift
/// let image = try MLMultiArray(shape: [1, 28, 28], dataType: .float32)
/// image[[0, 14, 14] as [NSNumber]] = 1
/// image.withUnsafeMutableBufferPointer(ofType: Float.self) { pixels, _ in pixels[0] = 0.5 }
/// ```
///
/// Elements are stored contiguously in row-major order unless the array wraps memory with other
/// strides. Subscripts take and return `NSNumber`, as in Core ML; the typed buffer accessors are the
/// fast path.
public final class MLMultiArray: @unchecked Sendable, CustomStringConvertible {
    /// The size of each dimension, outermost first.
    public let shape: [NSNumber]
    /// For each dimension, how many elements apart in memory two neighbours along it are.
    public let strides: [NSNumber]
    /// The type of the stored elements.
    public let dataType: MLMultiArrayDataType
    /// The number of elements: the product of the shape.
    public let count: Int
    /// The first element. Prefer the `withUnsafe…BufferPointer(ofType:)` methods.
    public let dataPointer: UnsafeMutableRawPointer
    private let deallocator: ((UnsafeMutableRawPointer) -> Void)?

    /// A zero-filled array; throws for an empty shape or a non-positive dimension.
    ///
    /// - Parameters:
    ///   - shape: The size of each dimension, outermost first; every size must be at least 1.
    ///   - dataType: The element type.
    /// - Throws: An ``MLModelError`` for an empty shape or a size below 1.
    public convenience init(shape: [NSNumber], dataType: MLMultiArrayDataType) throws {
        let dimensions = shape.map(\.intValue)
        guard !dimensions.isEmpty, dimensions.allSatisfy({ $0 > 0 }) else {
            throw MLModelError(.generic, "MLMultiArray: invalid shape \(dimensions); every dimension must be positive")
        }
        guard let bytes = checkedProduct(dimensions + [dataType.byteCount]) else {
            throw MLModelError(.generic, "MLMultiArray: " + SizeCheckFailure.product(dimensions, what: "shape"))
        }
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, 1), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        try self.init(
            dataPointer: pointer, shape: shape, dataType: dataType,
            strides: Self.contiguousStrides(dimensions).map { NSNumber(value: $0) },
            deallocator: { $0.deallocate() })
    }

    /// Wraps existing memory with the given strides (in elements). `deallocator` runs when the array
    /// is released; pass nil when the caller keeps ownership.
    public convenience init(
        dataPointer: UnsafeMutableRawPointer, shape: [NSNumber], dataType: MLMultiArrayDataType, strides: [NSNumber],
        deallocator: ((UnsafeMutableRawPointer) -> Void)? = nil
    ) throws {
        try self.init(dataPointer: dataPointer, shape: shape, dataType: dataType, strides: strides, deallocator: deallocator, allowsEmpty: false)
    }

    /// An array with no rows, shape `[0, columns]`: what a suppression model gives when it keeps no
    /// box (Core ML's outputs can have empty dimensions; its `init(shape:dataType:)` cannot make them).
    static func emptyRows(columns: Int, dataType: MLMultiArrayDataType) throws -> MLMultiArray {
        try empty(shape: [0, columns], dataType: dataType)
    }

    /// An array of `shape`, one of whose sizes is 0: it holds no elements.
    static func empty(shape: [Int], dataType: MLMultiArrayDataType) throws -> MLMultiArray {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(dataType.byteCount, 1), alignment: 64)
        return try MLMultiArray(dataPointer: pointer, shape: shape.map { NSNumber(value: $0) }, dataType: dataType,
                                strides: contiguousStrides(shape).map { NSNumber(value: $0) }, deallocator: { $0.deallocate() }, allowsEmpty: true)
    }

    private init(
        dataPointer: UnsafeMutableRawPointer, shape: [NSNumber], dataType: MLMultiArrayDataType, strides: [NSNumber],
        deallocator: ((UnsafeMutableRawPointer) -> Void)?, allowsEmpty: Bool
    ) throws {
        guard shape.count == strides.count, !shape.isEmpty, shape.allSatisfy({ $0.intValue > 0 || (allowsEmpty && $0.intValue == 0) }) else {
            throw MLModelError(.generic, "MLMultiArray: shape \(shape.map(\.intValue)) and strides \(strides.map(\.intValue)) do not fit together")
        }
        guard let count = checkedProduct(shape.map(\.intValue)) else {
            throw MLModelError(.generic, "MLMultiArray: " + SizeCheckFailure.product(shape.map(\.intValue), what: "shape"))
        }
        self.dataPointer = dataPointer
        self.shape = shape
        self.strides = strides
        self.dataType = dataType
        self.count = count
        self.deallocator = deallocator
    }

    deinit { deallocator?(dataPointer) }

    /// Whether the elements lie contiguously in row-major order.
    public var isContiguous: Bool {
        strides.map(\.intValue) == Self.contiguousStrides(shape.map(\.intValue))
    }

    package static func contiguousStrides(_ shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        for axis in stride(from: shape.count - 2, through: 0, by: -1) {
            strides[axis] = strides[axis + 1] * shape[axis + 1]
        }
        return strides
    }

    /// The element at a linear (row-major) index.
    public subscript(index: Int) -> NSNumber {
        get { NSNumber(value: element(at: offset(ofLinearIndex: index))) }
        set { setElement(newValue.doubleValue, at: offset(ofLinearIndex: index)) }
    }

    /// The element at a multi-dimensional index, one entry per dimension.
    public subscript(key: [NSNumber]) -> NSNumber {
        get { NSNumber(value: element(at: offset(of: key.map(\.intValue)))) }
        set { setElement(newValue.doubleValue, at: offset(of: key.map(\.intValue))) }
    }

    /// Reads the elements as `T`, which must match `dataType` (`Float` for `.float32`, `Double`,
    /// `Int32`, `UInt16` bits for `.float16`, `Int8`). Gives the buffer and the strides.
    ///
    /// - Parameters:
    ///   - type: The Swift type of one element; its size must match ``dataType`` (a mismatch stops the
    ///     program).
    ///   - body: Called with the elements, from the first to the last one the strides reach, and the
    ///     strides in elements.
    /// - Returns: What `body` returns.
    public func withUnsafeBufferPointer<T, R>(ofType type: T.Type, _ body: (UnsafeBufferPointer<T>, [Int]) throws -> R) rethrows -> R {
        precondition(MemoryLayout<T>.size == dataType.byteCount, "MLMultiArray holds \(dataType), not \(T.self)")
        let span = storageSpan
        return try body(UnsafeBufferPointer(start: dataPointer.assumingMemoryBound(to: T.self), count: span), strides.map(\.intValue))
    }

    /// Reads and writes the elements as `T`; see ``withUnsafeBufferPointer(ofType:_:)``.
    public func withUnsafeMutableBufferPointer<T, R>(
        ofType type: T.Type, _ body: (UnsafeMutableBufferPointer<T>, [Int]) throws -> R
    ) rethrows -> R {
        precondition(MemoryLayout<T>.size == dataType.byteCount, "MLMultiArray holds \(dataType), not \(T.self)")
        let span = storageSpan
        return try body(UnsafeMutableBufferPointer(start: dataPointer.assumingMemoryBound(to: T.self), count: span), strides.map(\.intValue))
    }

    /// The elements in row-major order, converted to `Float` (an OpenCoreML addition).
    public func floatValues() -> [Float] {
        (0..<count).map { Float(element(at: offset(ofLinearIndex: $0))) }
    }

    /// Elements from the first to one past the last addressed by the strides.
    private var storageSpan: Int {
        1 + zip(shape, strides).reduce(0) { $0 + ($1.0.intValue - 1) * $1.1.intValue }
    }

    private func offset(ofLinearIndex index: Int) -> Int {
        precondition(index >= 0 && index < count, "MLMultiArray index \(index) out of range 0..<\(count)")
        if isContiguous { return index }
        var remainder = index
        var offset = 0
        for axis in stride(from: shape.count - 1, through: 0, by: -1) {
            let size = shape[axis].intValue
            offset += (remainder % size) * strides[axis].intValue
            remainder /= size
        }
        return offset
    }

    private func offset(of index: [Int]) -> Int {
        precondition(index.count == shape.count, "MLMultiArray index \(index) has \(index.count) entries; the shape has \(shape.count)")
        var offset = 0
        for (axis, position) in index.enumerated() {
            precondition(position >= 0 && position < shape[axis].intValue, "MLMultiArray index \(index) out of range for shape \(shape)")
            offset += position * strides[axis].intValue
        }
        return offset
    }

    private func element(at offset: Int) -> Double {
        switch dataType {
        case .float32: return Double(dataPointer.assumingMemoryBound(to: Float.self)[offset])
        case .double: return dataPointer.assumingMemoryBound(to: Double.self)[offset]
        case .int32: return Double(dataPointer.assumingMemoryBound(to: Int32.self)[offset])
        case .int8: return Double(dataPointer.assumingMemoryBound(to: Int8.self)[offset])
        case .float16: return Double(HalfPrecision.float(fromBits: dataPointer.assumingMemoryBound(to: UInt16.self)[offset]))
        }
    }

    private func setElement(_ value: Double, at offset: Int) {
        switch dataType {
        case .float32: dataPointer.assumingMemoryBound(to: Float.self)[offset] = Float(value)
        case .double: dataPointer.assumingMemoryBound(to: Double.self)[offset] = value
        case .int32: dataPointer.assumingMemoryBound(to: Int32.self)[offset] = Int32(clamping: Self.integer(value))
        case .int8: dataPointer.assumingMemoryBound(to: Int8.self)[offset] = Int8(clamping: Self.integer(value))
        case .float16: dataPointer.assumingMemoryBound(to: UInt16.self)[offset] = HalfPrecision.bits(from: Float(value))
        }
    }

    /// Truncates toward zero like a C cast, saturating at the type's limits; NaN becomes 0.
    private static func integer(_ value: Double) -> Int64 {
        if value.isNaN { return 0 }
        return Int64(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max)
    }

    /// The data type, the shape and the first eight elements.
    public var description: String {
        let preview = (0..<min(count, 8)).map { formatNumber(self[$0].doubleValue) }.joined(separator: ", ")
        return "MLMultiArray(\(dataType), shape: \(shape.map(\.intValue)), [\(preview)\(count > 8 ? ", …" : "")])"
    }
}

extension MLMultiArrayDataType {
    /// Bytes per element.
    public var byteCount: Int {
        switch self {
        case .double: return 8
        case .float32, .int32: return 4
        case .float16: return 2
        case .int8: return 1
        }
    }
}
