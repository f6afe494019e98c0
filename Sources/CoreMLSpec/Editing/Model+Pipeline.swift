extension CoreML_Specification_Model {
    /// The models of a pipeline of any kind (empty for other models; setting them changes only
    /// pipelines).
    public var pipelineModels: [CoreML_Specification_Model] {
        get {
            switch type {
            case .pipeline(let pipeline)?: return pipeline.models
            case .pipelineClassifier(let classifier)?: return classifier.pipeline.models
            case .pipelineRegressor(let regressor)?: return regressor.pipeline.models
            default: return []
            }
        }
        set {
            switch type {
            case .pipeline(var pipeline)?:
                pipeline.models = newValue
                type = .pipeline(pipeline)
            case .pipelineClassifier(var classifier)?:
                classifier.pipeline.models = newValue
                type = .pipelineClassifier(classifier)
            case .pipelineRegressor(var regressor)?:
                regressor.pipeline.models = newValue
                type = .pipelineRegressor(regressor)
            default:
                break
            }
        }
    }

    /// Replaces the last model of a pipeline of any kind (nothing for other models).
    public mutating func replaceLastPipelineModel(with model: CoreML_Specification_Model) {
        switch type {
        case .pipeline(var pipeline)?:
            pipeline.models[pipeline.models.count - 1] = model
            type = .pipeline(pipeline)
        case .pipelineClassifier(var classifier)?:
            classifier.pipeline.models[classifier.pipeline.models.count - 1] = model
            type = .pipelineClassifier(classifier)
        case .pipelineRegressor(var regressor)?:
            regressor.pipeline.models[regressor.pipeline.models.count - 1] = model
            type = .pipelineRegressor(regressor)
        default:
            break
        }
    }

    /// The k-NN classifier of the model itself or of its pipeline's last model.
    public var nearestNeighborsClassifier: CoreML_Specification_KNearestNeighborsClassifier? {
        get {
            if case .kNearestNeighborsClassifier(let knn)? = type { return knn }
            return pipelineModels.last?.nearestNeighborsClassifier
        }
        set {
            guard let newValue else { return }
            if case .kNearestNeighborsClassifier? = type {
                type = .kNearestNeighborsClassifier(newValue)
            } else if var last = pipelineModels.last, last.nearestNeighborsClassifier != nil {
                last.nearestNeighborsClassifier = newValue
                replaceLastPipelineModel(with: last)
            }
        }
    }
}
