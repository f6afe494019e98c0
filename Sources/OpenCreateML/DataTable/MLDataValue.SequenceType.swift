extension MLDataValue {
    /// An ordered sequence of data values: the content of a `.sequence` cell.
    ///
    /// ```swift
    /// let window: MLDataValue.SequenceType = [.double(0.1), .double(0.2)]
    /// let same = MLDataValue.SequenceType([0.1, 0.2])
    /// ```
    public struct SequenceType: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable, Sendable,
        CustomStringConvertible, CustomDebugStringConvertible
    {
        /// The elements, in order.
        var elements: [MLDataValue]

        /// An empty sequence.
        public init() { elements = [] }

        /// A sequence of the given data values.
        public init<S: Sequence>(_ values: S) where S.Element == MLDataValue { elements = Array(values) }

        /// A sequence of the given convertible values, each wrapped in its data value.
        public init<S: Sequence>(_ values: S) where S.Element: MLDataValueConvertible { elements = values.map(\.dataValue) }

        /// A sequence written as an array literal of data values.
        public init(arrayLiteral elements: MLDataValue...) { self.elements = elements }

        /// The position of the first element (always 0).
        public var startIndex: Int { 0 }
        /// The position after the last element (the count).
        public var endIndex: Int { elements.count }
        /// The element at `position`.
        public subscript(position: Int) -> MLDataValue { elements[position] }

        /// The elements in brackets, comma separated: `[1, 2.5, a]`.
        public var description: String { "[" + elements.map(\.description).joined(separator: ", ") + "]" }
        /// The elements' debug descriptions in brackets.
        public var debugDescription: String { "[" + elements.map(\.debugDescription).joined(separator: ", ") + "]" }
    }
}
