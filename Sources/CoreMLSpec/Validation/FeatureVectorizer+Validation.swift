extension CoreML_Specification_FeatureVectorizer {
    /// Core ML's rules: Int64, Double, multi-array or dictionary inputs; one multi-array output;
    /// every column at least one value wide. OpenCoreML also checks that the widths add up to a
    /// count (a hostile file's `UInt64.max` widths do not), that each column names an input, and
    /// that a column's width is its input's: 1 for a number, the element count of a multi-array of
    /// fixed declared shape.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: nil, allowed: [.int64, .double, .multiArray, .dictionary],
                              model: "a feature vectorizer")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.multiArray], model: "a feature vectorizer")
        if inputList.isEmpty {
            context.fail("the feature vectorizer has no input columns")
        }
        let inputs = Dictionary(description.input.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var total = 0
        for (index, column) in inputList.enumerated() {
            let part = "input column \(index + 1) '\(column.inputColumn)'"
            if column.inputDimensions == 0 {
                context.fail("inputDimensions must be positive", at: part)
            }
            guard let width = checkedSize(column.inputDimensions) else {
                context.fail(SizeCheckFailure.size(column.inputDimensions, what: "inputDimensions"), at: part)
                continue
            }
            switch inputs[column.inputColumn]?.type.type {
            case nil:
                context.fail("the model has no input of this name", at: part)
            case (.doubleType? ), (.int64Type?):
                if width != 1 { context.fail("inputDimensions is \(width), but the input is one number", at: part) }
            case .multiArrayType(let array)? where array.shapeFlexibility == nil && !array.shape.isEmpty:
                if let declared = checkedProduct(array.shape), declared != width {
                    context.fail("inputDimensions is \(width), but the input's shape \(array.shape) holds \(declared) values", at: part)
                }
            default:
                break
            }
            let (sum, overflow) = total.addingReportingOverflow(width)
            if overflow {
                context.fail("the columns' widths add up to more than a 64-bit count can hold")
                return
            }
            total = sum
        }
        if let output = description.output.first {
            model.validateOutputWidth(output.name, count: total, maker: "the columns together", in: &context)
        }
    }
}
