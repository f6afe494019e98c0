extension CoreML_Specification_DictVectorizer {
    /// Core ML's rules: one dictionary input; one output; the key list set. Core ML's validator
    /// wants a dictionary output (`{position: value}`, which coremltools' converter follows with a
    /// feature vectorizer); OpenCoreML also takes a multi-array output, the dense array the
    /// format's documentation describes. The input's key type need not be the key list's (Core ML
    /// takes the String-keyed input coremltools declares for a list of Int64 keys); keys match by
    /// value (see the runner).
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.dictionary], model: "a dict vectorizer")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.dictionary, .multiArray], model: "a dict vectorizer")
        if let output = description.output.first, case .dictionaryType(let dictionary)? = output.type.type,
           case .stringKeyType? = dictionary.keyType
        {
            context.fail("the dict vectorizer's dictionary output has Int64 keys (positions), not String", at: "output '\(output.name)'")
        }
        if map == nil {
            context.fail("the dict vectorizer has no key list (stringToIndex or int64ToIndex)")
        }
    }
}
