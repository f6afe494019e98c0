extension CoreML_Specification_MILSpec_Program {
    /// The specification version that introduced ML Programs (iOS 15, Core ML 5).
    public static let firstSpecificationVersion: Int32 = 6
    /// The function Core ML runs unless a model names another.
    public static let mainFunctionName = "main"

    /// Core ML's rules for an ML Program: a version that has them, not updatable, a `main`
    /// function whose inputs (and states) are the model's — for a multifunction model, a function
    /// for each the model describes, with its inputs — each function's body for its opset, and every name
    /// an operation reads defined before it (function or block inputs, earlier outputs, outer
    /// blocks' names).
    func validate(model: CoreML_Specification_Model, in context: inout ValidationContext) {
        if model.specificationVersion < Self.firstSpecificationVersion {
            context.fail("ML Programs need specification version \(Self.firstSpecificationVersion) or later; this one has \(model.specificationVersion)")
        }
        if model.isUpdatable {
            context.fail("an ML Program cannot be updatable: Core ML trains only neural networks and k-NN classifiers")
        }
        // A multifunction model (iOS 18) describes each of its functions; any other runs `main`.
        var described = model.description_p.functions.map { ($0.name, $0.input + $0.state) }
        if described.isEmpty { described = [(Self.mainFunctionName, model.description_p.input + model.description_p.state)] }
        for (name, features) in described {
            guard let function = functions[name] else {
                let names = functions.keys.sorted()
                context.fail("the program has no function '\(name)'" + (names.isEmpty ? " (it has no functions)" : " (it has \(names.joined(separator: ", ")))"))
                continue
            }
            let inputs = Set(function.inputs.map(\.name))
            for missing in Set(features.map(\.name)).subtracting(inputs).sorted() {
                context.fail("model input '\(missing)' is not an input of function '\(name)'")
            }
        }
        for name in functions.keys.sorted() {
            context.within("function '\(name)'") { context in
                let function = functions[name]!
                guard !function.opset.isEmpty else {
                    context.fail("the function names no opset")
                    return
                }
                guard let block = function.blockSpecializations[function.opset] else {
                    context.fail("no body for its opset '\(function.opset)'")
                    return
                }
                block.validate(defined: Set(function.inputs.map(\.name)), in: &context)
            }
        }
    }
}

extension CoreML_Specification_MILSpec_Block {
    /// Every operation reads only names defined before it; the block's outputs are defined.
    func validate(defined outer: Set<String>, in context: inout ValidationContext) {
        var defined = outer
        validate(defined: &defined, in: &context)
    }

    /// The same with `defined` the names around the block, shared with the blocks nested in it:
    /// the block adds its own names while it is checked and takes them out again at its end, so
    /// checking is linear in the number of operations, however many blocks hold them.
    private func validate(defined: inout Set<String>, in context: inout ValidationContext) {
        var added: [String] = []
        for input in inputs where defined.insert(input.name).inserted { added.append(input.name) }
        for (index, operation) in operations.enumerated() {
            let label = operation.outputs.first.map { "operation \(index) (\(operation.type) → \($0.name))" } ?? "operation \(index) (\(operation.type))"
            context.within(label) { context in
                if operation.type.isEmpty { context.fail("the operation has no type") }
                for parameter in operation.inputs.keys.sorted() {
                    for binding in operation.inputs[parameter]!.arguments {
                        if case .name(let name)? = binding.binding, !defined.contains(name) {
                            context.fail("input '\(parameter)' reads '\(name)', which nothing before it defines")
                        }
                    }
                }
                for (nested, block) in operation.blocks.enumerated() {
                    context.within("block \(nested)") { context in block.validate(defined: &defined, in: &context) }
                }
            }
            for output in operation.outputs where defined.insert(output.name).inserted { added.append(output.name) }
        }
        for output in outputs where !defined.contains(output) {
            context.fail("block output '\(output)' is not defined in the block")
        }
        for name in added { defined.remove(name) }
    }
}
