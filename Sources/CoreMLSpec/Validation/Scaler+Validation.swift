extension CoreML_Specification_Scaler {
    /// Core ML's rules: one Int64, Double or multi-array input and one output of the same kind (an
    /// Int64 input may also give a Double); arrays one-dimensional and of the same length; shift
    /// and scale lists empty, one value, or (for arrays) one value per element.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        let kinds: [FeatureKind] = [.int64, .double, .multiArray]
        guard context.checkFeatures(description.input, kind: "input", limit: 1, allowed: kinds, model: "a scaler"),
              context.checkFeatures(description.output, kind: "output", limit: 1, allowed: kinds, model: "a scaler"),
              let input = description.input.first, let output = description.output.first,
              let inputKind = FeatureKind(input.type), let outputKind = FeatureKind(output.type)
        else { return }
        if inputKind == .int64 ? outputKind == .multiArray : inputKind != outputKind {
            context.fail("the input is \(input.type.summary) but the output is \(output.type.summary); a scaler keeps the type (Int64 may become Double)")
            return
        }
        var allowed = "empty or one value"
        var length: Int64 = 1
        if case .multiArrayType(let array)? = input.type.type {
            guard array.shape.count == 1 else {
                context.fail("a scaler takes one-dimensional arrays; the shape is \(array.shape)", at: "input '\(input.name)'")
                return
            }
            length = array.shape[0]
            if output.type.multiArrayType.shape != array.shape {
                context.fail("the output's shape \(output.type.multiArrayType.shape) differs from the input's \(array.shape)")
            }
            allowed = "empty, one value, or \(length) values (one per element)"
        }
        for (name, count) in [("shiftValue", shiftValue.count), ("scaleValue", scaleValue.count)]
        where count > 1 && Int64(count) != length {
            context.fail("\(name) has \(count) values; it must be \(allowed)")
        }
    }
}
