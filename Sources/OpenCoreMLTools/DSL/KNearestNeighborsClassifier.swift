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
        case linear
        case kdTree(leafSize: UInt = 30)
    }

    /// How neighbours vote.
    public enum Weighting: Equatable, Sendable {
        case uniform, inverseDistance
    }

    /// The values of k an app may choose at run time (`MLParameterKey.numberOfNeighbors`); by
    /// default 1 to 1000, as coremltools writes.
    public enum AllowedNeighbors: Equatable, Sendable {
        case range(ClosedRange<UInt>)
        case set([UInt])
    }

    /// The type of the labels, for a model declared without samples.
    public enum LabelType: Sendable {
        case string, int64
    }

    public var numberOfNeighbors: UInt
    public var allowedNeighbors: AllowedNeighbors?
    public var index: Index
    public var weighting: Weighting
    public var numberOfDimensions: UInt?
    public var samples: [[Float]]
    public var labels: [ClassLabel]
    public var labelType: LabelType?
    public var defaultLabel: ClassLabel?
    public var updatable: Bool
    public var predictedFeatureName: String
    public var predictedProbabilitiesName: String

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
        guard let dimensions = numberOfDimensions.map { Int($0) } ?? inputDimensions, dimensions > 0 else {
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
