/// An ordered collection of feature providers: the examples of a training or prediction batch.
public protocol MLBatchProvider {
    /// The number of examples.
    var count: Int { get }
    /// The example at `index`, from 0 up to ``count``.
    func features(at index: Int) -> MLFeatureProvider
}

/// Feature providers held in an array.
public final class MLArrayBatchProvider: MLBatchProvider, @unchecked Sendable {
    /// The examples, in order.
    public let array: [MLFeatureProvider]

    /// A batch of the given examples, in order.
    public init(array: [MLFeatureProvider]) { self.array = array }

    /// Builds one provider per index from columns of values: `["image": [a, b], "label": ["x", "y"]]`.
    /// Every column must have the same length.
    ///
    /// - Parameter dictionary: One array of values per feature name, one value per example.
    /// - Throws: An ``MLModelError`` when the arrays differ in length or a value cannot be a feature value.
    public init(dictionary: [String: [Any]]) throws {
        let lengths = Set(dictionary.values.map(\.count))
        guard lengths.count <= 1 else {
            let described = dictionary.map { "\($0.key): \($0.value.count)" }.sorted().joined(separator: ", ")
            throw MLModelError(.generic, "MLArrayBatchProvider: the columns have different lengths (\(described))")
        }
        let length = lengths.first ?? 0
        array = try (0..<length).map { index in
            try MLDictionaryFeatureProvider(dictionary: dictionary.mapValues { $0[index] })
        }
    }

    /// The number of examples.
    public var count: Int { array.count }

    /// The example at `index`.
    public func features(at index: Int) -> MLFeatureProvider { array[index] }
}
