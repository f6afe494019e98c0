import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a k-nearest-neighbours classifier: the k nearest samples vote for their labels.
///
/// Outputs the predicted label and, if the model names one, the probability dictionary: each
/// label's share of the votes (labels without votes get 0). With no samples the prediction is the
/// model's default label and the dictionary is empty.
final class NearestNeighborsRunner: ModelRunner, @unchecked Sendable {
    let index: NearestNeighborsIndex
    /// The distinct labels; the index stores positions in this set.
    let classes: ClassLabelSet
    let k: Int
    let weighting: NeighborWeighting
    private let defaultLabel: MLFeatureValue
    private let inputName: String
    private let predictedFeatureName: String
    private let probabilitiesName: String?

    init(specification: CoreML_Specification_Model, parameters: [MLParameterKey: Any], index: NearestNeighborsIndex? = nil) throws {
        guard case .kNearestNeighborsClassifier(let knn)? = specification.type else {
            preconditionFailure("not a k-NN classifier")
        }
        let description = specification.description_p
        guard let input = description.input.first else {
            throw MLModelError(.generic, "the k-NN classifier has no input")
        }
        inputName = input.name
        predictedFeatureName = description.predictedFeatureName
        probabilitiesName = description.predictedProbabilitiesName.isEmpty ? nil : description.predictedProbabilitiesName
        k = parameters[.numberOfNeighbors] as? Int ?? Int(knn.numberOfNeighbors.defaultValue)
        weighting = knn.neighborWeighting
        switch knn.defaultClassLabel {
        case .defaultStringLabel(let label)?: defaultLabel = MLFeatureValue(string: label)
        case .defaultInt64Label(let label)?: defaultLabel = MLFeatureValue(int64: label)
        case nil: defaultLabel = MLFeatureValue(undefined: .string)
        }
        let (classes, sampleClasses) = knn.classLabelSet.indexed
        self.classes = classes
        self.index = index ?? knn.makeIndex(sampleClasses: sampleClasses)
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        let dimensions = index.dimensions
        var queries = [Float](repeating: 0, count: examples.count * dimensions)
        try queries.withUnsafeMutableBufferPointer { rows in
            for (number, example) in examples.enumerated() {
                let row = rows.baseAddress! + number * dimensions
                try FeatureEncoding.write(example.featureValue(for: inputName), name: inputName, example: number,
                                          count: dimensions, shape: [dimensions], to: row)
                try FeatureEncoding.checkFinite(row, count: dimensions, name: inputName, example: number)
            }
        }
        let neighbors = queries.withUnsafeBufferPointer { index.search($0.baseAddress!, queryCount: examples.count, k: k) }
        return try neighbors.map { try outputs(for: $0) }
    }

    private func outputs(for neighbors: NeighborList) throws -> MLFeatureProvider {
        guard let vote = NeighborVote(neighbors: neighbors, labels: index.labels, classCount: classes.count, weighting: weighting) else {
            var values = [predictedFeatureName: defaultLabel]
            if let probabilitiesName { values[probabilitiesName] = try MLFeatureValue(dictionary: [:]) }
            return MLDictionaryFeatureProvider(featureValues: values)
        }
        var values = [predictedFeatureName: classes.featureValue(at: vote.winner)]
        if let probabilitiesName {
            var dictionary: [AnyHashable: NSNumber] = [:]
            for (label, share) in vote.shares.enumerated() { dictionary[classes.key(at: label)] = NSNumber(value: share) }
            values[probabilitiesName] = try MLFeatureValue(dictionary: dictionary)
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }
}

extension CoreML_Specification_KNearestNeighborsClassifier {
    var neighborWeighting: NeighborWeighting {
        if case .inverseDistanceWeighting? = weightingScheme { return .inverseDistance }
        return .uniform
    }

    var indexStructure: NearestNeighborsIndex.Structure {
        if case .singleKdTreeIndex(let tree)? = nearestNeighborsIndex.indexType { return .kdTree(leafSize: max(1, Int(tree.leafSize))) }
        return .linear
    }

    /// The engine index of the model's samples, labelled by `sampleClasses`.
    func makeIndex(sampleClasses: [Int32]) -> NearestNeighborsIndex {
        let dimensions = Int(nearestNeighborsIndex.numberOfDimensions)
        var rows: [Float] = []
        rows.reserveCapacity(nearestNeighborsIndex.floatSamples.count * dimensions)
        for sample in nearestNeighborsIndex.floatSamples { rows.append(contentsOf: sample.vector) }
        return NearestNeighborsIndex(dimensions: dimensions, structure: indexStructure, samples: rows, labels: sampleClasses)
    }
}

extension ClassLabelSet {
    /// The distinct labels and, for each label of `self`, its position among them.
    var indexed: (classes: ClassLabelSet, positions: [Int32]) {
        switch self {
        case .strings(let labels):
            var position: [String: Int32] = [:]
            var distinct: [String] = []
            let positions = labels.map { label in
                if let known = position[label] { return known }
                position[label] = Int32(distinct.count)
                distinct.append(label)
                return Int32(distinct.count - 1)
            }
            return (.strings(distinct), positions)
        case .int64s(let labels):
            var position: [Int64: Int32] = [:]
            var distinct: [Int64] = []
            let positions = labels.map { label in
                if let known = position[label] { return known }
                position[label] = Int32(distinct.count)
                distinct.append(label)
                return Int32(distinct.count - 1)
            }
            return (.int64s(distinct), positions)
        case .none:
            return (.none, [])
        }
    }
}
