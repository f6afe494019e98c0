extension CoreML_Specification_KNearestNeighborsClassifier {
    /// Why a sample edit was refused.
    public struct SampleEditError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The number of stored samples.
    public var sampleCount: Int { nearestNeighborsIndex.floatSamples.count }

    /// Appends samples (rows of `numberOfDimensions` values) with one label each. The labels must
    /// have the type of the stored labels, or — for an empty model — of the default label.
    public mutating func appendSamples(_ rows: [[Float]], labels: ClassLabelSet) throws {
        guard rows.count == labels.count else {
            throw SampleEditError(description: "\(rows.count) samples but \(labels.count) labels")
        }
        let dimensions = Int(nearestNeighborsIndex.numberOfDimensions)
        if let bad = rows.firstIndex(where: { $0.count != dimensions }) {
            throw SampleEditError(description: "sample \(bad) has \(rows[bad].count) values; the index has \(dimensions) dimensions")
        }
        switch (labels, classLabelSet, defaultClassLabel) {
        case (.strings(let new), .strings, _), (.strings(let new), .none, .defaultStringLabel?):
            stringClassLabels.vector.append(contentsOf: new)
        case (.int64s(let new), .int64s, _), (.int64s(let new), .none, .defaultInt64Label?):
            int64ClassLabels.vector.append(contentsOf: new)
        case (.none, _, _) where rows.isEmpty:
            return
        default:
            let expected = classLabelSet == .none ? (defaultClassLabel.map { if case .defaultStringLabel = $0 { "String" } else { "Int64" } } ?? "none") : classLabelSet.typeName
            throw SampleEditError(description: "the labels are \(labels.typeName); the model's labels are \(expected)")
        }
        nearestNeighborsIndex.floatSamples.append(contentsOf: rows.map { row in
            var vector = CoreML_Specification_FloatVector()
            vector.vector = row
            return vector
        })
    }

    /// Removes the samples at `indices` and their labels; later samples move up. Indices outside
    /// the samples are an error.
    public mutating func removeSamples(at indices: Set<Int>) throws {
        if let bad = indices.first(where: { $0 < 0 || $0 >= sampleCount }) {
            throw SampleEditError(description: "sample index \(bad) is outside 0..<\(sampleCount)")
        }
        guard !indices.isEmpty else { return }
        func keep<T>(_ values: [T]) -> [T] { values.enumerated().filter { !indices.contains($0.offset) }.map(\.element) }
        nearestNeighborsIndex.floatSamples = keep(nearestNeighborsIndex.floatSamples)
        switch classLabels {
        case .stringClassLabels(var labels)?:
            labels.vector = keep(labels.vector)
            classLabels = .stringClassLabels(labels)
        case .int64ClassLabels(var labels)?:
            labels.vector = keep(labels.vector)
            classLabels = .int64ClassLabels(labels)
        case nil:
            break
        }
    }
}
