import CoreMLSpec
import Foundation

extension ModelReport {
    /// Gathers the report from a model's specification.
    init(_ model: CoreML_Specification_Model, path: String? = nil) {
        let description = model.description_p
        self.path = path
        modelType = model.modelTypeName
        specificationVersion = Int(model.specificationVersion)
        coreMLVersion = Self.coreMLVersion(of: model.specificationVersion)
        isUpdatable = model.isUpdatable
        let meta = description.metadata
        metadata = Metadata(
            author: meta.author.nonEmpty, license: meta.license.nonEmpty,
            shortDescription: meta.shortDescription.nonEmpty, versionString: meta.versionString.nonEmpty,
            userDefined: meta.userDefined)
        inputs = description.input.map(Feature.init)
        outputs = description.output.map(Feature.init)
        trainingInputs = description.trainingInput.map(Feature.init)
        states = description.state.map(Feature.init)
        functions = description.functions.isEmpty ? nil : description.functions.map {
            DescribedFunction(name: $0.name, isDefault: $0.name == description.defaultFunctionName, inputs: $0.input.map(Feature.init),
                              outputs: $0.output.map(Feature.init), states: $0.state.map(Feature.init))
        }
        predictedFeatureName = description.predictedFeatureName.nonEmpty
        predictedProbabilitiesName = description.predictedProbabilitiesName.nonEmpty
        let labels = model.classLabelSet
        classLabels = labels == .none ? nil : labels.descriptions
        issues = model.validationIssues().map(\.description)
        summary = model.classicSummary

        if let network = model.neuralNetworkSpecification {
            let layers = network.layers.map {
                Layer(name: $0.name, type: $0.layerTypeName, inputs: $0.input, outputs: $0.output,
                      parameterCount: $0.parameterCount, isUpdatable: $0.isUpdatable, isModeled: $0.isSupportedLayerType)
            }
            neuralNetwork = NeuralNetwork(
                layerCount: layers.count, parameterCount: network.parameterCount,
                updatableParameterCount: layers.filter(\.isUpdatable).reduce(0) { $0 + $1.parameterCount },
                layers: layers,
                updateParameters: network.hasUpdateParams ? UpdateParameters(network.updateParams) : nil)
        }
        switch model.type {
        case .kNearestNeighborsClassifier(let knn)?:
            kNearestNeighbors = NearestNeighbors(knn)
        case .glmClassifier(let glm)?:
            glmClassifier = LinearClassifier(
                classEncoding: String(describing: glm.classEncoding), postEvaluationTransform: String(describing: glm.postEvaluationTransform),
                classCount: glm.classLabelSet.count, inputDimensions: glm.weights.first?.value.count ?? 0)
        case .pipeline(let pipeline)?:
            self.pipeline = Self.reports(of: pipeline)
        case .pipelineClassifier(let classifier)?:
            self.pipeline = Self.reports(of: classifier.pipeline)
        case .pipelineRegressor(let regressor)?:
            self.pipeline = Self.reports(of: regressor.pipeline)
        case .mlProgram(let program)?:
            mlProgram = MLProgram(program)
        default:
            break
        }
    }

    private static func reports(of pipeline: CoreML_Specification_Pipeline) -> [ModelReport] {
        pipeline.models.enumerated().map { index, model in
            var report = ModelReport(model)
            report.pipelineModelName = index < pipeline.names.count ? pipeline.names[index].nonEmpty : nil
            report.issues = []  // reported once, by the pipeline
            return report
        }
    }

    static func coreMLVersion(of specificationVersion: Int32) -> String {
        let versions = [1: "Core ML 1, iOS 11", 2: "Core ML 1.2, iOS 11.2", 3: "Core ML 2, iOS 12", 4: "Core ML 3, iOS 13",
                        5: "Core ML 4, iOS 14", 6: "Core ML 5, iOS 15", 7: "Core ML 6, iOS 16", 8: "Core ML 7, iOS 17",
                        9: "Core ML 8, iOS 18", 10: "Core ML 9, iOS 26"]
        return versions[Int(specificationVersion)] ?? "unknown"
    }
}

extension ModelReport.Feature {
    init(_ feature: CoreML_Specification_FeatureDescription) {
        name = feature.name
        isOptional = feature.type.isOptional
        shortDescription = feature.shortDescription.nonEmpty
        switch feature.type.type {
        case .int64Type?: type = "Int64"
        case .doubleType?: type = "Double"
        case .stringType?: type = "String"
        case .multiArrayType(let array)?:
            type = "MultiArray"
            shape = array.shape
            dataType = array.dataType.displayName
            switch array.shapeFlexibility {
            case .shapeRange(let ranges)?: shapeRanges = ranges.sizeRanges.map { [Int64(clamping: $0.lowerBound), max($0.upperBound, -1)] }
            case .enumeratedShapes(let shapes)?: enumeratedShapes = shapes.shapes.map(\.shape)
            case nil: break
            }
        case .imageType(let image)?:
            type = "Image"
            width = image.width
            height = image.height
            switch image.colorSpace {
            case .rgb: colorSpace = "RGB"
            case .bgr: colorSpace = "BGR"
            case .grayscale: colorSpace = "Grayscale"
            case .grayscaleFloat16: colorSpace = "Grayscale Float16"
            default: colorSpace = "invalid"
            }
        case .dictionaryType(let dictionary)?:
            type = "Dictionary"
            if case .stringKeyType? = dictionary.keyType { keyType = "String" } else { keyType = "Int64" }
        case .sequenceType?: type = "Sequence"
        case .stateType(let state)?:
            type = "State"
            if case .arrayType(let array)? = state.type {
                shape = array.shape
                dataType = array.dataType.displayName
            }
        case nil: type = "invalid"
        }
    }
}

