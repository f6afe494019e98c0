import CoreMLSpec

extension CoreML_Specification_Model {
    /// Models combined into a pipeline, checking that they connect: every model input must be a
    /// pipeline input or an earlier model's output of the same type.
    ///
    /// - `inputs`: the pipeline's input names (default: the models' inputs no earlier model
    ///   produces); any other input a model needs that no earlier model produces is an error.
    /// - `outputs`: which features the pipeline exposes (default: the last model's outputs).
    /// - `kind`: `.automatic` writes a `PipelineClassifier` when the last model is a classifier
    ///   (with its predicted feature and probabilities names), a `PipelineRegressor` when it is a
    ///   regressor, a plain `Pipeline` otherwise.
    ///
    /// Only the last model may be updatable; then the pipeline is too, and its training inputs are
    /// its inputs plus the last model's training inputs that no earlier model produces (its label).
    ///
    /// - Parameters:
    ///   - models: The models in the order they run; at least one.
    ///   - names: A name for each model, or none.
    ///   - kind: Which pipeline model type to write.
    ///   - inputs: The pipeline's input names; nil for the default described above.
    ///   - outputs: The pipeline's output names; nil for the last model's outputs.
    /// - Returns: The validated pipeline.
    /// - Throws: A ``ModelToolsError`` naming the model and feature that do not connect, an input no
    ///   model reads, an output no model produces, or an updatable model that is not the last.
    public static func pipeline(_ models: [CoreML_Specification_Model], names: [String] = [], kind: PipelineKind = .automatic,
                                inputs: [String]? = nil, outputs: [String]? = nil) throws -> CoreML_Specification_Model {
        guard !models.isEmpty else { throw ModelToolsError("pipeline", "give at least one model") }
        guard names.isEmpty || names.count == models.count else {
            throw ModelToolsError("pipeline", "\(names.count) names for \(models.count) models")
        }
        func part(_ index: Int) -> String {
            "pipeline model \(index + 1)" + (names.isEmpty ? "" : " '\(names[index])'") + " (\(models[index].modelTypeName))"
        }
        let chosenInputs = inputs.map(Set.init)
        var available: [String: (type: CoreML_Specification_FeatureType, source: String)] = [:]
        var pipelineInputs: [CoreML_Specification_FeatureDescription] = []
        var produced: Set<String> = []
        for (index, model) in models.enumerated() {
            if model.isUpdatable && index != models.count - 1 {
                throw ModelToolsError(part(index), "only the last model of a pipeline can be updatable")
            }
            for input in model.description_p.input {
                let location = "\(part(index)) › input '\(input.name)'"
                if let (type, source) = available[input.name] {
                    guard input.type.isCompatible(with: type) else {
                        throw ModelToolsError(location, "expects \(input.type.summary), but \(source) gives \(type.summary)")
                    }
                    continue
                }
                if let chosenInputs, !chosenInputs.contains(input.name) {
                    if input.type.isOptional { continue }
                    throw ModelToolsError(location, "is neither one of the pipeline's inputs (\(inputs!.joined(separator: ", "))) nor an output of an earlier model")
                }
                pipelineInputs.append(input)
                available[input.name] = (input.type, "the pipeline input")
            }
            for output in model.description_p.output {
                available[output.name] = (output.type, "\(part(index))'s output")
                produced.insert(output.name)
            }
        }
        if let inputs, let unused = inputs.first(where: { name in !pipelineInputs.contains { $0.name == name } }) {
            throw ModelToolsError("pipeline input '\(unused)'", "no model reads it")
        }

        let last = models[models.count - 1]
        let outputNames = outputs ?? last.description_p.output.map(\.name)
        var pipelineOutputs: [CoreML_Specification_FeatureDescription] = []
        for name in outputNames {
            guard produced.contains(name), let (type, _) = available[name] else {
                throw ModelToolsError("pipeline output '\(name)'", "no model produces it; the models' outputs are \(models.flatMap { $0.description_p.output.map(\.name) }.joined(separator: ", "))")
            }
            var feature = CoreML_Specification_FeatureDescription()
            feature.name = name
            feature.type = type
            if let original = models.reversed().lazy.flatMap(\.description_p.output).first(where: { $0.name == name }) {
                feature.shortDescription = original.shortDescription
            }
            pipelineOutputs.append(feature)
        }

        var pipeline = CoreML_Specification_Pipeline()
        pipeline.models = models
        pipeline.names = names
        var result = CoreML_Specification_Model()
        result.specificationVersion = models.map(\.specificationVersion).max() ?? 1
        result.description_p.input = pipelineInputs
        result.description_p.output = pipelineOutputs

        let lastIsClassifier = last.classLabelSet != .none || last.modelTypeName == "kNearestNeighborsClassifier"
            || !last.description_p.predictedProbabilitiesName.isEmpty
        let lastIsRegressor = ["neuralNetworkRegressor", "pipelineRegressor", "glmRegressor"].contains(last.modelTypeName)
        let resolved: PipelineKind = kind != .automatic ? kind : lastIsClassifier ? .classifier : lastIsRegressor ? .regressor : .pipeline
        switch resolved {
        case .classifier:
            let label = last.description_p.predictedFeatureName
            guard !label.isEmpty, outputNames.contains(label) else {
                throw ModelToolsError("pipeline", "a pipeline classifier needs the last model's predicted label among its outputs"
                    + (label.isEmpty ? "; the last model has none" : " ('\(label)')"))
            }
            result.description_p.predictedFeatureName = label
            let probabilities = last.description_p.predictedProbabilitiesName
            if outputNames.contains(probabilities) { result.description_p.predictedProbabilitiesName = probabilities }
            result.pipelineClassifier.pipeline = pipeline
        case .regressor:
            result.pipelineRegressor.pipeline = pipeline
        default:
            result.pipeline = pipeline
        }

        if last.isUpdatable {
            result.isUpdatable = true
            result.specificationVersion = max(result.specificationVersion, 4)
            var training = pipelineInputs
            let earlier = Set(models.dropLast().flatMap { $0.description_p.output.map(\.name) })
            for feature in last.description_p.trainingInput where !earlier.contains(feature.name) {
                if !training.contains(where: { $0.name == feature.name }) { training.append(feature) }
            }
            result.description_p.trainingInput = training
        }
        try result.validate()
        return result
    }
}
