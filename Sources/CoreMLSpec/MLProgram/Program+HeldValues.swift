extension CoreML_Specification_MILSpec_Program {
    /// Calls `body` with each value an operation holds — its attributes (a `const`'s "val") and the
    /// values bound to its inputs — to read or replace it, with the operation's first output name
    /// (or its type) and the attribute or input name.
    ///
    /// Order: functions by name, each function's bodies by opset name (only the body for its opset
    /// when `opsetBodiesOnly`), operations in order with their nested blocks after them,
    /// attributes by name, then inputs by name.
    public mutating func updateHeldValues(
        opsetBodiesOnly: Bool,
        _ body: (_ operation: String, _ name: String, _ value: inout CoreML_Specification_MILSpec_Value) throws -> Void
    ) throws {
        func update(_ block: inout CoreML_Specification_MILSpec_Block) throws {
            for index in block.operations.indices {
                let owner = block.operations[index].outputs.first?.name ?? block.operations[index].type
                for key in block.operations[index].attributes.keys.sorted() {
                    try body(owner, key, &block.operations[index].attributes[key]!)
                }
                for key in block.operations[index].inputs.keys.sorted() {
                    for binding in block.operations[index].inputs[key]!.arguments.indices {
                        if case .value(var value)? = block.operations[index].inputs[key]!.arguments[binding].binding {
                            try body(owner, key, &value)
                            block.operations[index].inputs[key]!.arguments[binding].value = value
                        }
                    }
                }
                for nested in block.operations[index].blocks.indices {
                    try update(&block.operations[index].blocks[nested])
                }
            }
        }
        for name in functions.keys.sorted() {
            let opset = functions[name]!.opset
            for specialization in functions[name]!.blockSpecializations.keys.sorted() where !opsetBodiesOnly || specialization == opset {
                try update(&functions[name]!.blockSpecializations[specialization]!)
            }
        }
    }
}
