extension CoreML_Specification_Pipeline {
    /// Each model valid; every model input available from the pipeline's inputs or an earlier model;
    /// every pipeline output produced; only the last model updatable, and only in an updatable pipeline.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        if models.isEmpty {
            context.fail("a pipeline needs at least one model")
            return
        }
        if !names.isEmpty && names.count != models.count {
            context.fail("there are \(names.count) model names for \(models.count) models")
        }
        var available = Set(model.description_p.input.map(\.name))
        for (index, inner) in models.enumerated() {
            let name = index < names.count && !names[index].isEmpty ? " '\(names[index])'" : ""
            let part = "pipeline model \(index + 1)\(name) (\(inner.modelTypeName))"
            context.within(part) { context in
                inner.validate(in: &context)
                for input in inner.description_p.input where !available.contains(input.name) && !input.type.isOptional {
                    context.fail("input '\(input.name)' is neither a pipeline input nor an output of an earlier model")
                }
                let isLast = index == models.count - 1
                if inner.isUpdatable && !(model.isUpdatable && isLast) {
                    context.fail(model.isUpdatable
                        ? "only the last model of a pipeline can be updatable"
                        : "the model is updatable but the pipeline is not")
                }
                if isLast && model.isUpdatable && !inner.isUpdatable {
                    context.fail("the last model of an updatable pipeline must be updatable")
                }
            }
            available.formUnion(inner.description_p.output.map(\.name))
        }
        for output in model.description_p.output where !available.contains(output.name) {
            context.fail("no model of the pipeline produces this output", at: "output '\(output.name)'")
        }
    }
}
