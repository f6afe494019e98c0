extension CoreML_Specification_ModelDescription {
    /// The first specification version with states and multifunction models (iOS 18, Core ML 8).
    public static let firstStatesAndFunctionsSpecificationVersion: Int32 = 9

    /// Core ML's rules for a model's states (iOS 18): each a named state wrapping a multi-array
    /// of a fixed shape, no name used twice or also by an input or output.
    func validateStates(specificationVersion: Int32, in context: inout ValidationContext) {
        guard !state.isEmpty else { return }
        if specificationVersion < Self.firstStatesAndFunctionsSpecificationVersion {
            context.fail("states need specification version \(Self.firstStatesAndFunctionsSpecificationVersion) or later; this one has \(specificationVersion)")
        }
        var seen = Set(input.map(\.name) + output.map(\.name))
        for (index, feature) in state.enumerated() {
            let part = context.checkName(feature.name, of: "state", index: index, seen: &seen,
                                         missing: "a state needs a name", twice: "the name is used twice among the inputs, outputs and states")
            context.within(part) { context in
                guard case .stateType(let wrapped)? = feature.type.type, case .arrayType(let array)? = wrapped.type else {
                    context.fail("a state must be of state type, wrapping a multi-array")
                    return
                }
                array.validate(specificationVersion: specificationVersion, in: &context)
                if array.shapeFlexibility != nil { context.fail("a state's shape must be fixed") }
            }
        }
    }

    /// Core ML's rules for a multifunction model (iOS 18): its features are its functions' (the
    /// model's own input, output and state lists stay empty), each function's checked as a
    /// model's are, names distinct, and the default function one of them.
    func validateFunctions(specificationVersion: Int32, in context: inout ValidationContext) {
        if specificationVersion < Self.firstStatesAndFunctionsSpecificationVersion {
            context.fail("multifunction models need specification version \(Self.firstStatesAndFunctionsSpecificationVersion) or later; this one has \(specificationVersion)")
        }
        if !input.isEmpty || !output.isEmpty || !state.isEmpty {
            context.fail("a multifunction model declares its inputs, outputs and states in its functions, not in the model's description")
        }
        var names = Set<String>()
        for (index, function) in functions.enumerated() {
            let part = context.checkName(function.name, of: "function", index: index, seen: &names,
                                         missing: "a function needs a name", twice: "two functions have this name")
            var features = CoreML_Specification_ModelDescription()
            features.input = function.input
            features.output = function.output
            features.state = function.state
            context.within(part) { context in features.validateFeatures(specificationVersion: specificationVersion, in: &context) }
        }
        if !names.contains(defaultFunctionName) {
            context.fail("the default function '\(defaultFunctionName)' is not one of the model's functions (\(functions.map(\.name).joined(separator: ", ")))")
        }
    }
}
