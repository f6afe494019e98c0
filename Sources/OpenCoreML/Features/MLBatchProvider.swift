/// An ordered collection of feature providers: the examples of a training or prediction batch.
public protocol MLBatchProvider {
    var count: Int { get }
    func features(at index: Int) -> MLFeatureProvider
}

/// Feature providers held in an array.
public final class MLArrayBatchProvider: MLBatchProvider, @unchecked Sendable {
    public let array: [MLFeatureProvider]

    public init(array: [MLFeatureProvider]) { self.array = array }

    /// Builds one provider per index from columns of values: `["image": [a, b], "label": ["x", "y"]]`.
    /// Every column must have the same length.
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

    public var count: Int { array.count }

    public func features(at index: Int) -> MLFeatureProvider { array[index] }
}