extension ModelReport.Parameter {
    init(_ parameter: CoreML_Specification_DoubleParameter) {
        defaultValue = parameter.defaultValue
        if case .range(let range)? = parameter.allowedValues { self.range = [range.minValue, range.maxValue] }
    }

    init(_ parameter: CoreML_Specification_Int64Parameter) {
        defaultValue = Double(parameter.defaultValue)
        switch parameter.allowedValues {
        case .range(let range)?: self.range = [Double(range.minValue), Double(range.maxValue)]
        case .set(let set)?: self.set = set.values.map(Double.init)
        case nil: break
        }
    }
}

extension ModelReport.UpdateParameters {
    init(_ update: CoreML_Specification_NetworkUpdateParameters) {
        losses = update.lossLayers.map { loss in
            switch loss.lossLayerType {
            case .categoricalCrossEntropyLossLayer(let l)?:
                return .init(name: loss.name, type: "categoricalCrossEntropy", input: l.input, target: l.target)
            case .meanSquaredErrorLossLayer(let l)?:
                return .init(name: loss.name, type: "meanSquaredError", input: l.input, target: l.target)
            case nil:
                return .init(name: loss.name, type: "unknown", input: "", target: "")
            }
        }
        switch update.optimizer.optimizerType {
        case .sgdOptimizer(let sgd)?:
            optimizer = .init(
                type: "sgd", learningRate: sgd.hasLearningRate ? .init(sgd.learningRate) : nil,
                miniBatchSize: sgd.hasMiniBatchSize ? .init(sgd.miniBatchSize) : nil,
                momentum: sgd.hasMomentum ? .init(sgd.momentum) : nil)
        case .adamOptimizer(let adam)?:
            optimizer = .init(
                type: "adam", learningRate: adam.hasLearningRate ? .init(adam.learningRate) : nil,
                miniBatchSize: adam.hasMiniBatchSize ? .init(adam.miniBatchSize) : nil,
                beta1: adam.hasBeta1 ? .init(adam.beta1) : nil, beta2: adam.hasBeta2 ? .init(adam.beta2) : nil,
                eps: adam.hasEps ? .init(adam.eps) : nil)
        case nil:
            optimizer = nil
        }
        epochs = update.hasEpochs ? .init(update.epochs) : nil
        shuffle = update.hasShuffle ? update.shuffle.defaultValue : nil
        seed = update.hasSeed ? .init(update.seed) : nil
    }
}

extension ModelReport.NearestNeighbors {
    init(_ knn: CoreML_Specification_KNearestNeighborsClassifier) {
        let index = knn.nearestNeighborsIndex
        numberOfDimensions = Int(index.numberOfDimensions)
        sampleCount = index.floatSamples.count
        numberOfNeighbors = .init(knn.numberOfNeighbors)
        switch index.indexType {
        case .singleKdTreeIndex(let tree)?:
            indexType = "kdTree"
            leafSize = Int(tree.leafSize)
        case .linearIndex?: indexType = "linear"
        case nil: indexType = "none"
        }
        switch knn.weightingScheme {
        case .uniformWeighting?: weighting = "uniform"
        case .inverseDistanceWeighting?: weighting = "inverseDistance"
        case nil: weighting = "none"
        }
        distance = index.distanceFunction == nil ? "none" : "squaredEuclidean"
        let labels = knn.classLabelSet
        labelType = labels.typeName
        labelCounts = Dictionary(labels.descriptions.map { ($0, 1) }, uniquingKeysWith: +)
        switch knn.defaultClassLabel {
        case .defaultStringLabel(let label)?: defaultLabel = label
        case .defaultInt64Label(let label)?: defaultLabel = String(label)
        case nil: defaultLabel = nil
        }
    }
}

extension String {
    /// nil for the empty string, as the format stores "absent" text.
    var nonEmpty: String? { isEmpty ? nil : self }
}

extension ModelReport.MLProgram {
    init(_ program: CoreML_Specification_MILSpec_Program) {
        functions = program.functions.keys.sorted().map { name in
            let function = program.functions[name]!
            return Function(name: name, opset: function.opset, inputs: function.inputs.map { input in
                let tensor = input.type.tensorType
                let shape = tensor.dimensions.map { dimension -> String in
                    if case .constant(let constant)? = dimension.dimension { return String(constant.size) }
                    return "?"
                }
                return "\(input.name): \(tensor.dataType) [\(shape.joined(separator: ", "))]"
            }, outputs: function.blockSpecializations[function.opset]?.outputs ?? [])
        }
        let counts = program.operationCounts
        operationCount = counts.reduce(0) { $0 + $1.count }
        operations = counts.map { OperationCount(type: $0.type, count: $0.count) }
    }

    /// Adds what the package's weight file holds.
    mutating func addWeights(_ weights: MLProgramWeights) {
        let byType = Dictionary(grouping: weights.entries, by: \.dataType)
        self.weights = byType.keys.sorted { $0.rawValue < $1.rawValue }.map { type in
            let entries = byType[type]!
            return WeightType(dataType: "\(type)", blobs: entries.count, values: entries.reduce(0) { $0 + $1.count },
                              bytes: entries.reduce(0) { $0 + $1.bytes })
        }
        immediateBytes = weights.immediateBytes
    }
}
