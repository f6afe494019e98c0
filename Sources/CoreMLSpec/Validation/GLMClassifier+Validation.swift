extension CoreML_Specification_GLMClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }

    /// One weight row and one offset per class (one for two classes), rows of equal length.
    func validate(in context: inout ValidationContext) {
        let classes = classLabelSet.count
        if classes < 2 {
            context.fail("a GLM classifier needs at least two class labels")
            return
        }
        let rows = classes == 2 ? [1, 2] : [classes]
        if !rows.contains(weights.count) {
            context.fail("there are \(weights.count) weight rows for \(classes) classes")
        }
        if offset.count != weights.count {
            context.fail("there are \(offset.count) offsets for \(weights.count) weight rows")
        }
        if let first = weights.first, weights.contains(where: { $0.value.count != first.value.count }) {
            context.fail("the weight rows have different lengths")
        }
    }
}
