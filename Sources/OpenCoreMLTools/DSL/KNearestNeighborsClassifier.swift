import CoreMLSpec

/// A k-nearest-neighbours classifier (Core ML 3), the model on-device personalisation adds
/// examples to.
///
/// ```swift
/// Model(shortDescription: "Drawings") {
///     Input(name: "features", shape: [128])
///     KNearestNeighborsClassifier(numberOfNeighbors: 3, allowedNeighbors: .range(1...10), index: .kdTree(leafSize: 30),
///                                 weighting: .inverseDistance, labelType: .string, defaultLabel: "unknown")
/// }
/// ```
///
/// The model gets the outputs `predictedFeatureName` (the label) and `predictedProbabilitiesName`
/// (a dictionary), and — when `updatable` — the training inputs: its input plus the label.
/// `numberOfDimensions` defaults to the element count of the model's single input.
public struct KNearestNeighborsClassifier: ModelItem {
    /// How neighbours are searched.
    public enum Index: Equatable, Sendable {
        /// Compares the query with every sample (Core ML's `linearIndex`).
        case linear
        /// A k-d tree with up to `leafSize` samples per leaf (Core ML's `singleKdTreeIndex`).
        case kdTree(leafSize: UInt = 30)
    }

    /// How neighbours vote.
    public enum Weighting: Equatable, Sendable {
        /// Every neighbour's vote counts the same, or counts 1 / distance.
        case uniform, inverseDistance
    }

    /// The values of k an app may choose at run time (`MLParameterKey.numberOfNeighbors`); by
    /// default 1 to 1000, as coremltools writes.
    public enum AllowedNeighbors: Equatable, Sendable {
        /// Any k within the range.
        case range(ClosedRange<UInt>)
        /// Only the listed values of k.
        case set([UInt])
    }

    /// The type of the labels, for a model declared without samples.
    public enum LabelType: Sendable {
        /// String labels or 64-bit integer labels.
        case string, int64
    }

    /// k, the number of neighbours that vote (1 by default).
    public var numberOfNeighbors: UInt
    /// The values of k an app may choose at run time; nil for 1 to at least 1000.
    public var allowedNeighbors: AllowedNeighbors?
    /// How neighbours are searched (a linear scan by default).
    public var index: Index
    /// How neighbours' votes count (uniformly by default).
    public var weighting: Weighting
    /// The length of every sample; nil for the element count of the model's single input.
    public var numberOfDimensions: UInt?
    /// The stored examples, one feature vector each (none by default: samples come from training).
    public var samples: [[Float]]
    /// One label per sample.
    public var labels: [ClassLabel]
    /// The label type of a model declared without samples or default label; nil for string labels.
    public var labelType: LabelType?
    /// The label predicted while the model holds no samples.
    public var defaultLabel: ClassLabel?
    /// Whether training on device may add samples (true by default).
    public var updatable: Bool
    /// The name of the predicted-label output and the label training input (`label` by default).
    public var predictedFeatureName: String
    /// The name of the output with each label's share of the votes (`labelProbs` by default).
    public var predictedProbabilitiesName: String

    /// Declares a k-nearest-neighbours classifier; every argument has a default, see the properties.
    /// Writes the model's `kNearestNeighborsClassifier`, squared Euclidean distance.
    public init(numberOfNeighbors: UInt = 1, allowedNeighbors: AllowedNeighbors? = nil, index: Index = .linear,
                weighting: Weighting = .uniform, numberOfDimensions: UInt? = nil, samples: [[Float]] = [], labels: [ClassLabel] = [],
                labelType: LabelType? = nil, defaultLabel: ClassLabel? = nil, updatable: Bool = true,
                predictedFeatureName: String = "label", predictedProbabilitiesName: String = "labelProbs") {
        self.numberOfNeighbors = numberOfNeighbors
        self.allowedNeighbors = allowedNeighbors
        self.index = index
        self.weighting = weighting
        self.numberOfDimensions = numberOfDimensions
        self.samples = samples
        self.labels = labels
        self.labelType = labelType
        self.defaultLabel = defaultLabel
        self.updatable = updatable
        self.predictedFeatureName = predictedFeatureName
        self.predictedProbabilitiesName = predictedProbabilitiesName
    }

