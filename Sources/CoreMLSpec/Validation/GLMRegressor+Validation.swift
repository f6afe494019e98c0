extension CoreML_Specification_GLMRegressor {
    /// Core ML's rules: a regressor interface with number or multi-array inputs, as many offsets as
    /// weight rows, rows of equal length; and (OpenCoreML) at least one row, a known transform,
    /// rows as long as the inputs are wide, and a multi-array output for more than one row, of one
    /// value per row when its shape is declared.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        model.validateRegressorOutput(in: &context)
        let width = model.validateVectorizableInputs(in: &context)
        if weights.isEmpty {
            context.fail("a GLM regressor needs at least one weight row")
        }
        if offset.count != weights.count {
            context.fail("there are \(offset.count) offsets for \(weights.count) weight rows")
        }
        if let first = weights.first {
            if let bad = weights.firstIndex(where: { $0.value.count != first.value.count }) {
                context.fail("weight row \(bad) has \(weights[bad].value.count) values; row 0 has \(first.value.count)")
            } else if let width, width != first.value.count {
                context.fail("the weight rows have \(first.value.count) values, but the inputs hold \(width)")
            }
        }
        let predicted = model.description_p.predictedFeatureName
        if weights.count > 1, let output = model.description_p.output.first(where: { $0.name == predicted }), case .doubleType? = output.type.type {
            context.fail("output '\(predicted)' is a number, but there are \(weights.count) weight rows (declare a multi-array)")
        }
        if !weights.isEmpty {
            model.validateOutputWidth(predicted, count: weights.count, maker: "the GLM's \(weights.count) weight row(s)", in: &context)
        }
        if case .UNRECOGNIZED(let value) = postEvaluationTransform {
            context.fail("unknown post-evaluation transform \(value)")
        }
    }
}
