extension CoreML_Specification_Model {
    /// The class labels of a classifier of any kind (for pipelines, those of the last model);
    /// `.none` for models that are not classifiers.
    public var classLabelSet: ClassLabelSet {
        switch type {
        case .neuralNetworkClassifier(let classifier)?: return classifier.classLabelSet
        case .kNearestNeighborsClassifier(let knn)?: return knn.classLabelSet
        case .glmClassifier(let glm)?: return glm.classLabelSet
        case .pipelineClassifier(let classifier)?: return classifier.pipeline.models.last?.classLabelSet ?? .none
        default: return .none
        }
    }
}
