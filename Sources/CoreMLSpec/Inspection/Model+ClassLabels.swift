extension CoreML_Specification_Model {
    /// The class labels of a classifier of any kind (for pipelines, those of the last model; for
    /// k-NN, the distinct labels of its samples in order of first appearance);
    /// `.none` for models that are not classifiers.
    public var classLabelSet: ClassLabelSet {
        switch type {
        case .neuralNetworkClassifier(let classifier)?: return classifier.classLabelSet
        case .kNearestNeighborsClassifier(let knn)?: return knn.classLabelSet.distinct
        case .glmClassifier(let glm)?: return glm.classLabelSet
        case .supportVectorClassifier(let svm)?: return svm.classLabelSet
        case .treeEnsembleClassifier(let trees)?: return trees.classLabelSet
        case .pipelineClassifier(let classifier)?: return classifier.pipeline.models.last?.classLabelSet ?? .none
        default: return .none
        }
    }
}

extension ClassLabelSet {
    /// Each label once, in order of first appearance.
    public var distinct: ClassLabelSet {
        switch self {
        case .strings(let labels):
            var seen = Set<String>()
            return .strings(labels.filter { seen.insert($0).inserted })
        case .int64s(let labels):
            var seen = Set<Int64>()
            return .int64s(labels.filter { seen.insert($0).inserted })
        case .none:
            return .none
        }
    }
}

extension CoreML_Specification_SupportVectorClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }
}

extension CoreML_Specification_TreeEnsembleClassifier {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }
}

extension CoreML_Specification_NonMaximumSuppression {
    /// The class labels, whichever type they have.
    public var classLabelSet: ClassLabelSet {
        switch classLabels {
        case .stringClassLabels(let labels)?: return .strings(labels.vector)
        case .int64ClassLabels(let labels)?: return .int64s(labels.vector)
        case nil: return .none
        }
    }
}
