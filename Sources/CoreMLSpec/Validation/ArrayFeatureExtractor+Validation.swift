extension CoreML_Specification_ArrayFeatureExtractor {
    /// Core ML's rules: one multi-array input; one Double, Int64 or multi-array output; exactly one
    /// index for a Double output. OpenCoreML also wants at least one index, exactly one for an
    /// Int64 output, and every index inside the input when its shape is declared (Core ML leaves
    /// these to prediction time).
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        guard context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.multiArray], model: "an array feature extractor"),
              context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.double, .int64, .multiArray],
                                    model: "an array feature extractor"),
              let input = description.input.first, let output = description.output.first
        else { return }
        if extractIndex.isEmpty {
            context.fail("the array feature extractor has no indexes (extractIndex)")
        }
        if let kind = FeatureKind(output.type), kind != .multiArray, extractIndex.count != 1 {
            context.fail("a \(kind.rawValue) output takes exactly one index; there are \(extractIndex.count)", at: "output '\(output.name)'")
        }
        let shape = input.type.multiArrayType.shape
        if !shape.isEmpty, let count = checkedProduct(shape),
           let bad = extractIndex.first(where: { $0 >= UInt64(count) })
        {
            context.fail("extractIndex \(bad) is outside the input's \(count) values", at: "input '\(input.name)'")
        }
    }
}
