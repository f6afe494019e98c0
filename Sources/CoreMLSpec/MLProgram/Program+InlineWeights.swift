import Foundation

extension CoreML_Specification_Model {
    /// This ML Program with every value its package keeps in a weight file copied into the program
    /// as an immediate value (raw bytes of the declared type), so the model no longer needs its
    /// package. Other models are returned unchanged.
    ///
    /// - Throws: ``ModelFileError`` naming the weight file and offset for a missing file or a bad
    ///   record, or the operation whose stored type or size is not what the program declares
    ///   (checked as ``MLProgramWeights`` checks them).
    public func inliningMLProgramWeights(from package: ModelPackage) throws -> CoreML_Specification_Model {
        guard case .mlProgram(var program)? = type else { return self }
        _ = try MLProgramWeights(program: program, package: package)  // every reference checked first
        var files: [String: MILBlobFile] = [:]
        func inline(_ value: inout CoreML_Specification_MILSpec_Value) throws {
            guard case .blobFileValue(let blobValue)? = value.value else { return }
            if files[blobValue.fileName] == nil {
                files[blobValue.fileName] = try MILBlobFile(contentsOf: package.blobFileURL(blobValue.fileName))
            }
            let blob = try files[blobValue.fileName]!.blob(at: blobValue.offset)
            var tensor = CoreML_Specification_MILSpec_TensorValue()
            tensor.bytes.values = Data(blob.data)
            var immediate = CoreML_Specification_MILSpec_Value.ImmediateValue()
            immediate.tensor = tensor
            value.immediateValue = immediate
        }
        func inline(_ block: inout CoreML_Specification_MILSpec_Block) throws {
            for index in block.operations.indices {
                for key in block.operations[index].attributes.keys {
                    try inline(&block.operations[index].attributes[key]!)
                }
                for key in block.operations[index].inputs.keys {
                    for binding in block.operations[index].inputs[key]!.arguments.indices {
                        if case .value(var value)? = block.operations[index].inputs[key]!.arguments[binding].binding {
                            try inline(&value)
                            block.operations[index].inputs[key]!.arguments[binding].value = value
                        }
                    }
                }
                for nested in block.operations[index].blocks.indices {
                    try inline(&block.operations[index].blocks[nested])
                }
            }
        }
        for name in program.functions.keys {
            for opset in program.functions[name]!.blockSpecializations.keys {
                try inline(&program.functions[name]!.blockSpecializations[opset]!)
            }
        }
        var model = self
        model.mlProgram = program
        return model
    }
}
