extension MLDataValue {
    /// A dictionary of data values keyed by data values: the content of a `.dictionary` cell.
    ///
    /// ```swift
    /// let counts = MLDataValue.DictionaryType([.string("cat"): .int(2)])
    /// counts[.string("cat")]   // .int(2)
    /// ```
    public struct DictionaryType: Collection, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The key type.
        public typealias Key = MLDataValue
        /// The value type.
        public typealias Value = MLDataValue

        var storage: [MLDataValue: MLDataValue]

        /// An empty dictionary.
        public init() { storage = [:] }

        /// A dictionary with the given entries.
        public init(_ dictionary: [MLDataValue: MLDataValue]) { storage = dictionary }

        /// A dictionary of the given key–value pairs; when a key repeats, the last pair wins
        /// (ours: this does not trap on a duplicate key, unlike `Dictionary(uniqueKeysWithValues:)`).
        public init<S: Sequence>(uniqueKeysWithValues keysAndValues: S) where S.Element == (MLDataValue, MLDataValue) {
            storage = Dictionary(keysAndValues, uniquingKeysWith: { _, last in last })
        }

        /// The value for `key`, or nil.
        public subscript(key: Key) -> Value? { storage[key] }

        /// A position in the dictionary.
        public struct Index: Comparable, Hashable, Sendable {
            let base: Dictionary<MLDataValue, MLDataValue>.Index
            /// Orders positions as the dictionary's own positions are ordered.
            public static func < (lhs: Index, rhs: Index) -> Bool { lhs.base < rhs.base }
        }

        /// The first position.
        public var startIndex: Index { Index(base: storage.startIndex) }
        /// The position after the last entry.
        public var endIndex: Index { Index(base: storage.endIndex) }
        /// The position after `i`.
        public func index(after i: Index) -> Index { Index(base: storage.index(after: i.base)) }
        /// The entry at `position`.
        public subscript(position: Index) -> (key: MLDataValue, value: MLDataValue) {
            let entry = storage[position.base]
            return (entry.key, entry.value)
        }
        /// The number of entries.
        public var count: Int { storage.count }
        /// Whether there are no entries.
        public var isEmpty: Bool { storage.isEmpty }

        /// The entries in braces, sorted by their keys' text so the output is stable: `{a: 1, b: 2}`.
        public var description: String {
            "{" + storage.map { "\($0.key.description): \($0.value.description)" }.sorted().joined(separator: ", ") + "}"
        }
        /// The entries' debug descriptions in braces, sorted.
        public var debugDescription: String {
            "{" + storage.map { "\($0.key.debugDescription): \($0.value.debugDescription)" }.sorted().joined(separator: ", ") + "}"
        }
    }
}
