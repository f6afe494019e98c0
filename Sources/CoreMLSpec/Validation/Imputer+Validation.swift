extension CoreML_Specification_Imputer {
    /// Core ML's rules: one input and one output of the same kind (Int64, Double, multi-array,
    /// String or dictionary); arrays one-dimensional and of the same length; the imputed value set
    /// and of a kind the input can take, with a replace value of the matching type (none for
    /// dictionaries); an imputed array as long as the input.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        let kinds: [FeatureKind] = [.int64, .double, .multiArray, .string, .dictionary]
        guard context.checkFeatures(description.input, kind: "input", limit: 1, allowed: kinds, model: "an imputer"),
              context.checkFeatures(description.output, kind: "output", limit: 1, allowed: kinds, model: "an imputer"),
              let input = description.input.first, let output = description.output.first
        else { return }
        guard FeatureKind(input.type) == FeatureKind(output.type) else {
            context.fail("the input is \(input.type.summary) but the output is \(output.type.summary); an imputer keeps the type")
            return
        }
        var length: Int64?
        if case .multiArrayType(let array)? = input.type.type {
            guard array.shape.count == 1 else {
                context.fail("an imputer takes one-dimensional arrays; the shape is \(array.shape)", at: "input '\(input.name)'")
                return
            }
            length = array.shape[0]
            if output.type.multiArrayType.shape != array.shape {
                context.fail("the output's shape \(output.type.multiArrayType.shape) differs from the input's \(array.shape)")
            }
        }
        let kind = FeatureKind(input.type)
        func check(_ kinds: Set<FeatureKind>, replace: Set<String>, what: String) {
            guard let kind, kinds.contains(kind) else {
                context.fail("an imputed \(what) does not fit \(input.type.summary)", at: "input '\(input.name)'")
                return
            }
            if let replaceKind = replaceValueKind, !replace.contains(replaceKind) {
                context.fail("the replace value is \(replaceKind), which does not fit an imputed \(what)")
            }
        }
        switch imputedValue {
        case .imputedDoubleValue?:
            check([.double, .multiArray], replace: ["Double"], what: "Double")
        case .imputedInt64Value?:
            check([.int64], replace: ["Int64"], what: "Int64")
        case .imputedStringValue?:
            check([.string], replace: ["String"], what: "String")
        case .imputedDoubleArray(let values)?:
            check([.multiArray], replace: ["Double"], what: "Double array")
            if let length, Int64(values.vector.count) != length {
                context.fail("the imputed array has \(values.vector.count) values; the input has \(length)")
            }
        case .imputedInt64Array(let values)?:
            check([.multiArray], replace: ["Int64"], what: "Int64 array")
            if let length, Int64(values.vector.count) != length {
                context.fail("the imputed array has \(values.vector.count) values; the input has \(length)")
            }
        case .imputedStringDictionary?:
            check([.dictionary], replace: [], what: "[String: Double] dictionary")
            if case .int64KeyType? = input.type.dictionaryType.keyType {
                context.fail("the imputed dictionary has String keys; the input's keys are Int64", at: "input '\(input.name)'")
            }
        case .imputedInt64Dictionary?:
            check([.dictionary], replace: [], what: "[Int64: Double] dictionary")
            if case .stringKeyType? = input.type.dictionaryType.keyType {
                context.fail("the imputed dictionary has Int64 keys; the input's keys are String", at: "input '\(input.name)'")
            }
        case nil:
            context.fail("the imputer has no imputed value")
        }
    }

    /// The type of the replace value, if one is set.
    private var replaceValueKind: String? {
        switch replaceValue {
        case .replaceDoubleValue?: return "Double"
        case .replaceInt64Value?: return "Int64"
        case .replaceStringValue?: return "String"
        case nil: return nil
        }
    }
}
