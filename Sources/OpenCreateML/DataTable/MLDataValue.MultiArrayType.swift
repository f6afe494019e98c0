import Foundation
import OpenCoreML

extension MLDataValue {
    /// A multidimensional array of doubles: the content of a `.multiArray` cell.
    ///
    /// Ours differs from Create ML's in one respect: it holds its own copy of the numbers (row-major,
    /// as doubles) rather than a reference to an `MLMultiArray`, so that cells are values that
    /// compare and hash by content. `mlMultiArray` makes a fresh `MLMultiArray` from them.
    public struct MultiArrayType: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The size of each dimension.
        public let shape: [Int]
        /// The elements in row-major order.
        let scalars: [Double]

        /// An empty array (shape `[0]`).
        public init() {
            shape = [0]
            scalars = []
        }

        /// A zero-filled array of the given shape; a negative dimension counts as 0.
        public init(shape: [Int]) {
            self.shape = shape.map { Swift.max($0, 0) }
            scalars = Array(repeating: 0, count: self.shape.reduce(1, *))
        }

        /// An array of the given shape holding `scalars` in row-major order (an OpenCoreML
        /// addition); nil when their count is not the shape's element count.
        public init?(shape: [Int], scalars: [Double]) {
            guard shape.allSatisfy({ $0 >= 0 }), shape.reduce(1, *) == scalars.count else { return nil }
            self.shape = shape
            self.scalars = scalars
        }

        /// A copy of the numbers of an `MLMultiArray`, converted to doubles.
        public init(_ array: MLMultiArray) {
            shape = array.shape.map(\.intValue)
            scalars = (0..<array.count).map { array[$0].doubleValue }
        }

        /// The element at a row-major (linear) index.
        public subscript(index: Int) -> Double { scalars[index] }

        /// The element at a multidimensional index, one entry per dimension.
        public subscript(index: [Int]) -> Double {
            precondition(index.count == shape.count, "MultiArrayType: \(index.count) indices for \(shape.count) dimensions")
            var linear = 0
            for (i, n) in zip(index, shape) {
                precondition(i >= 0 && i < n, "MultiArrayType: index \(index) out of shape \(shape)")
                linear = linear * n + i
            }
            return scalars[linear]
        }

        /// A new `MLMultiArray` of doubles with these numbers and this shape.
        public var mlMultiArray: MLMultiArray {
            // A zero dimension cannot be an MLMultiArray; the empty array becomes shape [1] of 0.
            let dims = shape.contains(0) || shape.isEmpty ? [1] : shape
            // Every dimension is positive here, so creation cannot fail.
            let array = try! MLMultiArray(shape: dims.map { NSNumber(value: $0) }, dataType: .double)
            for (i, v) in scalars.enumerated() { array[i] = NSNumber(value: v) }
            return array
        }

        /// The shape and the numbers: `MultiArray[2, 2] [1.0, 2.0, 3.0, 4.0]`.
        public var description: String {
            "MultiArray\(shape) [" + scalars.map { String($0) }.joined(separator: ", ") + "]"
        }
        /// The same as `description`.
        public var debugDescription: String { description }
    }
}
