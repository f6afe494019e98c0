extension CoreML_Specification_Pipeline {
    /// Each model valid; every model input available from the pipeline's inputs or an earlier model,
    /// with a compatible type (`FeatureType.isCompatible(with:)`); every pipeline output produced,
    /// with the type it is declared with; model names unique; only the last model updatable, and
    /// only in an updatable pipeline.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        if models.isEmpty {
            context.fail("a pipeline needs at least one model")
            return
        }
        if !names.isEmpty && names.count != models.count {
            context.fail("there are \(names.count) model names for \(models.count) models")
        }
        var seenNames = Set<String>()
        for name in names where !seenNames.insert(name).inserted {
            context.fail("the model name '\(name)' is used twice")
        }
        // Each feature available so far: its type and where it comes from.
        var available: [String: (type: CoreML_Specification_FeatureType, source: String)] = [:]
        for input in model.description_p.input where available[input.name] == nil {
            available[input.name] = (input.type, "the pipeline input")
        }
        for (index, inner) in models.enumerated() {
            let name = index < names.count && !names[index].isEmpty ? " '\(names[index])'" : ""
            let part = "pipeline model \(index + 1)\(name) (\(inner.modelTypeName))"
            context.within(part) { context in
                inner.validate(in: &context)
                for input in inner.description_p.input {
                    if let (type, source) = available[input.name] {
                        if !input.type.isCompatible(with: type) {
                            context.fail("input '\(input.name)' expects \(input.type.summary), but \(source) gives \(type.summary)")
                        }
                    } else if !input.type.isOptional {
                        context.fail("input '\(input.name)' is neither a pipeline input nor an output of an earlier model")
                    }
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
            for output in inner.description_p.output {
                available[output.name] = (output.type, "the output of pipeline model \(index + 1)\(name)")
            }
        }
        for output in model.description_p.output {
            guard let (type, source) = available[output.name] else {
                context.fail("no model of the pipeline produces this output", at: "output '\(output.name)'")
                continue
            }
            if !output.type.isCompatible(with: type) {
                context.fail("the pipeline declares \(output.type.summary), but \(source) gives \(type.summary)", at: "output '\(output.name)'")
            }
        }
    }
}
