import SwiftProtobuf

extension CoreML_Specification_Model {
    /// The name of the model type, as the `Type` oneof in Apple's specification names it
    /// (`neuralNetwork`, `kNearestNeighborsClassifier`, ...), or `unknown` when none is set.
    public var modelTypeName: String {
        switch type {
        case .pipelineClassifier: return "pipelineClassifier"
        case .pipelineRegressor: return "pipelineRegressor"
        case .pipeline: return "pipeline"
        case .glmRegressor: return "glmRegressor"
        case .supportVectorRegressor: return "supportVectorRegressor"
        case .treeEnsembleRegressor: return "treeEnsembleRegressor"
        case .neuralNetworkRegressor: return "neuralNetworkRegressor"
        case .bayesianProbitRegressor: return "bayesianProbitRegressor"
        case .glmClassifier: return "glmClassifier"
        case .supportVectorClassifier: return "supportVectorClassifier"
        case .treeEnsembleClassifier: return "treeEnsembleClassifier"
        case .neuralNetworkClassifier: return "neuralNetworkClassifier"
        case .kNearestNeighborsClassifier: return "kNearestNeighborsClassifier"
        case .neuralNetwork: return "neuralNetwork"
        case .itemSimilarityRecommender: return "itemSimilarityRecommender"
        case .mlProgram: return "mlProgram"
        case .linkedModel: return "linkedModel"
        case .classConfidenceThresholding: return "classConfidenceThresholding"
        case .oneHotEncoder: return "oneHotEncoder"
        case .imputer: return "imputer"
        case .featureVectorizer: return "featureVectorizer"
        case .dictVectorizer: return "dictVectorizer"
        case .scaler: return "scaler"
        case .categoricalMapping: return "categoricalMapping"
        case .normalizer: return "normalizer"
        case .arrayFeatureExtractor: return "arrayFeatureExtractor"
        case .nonMaximumSuppression: return "nonMaximumSuppression"
        case .identity: return "identity"
        case nil: return unsupportedModelType?.name ?? "unknown"
        }
    }

    /// A model type that Apple's specification defines but OpenCoreML does not model
    /// (kept byte-for-byte as an unknown field), with its field number.
    public var unsupportedModelType: (name: String, fieldNumber: Int)? {
        for number in UnknownFieldScanner.fieldNumbers(in: unknownFields.data) {
            if let name = Self.appleModelTypeNames[number] { return (name, number) }
        }
        return nil
    }

    /// Model types in Apple's `Model.Type` oneof that this schema leaves out, by field number.
    static let appleModelTypeNames: [Int: String] = [
        555: "customModel",
        2000: "textClassifier", 2001: "wordTagger", 2002: "visionFeaturePrint",
        2003: "soundAnalysisPreprocessing", 2004: "gazetteer", 2005: "wordEmbedding",
        2006: "audioFeaturePrint", 3000: "serializedModel",
    ]
}
