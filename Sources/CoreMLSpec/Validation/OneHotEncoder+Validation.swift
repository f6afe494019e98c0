extension CoreML_Specification_OneHotEncoder {
    /// Core ML's rules: one Int64 or String input; one output, a dictionary when the output is
    /// sparse and a multi-array otherwise; the categories set. OpenCoreML also checks that a dense
    /// output's declared shape holds one value per category (the runner refuses categories of
    /// another type than the input, and an empty list).
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.int64, .string], model: "a one-hot encoder")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [outputSparse ? .dictionary : .multiArray],
                              model: outputSparse ? "a sparse one-hot encoder" : "a one-hot encoder")
        if categoryType == nil {
            context.fail("the one-hot encoder has no categories (stringCategories or int64Categories)")
        }
        if !outputSparse, let output = description.output.first {
            let count: Int? = switch categoryType {
            case .int64Categories(let list)?: list.vector.count
            case .stringCategories(let list)?: list.vector.count
            case nil: nil
            }
            if let count, count > 0 { model.validateOutputWidth(output.name, count: count, maker: "one value per category", in: &context) }
        }
        if case .UNRECOGNIZED(let value) = handleUnknown {
            context.fail("handleUnknown \(value) is neither ErrorOnUnknown (0) nor IgnoreUnknown (1)")
        }
    }
}
