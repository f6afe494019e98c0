extension MLDataValue {
    /// The kinds of value a data value, and so a column, can hold.
    public enum ValueType: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// Integers.
        case int
        /// Double-precision floating-point numbers.
        case double
        /// Strings.
        case string
        /// Dictionaries of data values.
        case dictionary
        /// Sequences of data values.
        case sequence
        /// Multidimensional arrays of doubles.
        case multiArray
        /// No kind: missing values, or a column that holds nothing else.
        case invalid

        /// The kind's name, as a table's description prints it: `Int`, `Double`, `String`,
        /// `Dictionary`, `Sequence`, `MultiArray` or `Invalid`.
        public var description: String {
            switch self {
            case .int: return "Int"
            case .double: return "Double"
            case .string: return "String"
            case .dictionary: return "Dictionary"
            case .sequence: return "Sequence"
            case .multiArray: return "MultiArray"
            case .invalid: return "Invalid"
            }
        }

        /// The same as `description`.
        public var debugDescription: String { description }
    }
}
