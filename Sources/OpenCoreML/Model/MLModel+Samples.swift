import CoreMLSpec

/// One stored example of a k-nearest-neighbours classifier.
public struct NearestNeighborsSample: @unchecked Sendable {
    /// Its position among the model's samples.
    public var index: Int
    /// Its label (a string or int64 feature value).
    public var label: MLFeatureValue
    /// Its feature vector.
    public var values: [Float]
}

/// Editing the samples of a k-NN classifier (or of a pipeline whose last model is one): an
/// OpenCoreML addition — Core ML can add samples through `MLUpdateTask` but never remove them.
///
/// Each method returns a new model; the receiver is unchanged. `write(to:)` of the result gives
/// an `.mlmodel` that coremltools and Core ML read with the remaining samples.
extension MLModel {
    /// The number of samples the model's k-NN classifier stores, or nil if it has none.
    public var sampleCount: Int? { specification.nearestNeighborsClassifier?.sampleCount }

    /// The label of every sample of the model's k-NN classifier, in order, or nil if it has none.
    public var sampleLabels: [MLFeatureValue]? {
        switch specification.nearestNeighborsClassifier?.classLabelSet {
        case .strings(let labels)?: return labels.map { MLFeatureValue(string: $0) }
        case .int64s(let labels)?: return labels.map { MLFeatureValue(int64: $0) }
        case .none?: return []
        case nil: return nil
        }
    }

    /// The model without the samples for which `shouldRemove` returns true.
    ///
    /// - Parameter shouldRemove: Called once per sample with its index, label and values.
    /// - Returns: A new model without the chosen samples.
    /// - Throws: An ``MLModelError`` when the model has no k-NN classifier, or what `shouldRemove` throws.
    public func removingSamples(where shouldRemove: (NearestNeighborsSample) throws -> Bool) throws -> MLModel {
        guard let knn = specification.nearestNeighborsClassifier, let labels = sampleLabels else { throw noSamples }
        let samples = knn.nearestNeighborsIndex.floatSamples
        var doomed = Set<Int>()
        for index in samples.indices {
            if try shouldRemove(NearestNeighborsSample(index: index, label: labels[index], values: samples[index].vector)) {
                doomed.insert(index)
            }
        }
        return try removingSamples(at: doomed)
    }

    /// The model without the samples at `indices` (each must be a sample's index).
    ///
    /// - Parameter indices: Positions among the model's samples, from 0.
    /// - Returns: A new model without those samples; later samples move up.
    /// - Throws: An ``MLModelError`` when the model has no k-NN classifier or an index is out of range.
    public func removingSamples(at indices: some Sequence<Int>) throws -> MLModel {
        guard var knn = specification.nearestNeighborsClassifier else { throw noSamples }
        do {
            try knn.removeSamples(at: Set(indices))
        } catch {
            throw MLModelError(.parameters, "\(error)")
        }
        var edited = specification
        edited.nearestNeighborsClassifier = knn
        return MLModel(trustedSpecification: edited, configuration: configuration)
    }

    private var noSamples: MLModelError {
        MLModelError(.parameters, "the model is a \(specification.modelTypeName), not a k-NN classifier (or a pipeline ending in one); it has no samples to remove")
    }

    /// The model without the samples labelled `label` (a `String` or an integer); throws if no
    /// sample has that label.
    ///
    /// - Parameter label: A `String` for string labels, an integer for integer labels.
    /// - Returns: A new model without the samples labelled `label`.
    /// - Throws: An ``MLModelError`` when the model has no k-NN classifier or no sample has the label.
    public func removingSamples(labeled label: AnyHashable) throws -> MLModel {
        var found = false
        let edited = try removingSamples(where: { sample in
            let matches: Bool
            switch sample.label.type {
            case .string: matches = (label.base as? String) == sample.label.stringValue
            case .int64: matches = (label.base as? any BinaryInteger).map { Int64($0) == sample.label.int64Value } ?? false
            default: matches = false
            }
            found = found || matches
            return matches
        })
        guard found else {
            let known = specification.classLabelSet.descriptions.prefix(20).joined(separator: ", ")
            throw MLModelError(.parameters, "no sample is labelled '\(label)' (labels: \(known.isEmpty ? "none" : known))")
        }
        return edited
    }
}
