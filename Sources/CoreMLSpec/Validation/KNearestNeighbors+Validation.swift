extension CoreML_Specification_KNearestNeighborsClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }

    /// One label per sample, `numberOfDimensions` values per sample, index, distance and weighting set,
    /// a positive k within its allowed values, and a default label of the labels' type.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let index = nearestNeighborsIndex
        let dimensions = Int(index.numberOfDimensions)
        if dimensions <= 0 {
            context.fail("numberOfDimensions \(index.numberOfDimensions) must be positive")
        }
        let labels = classLabelSet
        if labels.count != index.floatSamples.count && !(labels == .none && index.floatSamples.isEmpty) {
            context.fail("there are \(index.floatSamples.count) samples but \(labels.count) labels")
        }
        if let bad = index.floatSamples.firstIndex(where: { $0.vector.count != dimensions }) {
            context.fail("sample \(bad) has \(index.floatSamples[bad].vector.count) values; numberOfDimensions is \(dimensions)")
        }
        if let bad = index.floatSamples.firstIndex(where: { !$0.vector.allSatisfy(\.isFinite) }) {
            context.fail("sample \(bad) contains NaN or infinity")
        }
        switch index.indexType {
        case .singleKdTreeIndex(let tree)?:
            if tree.leafSize <= 0 { context.fail("the kd-tree leaf size \(tree.leafSize) must be positive") }
        case .linearIndex?:
            break
        case nil:
            context.fail("no index type (linear or kd-tree) is set")
        }
        if index.distanceFunction == nil {
            context.fail("no distance function is set")
        }
        if weightingScheme == nil {
            context.fail("no weighting scheme is set")
        }
        if hasNumberOfNeighbors {
            numberOfNeighbors.validate("numberOfNeighbors", positive: true, in: &context)
        } else {
            context.fail("numberOfNeighbors (k) is required")
        }
        switch (labels, defaultClassLabel) {
        case (.strings, .defaultInt64Label?), (.int64s, .defaultStringLabel?):
            context.fail("the default label and the class labels have different types")
        case (.none, nil):
            context.fail("a default label is required when there are no class labels")
        default:
            break
        }
        if let input = model.description_p.input.first, case .multiArrayType(let array)? = input.type.type,
           dimensions > 0, !array.shape.isEmpty, checkedProduct(array.shape) != dimensions
        {
            context.fail("has shape \(array.shape), but the index has \(dimensions) dimensions", at: "input '\(input.name)'")
        }
        if model.description_p.predictedFeatureName.isEmpty {
            context.fail("a classifier must name its predicted feature (predictedFeatureName)")
        }
    }
}
