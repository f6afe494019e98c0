import Foundation

extension CoreML_Specification_Model {
    /// Reads the model at `url` as ``init(contentsOf:)`` does; for an `.mlpackage` holding ML
    /// Programs (alone or in pipelines), with their weights copied into the programs
    /// (``inliningMLProgramWeights(from:)``), so the model stands alone.
    public init(selfContainedContentsOf url: URL) throws {
        self = try CoreML_Specification_Model(contentsOf: url)
        if ModelPackage.isPackage(url) {
            self = try inliningMLProgramWeights(from: ModelPackage(contentsOf: url))
        }
    }

    /// This ML Program with every value its package keeps in a weight file copied into the program
    /// as an immediate value (raw bytes of the declared type), so the model no longer needs its
    /// package (for each function, the body for its opset; other specializations keep their
    /// references). The ML Programs inside a pipeline (which share the pipeline package's weight
    /// files) are inlined the same way; other models are returned unchanged.
    ///
    /// - Throws: ``ModelFileError`` naming the weight file and offset for a missing file or a bad
    ///   record, or the operation whose stored type or size is not what the program declares
    ///   (checked as ``MLProgramWeights`` checks them).
    public func inliningMLProgramWeights(from package: ModelPackage) throws -> CoreML_Specification_Model {
        if !pipelineModels.isEmpty {
            var model = self
            model.pipelineModels = try pipelineModels.map { try $0.inliningMLProgramWeights(from: package) }
            return model
        }
        guard case .mlProgram(var program)? = type else { return self }
        // Every reference resolved and checked once; the values come from those entries.
        var stored: [String: Data] = [:]
        for entry in try MLProgramWeights(program: program, package: package).entries {
            stored["\(entry.offset)@\(entry.fileName)"] = entry.data
        }
        try program.updateHeldValues(opsetBodiesOnly: true) { _, _, value in
            guard case .blobFileValue(let blobValue)? = value.value else { return }
            guard let data = stored["\(blobValue.offset)@\(blobValue.fileName)"] else {
                throw ModelFileError(.corrupt, path: package.rootModelURL.path, reason: "blob '\(blobValue.fileName)' at \(blobValue.offset) was not resolved")
            }
            var tensor = CoreML_Specification_MILSpec_TensorValue()
            tensor.bytes.values = Data(data)
            var immediate = CoreML_Specification_MILSpec_Value.ImmediateValue()
            immediate.tensor = tensor
            value.immediateValue = immediate
        }
        var model = self
        model.mlProgram = program
        return model
    }
}
