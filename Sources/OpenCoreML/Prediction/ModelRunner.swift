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
    /// past `loopWorkLimit` multiply-adds' worth of work; an ML Program runs its function `functionName`.
    static func make(_ specification: CoreML_Specification_Model, parameters: [MLParameterKey: Any], memoryLimit: Int,
                     loopWorkLimit: Int = ProgramPlan.defaultLoopWorkLimit, budget: MemoryBudget? = nil,
                     functionName: String = CoreML_Specification_MILSpec_Program.mainFunctionName) throws -> any ModelRunner {
        switch specification.type {
        case .kNearestNeighborsClassifier?:
            return try NearestNeighborsRunner(specification: specification, parameters: parameters)
        case .pipeline?, .pipelineClassifier?, .pipelineRegressor?:
            return try PipelineRunner(specification: specification, models: specification.pipelineModels, parameters: parameters,
                                      memoryLimit: memoryLimit, loopWorkLimit: loopWorkLimit, budget: budget ?? MemoryBudget(limit: memoryLimit))
        case .oneHotEncoder?:
            return try OneHotEncoderRunner(specification: specification, memoryLimit: memoryLimit)
        case .imputer?:
            return try ImputerRunner(specification: specification, memoryLimit: memoryLimit)
        case .featureVectorizer?:
            return try FeatureVectorizerRunner(specification: specification, memoryLimit: memoryLimit)
        case .dictVectorizer?:
            return try DictVectorizerRunner(specification: specification, memoryLimit: memoryLimit)
        case .scaler?:
            return try ScalerRunner(specification: specification, memoryLimit: memoryLimit)
        case .categoricalMapping?:
            return try CategoricalMappingRunner(specification: specification)
        case .normalizer?:
            return try NormalizerRunner(specification: specification)
        case .arrayFeatureExtractor?:
            return try ArrayFeatureExtractorRunner(specification: specification)
        case .identity?:
            return try IdentityRunner(specification: specification)
        case .classConfidenceThresholding?:
            return try ClassConfidenceThresholdingRunner(specification: specification, memoryLimit: memoryLimit)
        case .glmRegressor?:
            return try GLMRegressorRunner(specification: specification, memoryLimit: memoryLimit)
        case .glmClassifier?:
            return try GLMClassifierRunner(specification: specification, memoryLimit: memoryLimit)
        case .supportVectorRegressor?:
            return try SupportVectorRegressorRunner(specification: specification, memoryLimit: memoryLimit)
        case .supportVectorClassifier?:
            return try SupportVectorClassifierRunner(specification: specification, memoryLimit: memoryLimit)
        case .bayesianProbitRegressor?:
            return try BayesianProbitRegressorRunner(specification: specification, memoryLimit: memoryLimit)
        case .nonMaximumSuppression?:
            return try NonMaximumSuppressionRunner(specification: specification, memoryLimit: memoryLimit)
        case .itemSimilarityRecommender?:
            return try ItemSimilarityRecommenderRunner(specification: specification, memoryLimit: memoryLimit)
        case .linkedModel(let link)?:
            throw MLModelError(.generic, "the linked model '\(link.linkedModelFile.linkedModelFileName.defaultValue)' can predict only when its model "
                + "is loaded from a file (MLModel(contentsOf:)), which finds the file it links to")
        case .treeEnsembleRegressor?, .treeEnsembleClassifier?:
            return try TreeEnsembleRunner(specification: specification, memoryLimit: memoryLimit)
        case .mlProgram?:
            return try MLProgramRunner(specification: specification, budget: budget ?? MemoryBudget(limit: memoryLimit), loopWorkLimit: loopWorkLimit,
                                       functionName: functionName)
        default:
            guard specification.neuralNetworkSpecification != nil else {
                throw MLModelError(.generic, "prediction for \(specification.modelTypeName) models is not supported yet")
            }
            // The classic engine compiles one input size; flexible inputs run on the program's interpreter.
            if Network.hasNodes(forEveryLayerOf: specification) && !hasFlexibleInputs(specification) {
                return try NeuralNetworkRunner(specification: specification, memoryLimit: memoryLimit)
            }
            // Layers the classic engine has no node for: the network runs as an ML Program, its
            // custom layers computed by the app's classes.
            let customOperations = try specification.neuralNetworkSpecification.map(MLCustomLayerRegistry.operations(for:)) ?? [:]
            let program: CoreML_Specification_Model
            do {
                program = try ClassicLowering.program(for: specification)
            } catch let error as EngineError {
                throw MLModelError(.generic, error.description)
            }
            return try MLProgramRunner(specification: program, budget: budget ?? MemoryBudget(limit: memoryLimit), loopWorkLimit: loopWorkLimit,
                                       outputsTakeDeclaredShapes: true, customOperations: customOperations)
        }
    }

    /// Whether an input of `specification` takes more than one shape: a multi-array with a shape
    /// range or several enumerated shapes, or an image with a size range or several sizes.
    static func hasFlexibleInputs(_ specification: CoreML_Specification_Model) -> Bool {
        specification.description_p.input.contains { input in
            switch input.type.type {
            case .multiArrayType(let array)?:
                switch array.shapeFlexibility {
                case .shapeRange(let range)?: return range.sizeRanges.contains { $0.lowerBound != $0.upperBound }
                case .enumeratedShapes(let shapes)?: return shapes.shapes.count > 1
                case nil: return false
                }
            case .imageType(let image)?:
                switch image.sizeFlexibility {
                case .imageSizeRange(let range)?:
                    return range.widthRange.lowerBound != range.widthRange.upperBound || range.heightRange.lowerBound != range.heightRange.upperBound
                case .enumeratedSizes(let sizes)?: return sizes.sizes.count > 1
                case nil: return false
                }
            default: return false
            }
        }
    }
}
