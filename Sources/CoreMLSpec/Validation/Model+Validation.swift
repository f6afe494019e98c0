extension CoreML_Specification_Model {
    /// The first specification version with updatable models (iOS 13, Core ML 3).
    public static let firstUpdatableSpecificationVersion: Int32 = 4
    /// The newest specification version OpenCoreML knows (Core ML 9).
    public static let newestKnownSpecificationVersion: Int32 = 10

    /// Checks the model against Core ML's rules and throws the first broken one.
    public func validate() throws {
        if let first = validationIssues().first { throw first }
    }

    /// Every broken rule, in the order the model's parts are visited; empty for a valid model.
    public func validationIssues() -> [ModelValidationError] {
        var context = ValidationContext()
        validate(in: &context)
        return context.issues
    }

    func validate(in context: inout ValidationContext) {
        if specificationVersion <= 0 {
            context.fail("specification version \(specificationVersion) must be positive")
        } else if specificationVersion > Self.newestKnownSpecificationVersion {
            context.fail("specification version \(specificationVersion) is newer than the newest OpenCoreML knows (\(Self.newestKnownSpecificationVersion))")
        }
        if isUpdatable && specificationVersion < Self.firstUpdatableSpecificationVersion {
            context.fail("updatable models need specification version \(Self.firstUpdatableSpecificationVersion) or later; this one has \(specificationVersion)")
        }
        description_p.validateFeatures(specificationVersion: specificationVersion, in: &context)

        switch type {
        case .neuralNetwork(let network):
            validateNeuralNetwork(network, classLabels: nil, in: &context)
        case .neuralNetworkClassifier(let classifier):
            validateNeuralNetwork(classifier, classLabels: classifier.classLabelSet, in: &context)
            validateClassifierOutputs(classLabels: classifier.classLabelSet, in: &context)
        case .neuralNetworkRegressor(let regressor):
            validateNeuralNetwork(regressor, classLabels: nil, in: &context)
        case .kNearestNeighborsClassifier(let knn):
            knn.validate(model: self, in: &context)
        case .glmClassifier(let glm):
            glm.validate(model: self, in: &context)
            validateClassifierOutputs(classLabels: glm.classLabelSet, in: &context)
        case .glmRegressor(let glm):
            glm.validate(model: self, in: &context)
        case .supportVectorRegressor(let svm):
            svm.validate(model: self, in: &context)
        case .supportVectorClassifier(let svm):
            svm.validate(model: self, in: &context)
        case .bayesianProbitRegressor(let probit):
            probit.validate(model: self, in: &context)
        case .pipeline(let pipeline):
            pipeline.validate(model: self, in: &context)
        case .pipelineClassifier(let classifier):
            classifier.pipeline.validate(model: self, in: &context)
        case .pipelineRegressor(let regressor):
            regressor.pipeline.validate(model: self, in: &context)
        case .mlProgram(let program):
            program.validate(model: self, in: &context)
        case .treeEnsembleRegressor(let regressor):
            regressor.validate(model: self, in: &context)
        case .treeEnsembleClassifier(let classifier):
            classifier.validate(model: self, in: &context)
        case .oneHotEncoder(let encoder):
            encoder.validate(model: self, in: &context)
        case .imputer(let imputer):
            imputer.validate(model: self, in: &context)
        case .featureVectorizer(let vectorizer):
            vectorizer.validate(model: self, in: &context)
        case .dictVectorizer(let vectorizer):
            vectorizer.validate(model: self, in: &context)
        case .scaler(let scaler):
            scaler.validate(model: self, in: &context)
        case .categoricalMapping(let mapping):
            mapping.validate(model: self, in: &context)
        case .normalizer(let normalizer):
            normalizer.validate(model: self, in: &context)
        case .arrayFeatureExtractor(let extractor):
            extractor.validate(model: self, in: &context)
        case .identity:
            break  // Core ML takes every identity model; the runner maps outputs to inputs by position.
        case .classConfidenceThresholding(let thresholding):
            thresholding.validate(model: self, in: &context)
        case .nonMaximumSuppression(let suppression):
            suppression.validate(model: self, in: &context)
        case .linkedModel(let link):
            link.validate(model: self, in: &context)
        case .itemSimilarityRecommender(let recommender):
            recommender.validate(model: self, in: &context)
        case nil:
            if let unsupported = unsupportedModelType {
                context.fail("\(unsupported.name) models (field \(unsupported.fieldNumber)) are not supported by OpenCoreML")
            } else {
                context.fail("the model has no model type")
            }
        }
    }

    /// A classifier's predicted-label output must exist and have the labels' type.
    func validateClassifierOutputs(classLabels: ClassLabelSet, in context: inout ValidationContext) {
        let description = description_p
        let predicted = description.predictedFeatureName
        if predicted.isEmpty {
            context.fail("a classifier must name its predicted feature (predictedFeatureName)")
            return
        }
        guard let output = description.output.first(where: { $0.name == predicted }) else {
            context.fail("the predicted feature '\(predicted)' is not among the outputs")
            return
        }
        switch (classLabels, output.type.type) {
        case (.strings, .stringType?), (.int64s, .int64Type?), (.none, _):
            break
        default:
            context.fail("the predicted feature must have the class labels' type (\(classLabels.typeName))", at: "output '\(predicted)'")
        }
        let probabilities = description.predictedProbabilitiesName
        if !probabilities.isEmpty && !description.output.contains(where: { $0.name == probabilities }) {
            context.fail("the predicted probabilities '\(probabilities)' are not among the outputs")
        }
    }
}
