extension CoreML_Specification_DictVectorizer {
    /// Core ML's rules: one dictionary input; one output; the key list set. Core ML's validator
    /// wants a dictionary output (`{position: value}`, which coremltools' converter follows with a
    /// feature vectorizer); OpenCoreML also takes a multi-array output, the dense array the
    /// format's documentation describes.
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        let description = model.description_p
        context.checkFeatures(description.input, kind: "input", limit: 1, allowed: [.dictionary], model: "a dict vectorizer")
        context.checkFeatures(description.output, kind: "output", limit: 1, allowed: [.dictionary, .multiArray], model: "a dict vectorizer")
        if let output = description.output.first, case .dictionaryType(let dictionary)? = output.type.type,
           case .stringKeyType? = dictionary.keyType
        {
            context.fail("the dict vectorizer's dictionary output has Int64 keys (positions), not String", at: "output '\(output.name)'")
        }
        guard let input = description.input.first, case .dictionaryType(let dictionary)? = input.type.type else { return }
        switch (map, dictionary.keyType) {
        case (nil, _):
            context.fail("the dict vectorizer has no key list (stringToIndex or int64ToIndex)")
        case (.stringToIndex?, .int64KeyType?):
            context.fail("the dict vectorizer's keys are strings, but the input's keys are Int64", at: "input '\(input.name)'")
        case (.int64ToIndex?, .stringKeyType?):
            context.fail("the dict vectorizer's keys are Int64, but the input's keys are strings", at: "input '\(input.name)'")
        default:
            break
        }
    }
}
