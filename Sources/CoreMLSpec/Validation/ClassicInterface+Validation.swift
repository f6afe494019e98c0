extension CoreML_Specification_Model {
    /// A classic model's inputs must be numbers or multi-arrays (Core ML's "vectorizable" types);
    /// returns how many values they hold together, or nil when one is not declared with a shape
    /// or has a hostile one.
    func validateVectorizableInputs(in context: inout ValidationContext) -> Int? {
        var width: Int? = 0
        for feature in description_p.input {
            switch feature.type.type {
            case .doubleType?, .int64Type?:
                width = width.flatMap { $0.addingReportingOverflow(1).overflow ? nil : $0 + 1 }
            case .multiArrayType(let array)?:
                guard !array.shape.isEmpty, let size = checkedProduct(array.shape) else {
                    width = nil
                    continue
                }
                width = width.flatMap { current in
                    let (sum, overflow) = current.addingReportingOverflow(size)
                    return overflow ? nil : sum
                }
            default:
                context.fail("a \(modelTypeName) model takes numbers and multi-arrays; this input is \(feature.type.summary)", at: "input '\(feature.name)'")
                width = nil
            }
        }
        return width
    }

    /// The output named `name` when it is a multi-array of one fixed, declared shape whose element
    /// count is not `count`: a model that makes `count` values cannot fill it.
    func validateOutputWidth(_ name: String, count: Int, maker: String, in context: inout ValidationContext) {
        guard let output = description_p.output.first(where: { $0.name == name }),
              case .multiArrayType(let array)? = output.type.type, array.shapeFlexibility == nil,
              !array.shape.isEmpty, let declared = checkedProduct(array.shape), declared != count else { return }
        context.fail("declares shape \(array.shape) (\(declared) values), but \(maker) makes \(count)", at: "output '\(name)'")
    }

    /// A regressor's predicted feature must be named and be a number or a multi-array output.
    func validateRegressorOutput(in context: inout ValidationContext) {
        let predicted = description_p.predictedFeatureName
        guard !predicted.isEmpty else {
            context.fail("a regressor must name its predicted feature (predictedFeatureName)")
            return
        }
        guard let output = description_p.output.first(where: { $0.name == predicted }) else {
            context.fail("the predicted feature '\(predicted)' is not among the outputs")
            return
        }
        switch output.type.type {
        case .doubleType?, .multiArrayType?:
            break
        default:
            context.fail("the predicted feature of a regressor must be a double or a multi-array", at: "output '\(predicted)'")
        }
    }
}
