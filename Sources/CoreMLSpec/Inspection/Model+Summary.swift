extension CoreML_Specification_Model {
    /// One line on what a classic model (not a network, program, k-NN or pipeline) holds, as
    /// `inspect` shows it: "Tree ensemble: 300 trees, 8731 nodes (4410 leaves), 1 prediction
    /// dimension, Regression_Logistic". Nil for other model types.
    public var classicSummary: String? {
        switch type {
        case .glmRegressor(let glm)?:
            return "Linear regressor: \(glm.weights.count) output\(plural(glm.weights.count)) × \(glm.weights.first?.value.count ?? 0) inputs, \(glm.postEvaluationTransform)"
        case .supportVectorRegressor(let svm)?:
            return "Support vector regressor: \(kernelText(svm.kernel)), \(supportVectorText(svm.supportVectors))"
        case .supportVectorClassifier(let svm)?:
            let perClass = svm.numberOfSupportVectorsPerClass.map(String.init).joined(separator: " / ")
            return "Support vector classifier: \(kernelText(svm.kernel)), \(svm.classLabelSet.count) classes, \(supportVectorText(svm.supportVectors)) (\(perClass) by class)"
                + (svm.probA.isEmpty ? "" : ", probabilities by pairwise coupling")
        case .treeEnsembleRegressor(let trees)?:
            return treeText(trees.treeEnsemble, trees.postEvaluationTransform)
        case .treeEnsembleClassifier(let trees)?:
            return treeText(trees.treeEnsemble, trees.postEvaluationTransform)
        case .bayesianProbitRegressor(let probit)?:
            let weights = probit.features.reduce(0) { $0 + $1.weights.count }
            return "Bayesian probit regressor: \(probit.numberOfFeatures) features, \(weights) weights"
        case .itemSimilarityRecommender(let recommender)?:
            let links = recommender.itemItemSimilarities.reduce(0) { $0 + $1.similarItemList.count }
            return "Item similarity recommender: \(recommender.itemItemSimilarities.count) items with similar items, \(links) similarities"
        case .linkedModel(let link)?:
            guard case .linkedModelFile(let file)? = link.linkType else { return "Linked model: no link" }
            return "Linked model: file '\(file.linkedModelFileName.defaultValue)', search path '\(file.linkedModelSearchPath.defaultValue)'"
        case .classConfidenceThresholding(let thresholds)?:
            return "Class confidence thresholding: \(thresholds.precisionRecallCurves.count) precision-recall curves"
        case .oneHotEncoder(let encoder)?:
            let categories: String
            switch encoder.categoryType {
            case .stringCategories(let list)?: categories = "\(list.vector.count) string categories"
            case .int64Categories(let list)?: categories = "\(list.vector.count) integer categories"
            case nil: categories = "no categories"
            }
            return "One-hot encoder: \(categories), \(encoder.outputSparse ? "sparse" : "dense") output, unknown categories \(encoder.handleUnknown == .ignoreUnknown ? "ignored" : "an error")"
        case .imputer?:
            return "Imputer"
        case .featureVectorizer(let vectorizer)?:
            let columns = vectorizer.inputList.map { "\($0.inputColumn) (\($0.inputDimensions))" }
            let total = vectorizer.inputList.reduce(UInt64(0)) { $0 &+ $1.inputDimensions }
            return "Feature vectorizer: \(columns.joined(separator: " + ")) → \(total) values"
        case .dictVectorizer(let vectorizer)?:
            switch vectorizer.map {
            case .stringToIndex(let keys)?: return "Dictionary vectorizer: \(keys.vector.count) string keys"
            case .int64ToIndex(let keys)?: return "Dictionary vectorizer: \(keys.vector.count) integer keys"
            case nil: return "Dictionary vectorizer: no keys"
            }
        case .scaler(let scaler)?:
            return "Scaler: (x + shift) × scale, \(max(scaler.shiftValue.count, scaler.scaleValue.count)) values"
        case .categoricalMapping(let mapping)?:
            switch mapping.mappingType {
            case .stringToInt64Map(let map)?: return "Categorical mapping: \(map.map.count) strings → integers"
            case .int64ToStringMap(let map)?: return "Categorical mapping: \(map.map.count) integers → strings"
            case nil: return "Categorical mapping: empty"
            }
        case .normalizer(let normalizer)?:
            return "Normalizer: \(normalizer.normType == .l1 ? "L1" : normalizer.normType == .l2 ? "L2" : "L∞") norm"
        case .arrayFeatureExtractor(let extractor)?:
            return "Array feature extractor: indices \(extractor.extractIndex.prefix(20).map(String.init).joined(separator: ", "))\(extractor.extractIndex.count > 20 ? ", …" : "")"
        case .identity?:
            return "Identity"
        case .nonMaximumSuppression(let nms)?:
            let perClass = if case .pickTop(let top)? = nms.suppressionMethod, top.perClass { "per class" } else { "across classes" }
            return "Non-maximum suppression: IoU threshold \(nms.iouThreshold), confidence threshold \(nms.confidenceThreshold), \(perClass), \(nms.classLabelSet.count) labels"
        default:
            return nil
        }
    }

    private func plural(_ count: Int) -> String { count == 1 ? "" : "s" }

    private func kernelText(_ kernel: CoreML_Specification_Kernel) -> String {
        switch kernel.kernel {
        case .linearKernel?: return "linear kernel"
        case .rbfKernel(let rbf)?: return "RBF kernel (γ \(rbf.gamma))"
        case .polyKernel(let poly)?: return "polynomial kernel (degree \(poly.degree), γ \(poly.gamma), c \(poly.c))"
        case .sigmoidKernel(let sigmoid)?: return "sigmoid kernel (γ \(sigmoid.gamma), c \(sigmoid.c))"
        case nil: return "no kernel"
        }
    }

    private func supportVectorText(_ vectors: CoreML_Specification_SupportVectorClassifier.OneOf_SupportVectors?) -> String {
        switch vectors {
        case .denseSupportVectors(let dense)?: return "\(dense.vectors.count) dense support vectors × \(dense.vectors.first?.values.count ?? 0)"
        case .sparseSupportVectors(let sparse)?: return "\(sparse.vectors.count) sparse support vectors"
        case nil: return "no support vectors"
        }
    }

    private func supportVectorText(_ vectors: CoreML_Specification_SupportVectorRegressor.OneOf_SupportVectors?) -> String {
        switch vectors {
        case .denseSupportVectors(let dense)?: return "\(dense.vectors.count) dense support vectors × \(dense.vectors.first?.values.count ?? 0)"
        case .sparseSupportVectors(let sparse)?: return "\(sparse.vectors.count) sparse support vectors"
        case nil: return "no support vectors"
        }
    }

    private func treeText(_ ensemble: CoreML_Specification_TreeEnsembleParameters, _ transform: CoreML_Specification_TreeEnsemblePostEvaluationTransform) -> String {
        let trees = Set(ensemble.nodes.map(\.treeID)).count
        let leaves = ensemble.nodes.filter { $0.nodeBehavior == .leafNode }.count
        let dimensions = ensemble.numPredictionDimensions
        return "Tree ensemble: \(trees) tree\(plural(trees)), \(ensemble.nodes.count) nodes (\(leaves) leaves), \(dimensions) prediction dimension\(dimensions == 1 ? "" : "s"), \(transform)"
    }
}
