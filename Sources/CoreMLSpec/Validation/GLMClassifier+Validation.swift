extension CoreML_Specification_GLMClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }

    /// Core ML's rules: a known transform and encoding; as many offsets as weight rows; one row
    /// for two classes, otherwise one row per class but the first (reference class) or per class
    /// (one-vs-rest); probit only for two classes; rows of equal, nonzero length. OpenCoreML also
    /// asks for at least two class labels and rows as long as the inputs are wide.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let width = model.validateVectorizableInputs(in: &context)
        if case .UNRECOGNIZED(let value) = postEvaluationTransform {
            context.fail("unknown post-evaluation transform \(value)")
        }
        if case .UNRECOGNIZED(let value) = classEncoding {
            context.fail("unknown class encoding \(value)")
        }
        let classes = classLabelSet.count
        if classes < 2 {
            context.fail("a GLM classifier needs at least two class labels")
            return
        }
        if weights.isEmpty {
            context.fail("a GLM classifier needs at least one weight row")
            return
        }
        let expected = classes == 2 ? 1 : (classEncoding == .referenceClass ? classes - 1 : classes)
        if weights.count != expected {
            let rule = classes == 2 ? "one for two classes" : (classEncoding == .referenceClass ? "one per class but the reference class" : "one per class")
            context.fail("there are \(weights.count) weight rows for \(classes) classes; \(rule) expects \(expected)")
        }
        if offset.count != weights.count {
            context.fail("there are \(offset.count) offsets for \(weights.count) weight rows")
        }
        if classes > 2 && postEvaluationTransform == .probit {
            context.fail("the probit transform is only defined for two classes; there are \(classes)")
        }
        let length = weights[0].value.count
        if length == 0 {
            context.fail("the weight rows are empty")
        } else if let bad = weights.firstIndex(where: { $0.value.count != length }) {
            context.fail("weight row \(bad) has \(weights[bad].value.count) values; row 0 has \(length)")
        } else if let width, width != length {
            context.fail("the weight rows have \(length) values, but the inputs hold \(width)")
        }
    }
}
