extension CoreML_Specification_CategoricalMapping {
    /// Core ML's rules: the mapping set; the value on unknown of the mapping's output type; one
    /// input of the mapping's input type and one output of its output type, or sequences of them.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        let from: FeatureKind
        let to: FeatureKind
        switch mappingType {
        case .stringToInt64Map?:
            (from, to) = (.string, .int64)
            if case .strValue? = valueOnUnknown {
                context.fail("the value on unknown is a String, but the mapping gives Int64")
            }
        case .int64ToStringMap?:
            (from, to) = (.int64, .string)
            if case .int64Value? = valueOnUnknown {
                context.fail("the value on unknown is an Int64, but the mapping gives strings")
            }
        case nil:
            context.fail("the categorical mapping has no map (stringToInt64Map or int64ToStringMap)")
            return
        }
        guard context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [from, .sequence], model: "this categorical mapping"),
              context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [to, .sequence], model: "this categorical mapping"),
              let input = description.input.first, let output = description.output.first
        else { return }
        if case .sequenceType(let sequence)? = input.type.type {
            if FeatureKind(sequence.asFeatureType) != from {
                context.fail("a sequence input must hold \(from.rawValue) values", at: "input '\(input.name)'")
            }
            if case .sequenceType? = output.type.type {
                if FeatureKind(output.type.sequenceType.asFeatureType) != to {
                    context.fail("a sequence output must hold \(to.rawValue) values", at: "output '\(output.name)'")
                }
            } else {
                context.fail("a sequence input needs a sequence output", at: "output '\(output.name)'")
            }
        }
    }
}

extension CoreML_Specification_SequenceFeatureType {
    /// The element type as a feature type (no type when unset).
    var asFeatureType: CoreML_Specification_FeatureType {
        var type = CoreML_Specification_FeatureType()
        switch self.type {
        case .int64Type(let element)?: type.int64Type = element
        case .stringType(let element)?: type.stringType = element
        case nil: break
        }
        return type
    }
}
