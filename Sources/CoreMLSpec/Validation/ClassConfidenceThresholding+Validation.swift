extension CoreML_Specification_ClassConfidenceThresholding {
    /// Core ML's rules: at least one precision-recall curve; in each, as many thresholds as
    /// precision (and recall) values, at least one, all finite and not negative. OpenCoreML also
    /// wants one multi-array input and one multi-array output, as the format describes them.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.multiArray], model: "a class confidence thresholder")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.multiArray], model: "a class confidence thresholder")
        if precisionRecallCurves.isEmpty {
            context.fail("the class confidence thresholder has no precision-recall curves")
        }
        for (index, curve) in precisionRecallCurves.enumerated() {
            context.within("precision-recall curve \(index + 1)") { context in
                let pairs = [("precision", curve.precisionValues.vector, curve.precisionConfidenceThresholds.vector),
                             ("recall", curve.recallValues.vector, curve.recallConfidenceThresholds.vector)]
                for (name, values, thresholds) in pairs {
                    if values.isEmpty || values.count != thresholds.count {
                        context.fail("there are \(values.count) \(name) values and \(thresholds.count) thresholds; they must be as many, and at least one")
                    }
                    if (values + thresholds).contains(where: { !$0.isFinite || $0 < 0 }) {
                        context.fail("a \(name) value or threshold is negative, infinite or NaN")
                    }
                }
            }
        }
    }
}
