import SwiftProtobuf

extension CoreML_Specification_Model {
    /// The name of the model type, as the `Type` oneof in Apple's specification names it
    /// (`neuralNetwork`, `kNearestNeighborsClassifier`, ...), or `unknown` when none is set.
    public var modelTypeName: String {
        switch type {
        case .pipelineClassifier: return "pipelineClassifier"
        case .pipelineRegressor: return "pipelineRegressor"
        case .pipeline: return "pipeline"
        case .glmClassifier: return "glmClassifier"
        case .neuralNetworkRegressor: return "neuralNetworkRegressor"
        case .neuralNetworkClassifier: return "neuralNetworkClassifier"
        case .kNearestNeighborsClassifier: return "kNearestNeighborsClassifier"
        case .neuralNetwork: return "neuralNetwork"
        case .mlProgram: return "mlProgram"
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
        300: "glmRegressor", 301: "supportVectorRegressor", 302: "treeEnsembleRegressor",
        304: "bayesianProbitRegressor", 401: "supportVectorClassifier", 402: "treeEnsembleClassifier",
        501: "itemSimilarityRecommender", 555: "customModel", 556: "linkedModel",
        560: "classConfidenceThresholding", 600: "oneHotEncoder", 601: "imputer",
        602: "featureVectorizer", 603: "dictVectorizer", 604: "scaler", 606: "categoricalMapping",
        607: "normalizer", 609: "arrayFeatureExtractor", 610: "nonMaximumSuppression", 900: "identity",
        2000: "textClassifier", 2001: "wordTagger", 2002: "visionFeaturePrint",
        2003: "soundAnalysisPreprocessing", 2004: "gazetteer", 2005: "wordEmbedding",
        2006: "audioFeaturePrint", 3000: "serializedModel",
    ]
}