    /// The label type: of the labels, else of the default label, else `labelType`.
    func labelSet(location: String) throws -> ClassLabelSet {
        var set = try ClassLabelSet(labels + (defaultLabel.map { [$0] } ?? []), location: location)
        if set == .none {
            set = labelType == .int64 ? .int64s([]) : .strings([])
        } else if let labelType, (labelType == .int64) != (set.typeName == "Int64") {
            throw ModelToolsError(location, "labelType is \(labelType) but the labels are \(set.typeName)")
        }
        return set
    }

    /// The classifier as the format stores it, for inputs of `dimensions` values.
    func specification(dimensions inputDimensions: Int?, location: String) throws -> CoreML_Specification_KNearestNeighborsClassifier {
        guard let dimensions = numberOfDimensions.map({ Int($0) }) ?? inputDimensions, dimensions > 0 else {
            throw ModelToolsError(location, "numberOfDimensions is not given and the model has no single multi-array input to take it from")
        }
        guard numberOfNeighbors > 0 else { throw ModelToolsError(location, "numberOfNeighbors must be positive") }
        guard samples.count == labels.count else {
            throw ModelToolsError(location, "\(samples.count) samples but \(labels.count) labels; give one label per sample")
        }
        if let bad = samples.firstIndex(where: { $0.count != dimensions }) {
            throw ModelToolsError(location, "sample \(bad) has \(samples[bad].count) values, expected \(dimensions)")
        }
        if let bad = samples.firstIndex(where: { !$0.allSatisfy(\.isFinite) }) {
            throw ModelToolsError(location, "sample \(bad) contains NaN or infinite values")
        }
        var knn = CoreML_Specification_KNearestNeighborsClassifier()
        knn.nearestNeighborsIndex.numberOfDimensions = Int32(dimensions)
        knn.nearestNeighborsIndex.floatSamples = samples.map {
            var vector = CoreML_Specification_FloatVector()
            vector.vector = $0
            return vector
        }
        switch index {
        case .linear: knn.nearestNeighborsIndex.linearIndex = CoreML_Specification_LinearIndex()
        case .kdTree(let leafSize):
            guard leafSize > 0 else { throw ModelToolsError(location, "the kd-tree leaf size must be positive") }
            knn.nearestNeighborsIndex.singleKdTreeIndex.leafSize = Int32(leafSize)
        }
        knn.nearestNeighborsIndex.squaredEuclideanDistance = CoreML_Specification_SquaredEuclideanDistance()
        switch allowedNeighbors {
        case .range(let range)?: knn.numberOfNeighbors = try .parameter("numberOfNeighbors", numberOfNeighbors, range: range)
        case .set(let values)?: knn.numberOfNeighbors = try .parameter("numberOfNeighbors", numberOfNeighbors, allowed: values)
        case nil: knn.numberOfNeighbors = try .parameter("numberOfNeighbors", numberOfNeighbors, range: 1...max(numberOfNeighbors, 1000))
        }
        switch try labelSet(location: location) {
        case .int64s:
            knn.int64ClassLabels.vector = labels.compactMap { if case .int64(let value) = $0 { return value } else { return nil } }
            if case .int64(let value)? = defaultLabel { knn.defaultInt64Label = value }
        default:
            knn.stringClassLabels.vector = labels.compactMap { if case .string(let value) = $0 { return value } else { return nil } }
            if case .string(let value)? = defaultLabel { knn.defaultStringLabel = value }
        }
        switch weighting {
        case .uniform: knn.uniformWeighting = CoreML_Specification_UniformWeighting()
        case .inverseDistance: knn.inverseDistanceWeighting = CoreML_Specification_InverseDistanceWeighting()
        }
        return knn
    }
}
