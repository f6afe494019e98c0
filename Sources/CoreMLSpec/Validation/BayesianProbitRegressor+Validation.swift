extension CoreML_Specification_BayesianProbitRegressor {
    /// The regression input must name a multi-array input of rank 1 (value i of feature i) or rank
    /// 2 ([n, 2] rows of feature id and value); the optimism and sampling inputs, when named, number
    /// inputs; every output must be one the model names (mean, variance, pessimistic or sampled
    /// probability) and a number; every precision positive and finite, every mean finite; feature
    /// ids below numberOfFeatures, and no (feature id, feature value) pair weighted twice.
    ///
    /// Core ML's validator asks for INT32 multi-arrays of rank 1 or 2 for every input; OpenCoreML
    /// accepts multi-arrays of any data type, and numbers for the optimism and sampling inputs,
    /// as the format's comments describe them.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        if regressionInputFeatureName.isEmpty {
            context.fail("the regression input is not named (regressionInputFeatureName)")
        } else if let input = description.input.first(where: { $0.name == regressionInputFeatureName }) {
            if case .multiArrayType(let array)? = input.type.type {
                if array.shape.count > 2 || (array.shape.count == 2 && array.shape[1] != 2) {
                    context.fail("the regression input must be a vector or an [n, 2] matrix of feature ids and values; its shape is \(array.shape)",
                                 at: "input '\(input.name)'")
                }
            } else {
                context.fail("the regression input must be a multi-array; it is \(input.type.summary)", at: "input '\(input.name)'")
            }
        } else {
            context.fail("the regression input '\(regressionInputFeatureName)' is not among the inputs")
        }
        for (role, name) in [("optimism", optimismInputFeatureName), ("sampling scale", samplingScaleInputFeatureName),
                             ("sampling truncation", samplingTruncationInputFeatureName)] where !name.isEmpty {
            guard let input = description.input.first(where: { $0.name == name }) else {
                context.fail("the \(role) input '\(name)' is not among the inputs")
                continue
            }
            switch input.type.type {
            case .doubleType?, .int64Type?, .multiArrayType?: break
            default: context.fail("the \(role) input must be a number; it is \(input.type.summary)", at: "input '\(name)'")
            }
        }
        let named = Set([meanOutputFeatureName, varianceOutputFeatureName, pessimisticProbabilityOutputFeatureName,
                         sampledProbabilityOutputFeatureName].filter { !$0.isEmpty })
        for output in description.output {
            if !named.contains(output.name) {
                context.fail("the model computes no output of this name (it names \(named.sorted()))", at: "output '\(output.name)'")
            }
            switch output.type.type {
            case .doubleType?, .multiArrayType?: break
            default: context.fail("the output must be a double; it is \(output.type.summary)", at: "output '\(output.name)'")
            }
        }
        func check(_ gaussian: Gaussian, _ what: String) {
            if !gaussian.mean.isFinite { context.fail("the mean \(gaussian.mean) of \(what) must be finite") }
            if !(gaussian.precision > 0) || !gaussian.precision.isFinite {
                context.fail("the precision \(gaussian.precision) of \(what) must be positive and finite")
            }
        }
        if hasBias { check(bias, "the bias") }
        var seen = Set<UInt64>()
        for feature in features {
            if feature.featureID >= numberOfFeatures {
                context.fail("feature id \(feature.featureID) is not below numberOfFeatures (\(numberOfFeatures))")
            }
            for weight in feature.weights {
                check(weight.featureWeight, "feature \(feature.featureID) value \(weight.featureValue)")
                if !seen.insert(UInt64(feature.featureID) << 32 | UInt64(weight.featureValue)).inserted {
                    context.fail("feature \(feature.featureID) has two weights for value \(weight.featureValue)")
                }
            }
        }
    }
}
