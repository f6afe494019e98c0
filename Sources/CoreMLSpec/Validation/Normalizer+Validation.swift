extension CoreML_Specification_Normalizer {
    /// Core ML's rules: one multi-array input, one multi-array output, a known norm.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.multiArray], model: "a normalizer")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.multiArray], model: "a normalizer")
        if case .UNRECOGNIZED(let value) = normType {
            context.fail("normType \(value) is none of LMax (0), L1 (1) and L2 (2)")
        }
    }
}
