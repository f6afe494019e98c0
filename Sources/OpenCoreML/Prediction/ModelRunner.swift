import CoreMLSpec
import _OpenCoreMLEngine

/// Something that turns examples into predictions for one kind of model, compiled once.
protocol ModelRunner: AnyObject, Sendable {
    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider]
}

enum ModelRunners {
    /// The runner for `specification`; `parameters` are the configuration's checked overrides
    /// (for pipelines they apply to the last model, the one that declares parameters); neural
    /// networks refuse to size buffers beyond `memoryLimit` bytes; ML Programs draw from `budget`
    /// (one of `memoryLimit` bytes when nil, so a pipeline's stages can share one) and stop loops
    /// past `loopWorkLimit` multiply-adds' worth of work.
    static func make(_ specification: CoreML_Specification_Model, parameters: [MLParameterKey: Any], memoryLimit: Int,
                     loopWorkLimit: Int = ProgramPlan.defaultLoopWorkLimit, budget: MemoryBudget? = nil) throws -> any ModelRunner {
        switch specification.type {
        case .kNearestNeighborsClassifier?:
            return try NearestNeighborsRunner(specification: specification, parameters: parameters)
        case .pipeline?, .pipelineClassifier?, .pipelineRegressor?:
            return try PipelineRunner(specification: specification, models: specification.pipelineModels, parameters: parameters,
                                      memoryLimit: memoryLimit, loopWorkLimit: loopWorkLimit, budget: budget ?? MemoryBudget(limit: memoryLimit))
        case .treeEnsembleRegressor?, .treeEnsembleClassifier?:
            return try TreeEnsembleRunner(specification: specification, memoryLimit: memoryLimit)
        case .mlProgram?:
            return try MLProgramRunner(specification: specification, budget: budget ?? MemoryBudget(limit: memoryLimit), loopWorkLimit: loopWorkLimit)
        default:
            guard specification.neuralNetworkSpecification != nil else {
                throw MLModelError(.generic, "prediction for \(specification.modelTypeName) models is not supported yet")
            }
            return try NeuralNetworkRunner(specification: specification, memoryLimit: memoryLimit)
        }
    }
}
