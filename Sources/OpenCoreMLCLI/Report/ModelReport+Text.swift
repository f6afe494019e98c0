extension ModelReport {
    /// The report as a terminal shows it: a header, then one section per part of the model. The
    /// model's strings are escaped (tables escape their cells; every other line here).
    func renderText() -> String {
        var lines: [String] = []
        if let path { lines.append(path) }
        lines += renderBody(indent: "")
        if pipeline == nil || !issues.isEmpty {
            lines.append("")
            lines.append(issues.isEmpty ? "Validation: valid" : "Validation: \(issues.count) problem\(issues.count == 1 ? "" : "s")")
            lines += issues.map { "  - \($0)" }
        }
        return lines.map { $0.terminalEscaped(keepingNewlines: true) }.joined(separator: "\n")
    }

    private func renderBody(indent: String) -> [String] {
        var lines: [String] = []
        let kind = Self.kindNames[modelType] ?? modelType
        lines.append("\(indent)\(kind) · specification version \(specificationVersion) (\(coreMLVersion))\(isUpdatable ? " · updatable" : "")")
        for (label, value) in [("Author", metadata.author), ("License", metadata.license),
                               ("Description", metadata.shortDescription), ("Version", metadata.versionString)] {
            if let value { lines.append("\(indent)\(label): \(value)") }
        }
        for (key, value) in metadata.userDefined.sorted(by: { $0.key < $1.key }) {
            lines.append("\(indent)\(key): \(value)")
        }
        var sections = [("Inputs", inputs), ("Outputs", outputs), ("States", states), ("Training inputs", trainingInputs)]
        for function in functions ?? [] {
            let title = "Function '\(function.name)'" + (function.isDefault ? " (default)" : "")
            sections += [("\(title): inputs", function.inputs), ("\(title): outputs", function.outputs), ("\(title): states", function.states)]
        }
        for (title, features) in sections where !features.isEmpty {
            lines.append("")
            lines.append("\(indent)\(title)")
            var table = TextTable(["", "", ""])
            for feature in features {
                var role = ""
                if feature.name == predictedFeatureName { role = "predicted label" }
                if feature.name == predictedProbabilitiesName { role = "class probabilities" }
                table.append([feature.name, feature.typeText, role])
            }
            lines.append(table.render(indent: indent + "  "))
        }
        if let classLabels, !classLabels.isEmpty {
            lines.append("")
            lines.append("\(indent)Class labels (\(classLabels.count)): \(classLabels.prefix(20).joined(separator: ", "))\(classLabels.count > 20 ? ", …" : "")")
        }
        if let neuralNetwork { lines += render(neuralNetwork, indent: indent) }
        if let kNearestNeighbors { lines += render(kNearestNeighbors, indent: indent) }
        if let glmClassifier {
            lines.append("")
            lines.append("\(indent)Linear classifier: \(glmClassifier.classCount) classes × \(glmClassifier.inputDimensions) inputs, \(glmClassifier.classEncoding), \(glmClassifier.postEvaluationTransform)")
        }
        if let summary {
            lines.append("")
            lines.append("\(indent)\(summary)")
        }
        if let mlProgram { lines += render(mlProgram, indent: indent) }
        if let pipeline {
            for (index, model) in pipeline.enumerated() {
                lines.append("")
                let name = model.pipelineModelName.map { " '\($0)'" } ?? ""
                lines.append("\(indent)── Model \(index + 1) of \(pipeline.count)\(name) ──")
                lines += model.renderBody(indent: indent + "   ")
            }
        }
        return lines
    }

    private func render(_ program: MLProgram, indent: String) -> [String] {
        var lines: [String] = []
        for function in program.functions {
            lines.append("")
            lines.append("\(indent)Function '\(function.name)' (opset \(function.opset))")
            lines.append("\(indent)  inputs: \(function.inputs.joined(separator: "; "))")
            lines.append("\(indent)  outputs: \(function.outputs.joined(separator: ", "))")
        }
        lines.append("")
        lines.append("\(indent)Operations (\(program.operationCount))")
        var table = TextTable(["type", "count"], alignments: [.left, .right])
        for operation in program.operations { table.append([operation.type, String(operation.count)]) }
        lines.append(table.render(indent: indent + "  "))
        if let weights = program.weights {
            lines.append("")
            lines.append("\(indent)Weights in blob files (\(grouped(weights.reduce(0) { $0 + $1.bytes })) bytes; \(grouped(program.immediateBytes ?? 0)) bytes inside the program)")
            var table = TextTable(["stored as", "blobs", "values", "bytes"], alignments: [.left, .right, .right, .right])
            for weight in weights { table.append([weight.dataType, String(weight.blobs), grouped(weight.values), grouped(weight.bytes)]) }
            lines.append(table.render(indent: indent + "  "))
        }
        return lines
    }

    private func render(_ network: NeuralNetwork, indent: String) -> [String] {
        var lines = ["", "\(indent)Layers (\(network.layerCount))"]
        var table = TextTable(["#", "name", "type", "inputs → outputs", "parameters", "updatable"],
                              alignments: [.right, .left, .left, .left, .right, .left])
        for (index, layer) in network.layers.enumerated() {
            table.append([
                String(index + 1), layer.name, layer.type + (layer.isModeled ? "" : " (not supported)"),
                layer.inputs.joined(separator: ", ") + " → " + layer.outputs.joined(separator: ", "),
                grouped(layer.parameterCount), layer.isUpdatable ? "✓" : "",
            ])
        }
        lines.append(table.render(indent: indent + "  "))
        lines.append("\(indent)  Total parameters: \(grouped(network.parameterCount)) (updatable: \(grouped(network.updatableParameterCount)))")
        if let update = network.updateParameters {
            lines.append("")
            lines.append("\(indent)Update parameters")
            for loss in update.losses {
                let name = loss.type == "categoricalCrossEntropy" ? "categorical cross-entropy" : loss.type == "meanSquaredError" ? "mean squared error" : loss.type
                lines.append("\(indent)  loss '\(loss.name)': \(name) of \(loss.input) against \(loss.target)")
            }
            var table = TextTable(["", "", ""])
            if let optimizer = update.optimizer {
                table.append(["optimizer", optimizer.type == "adam" ? "Adam" : "SGD", ""])
                let parameters: [(String, Parameter?)] = [
                    ("learningRate", optimizer.learningRate), ("miniBatchSize", optimizer.miniBatchSize),
                    ("momentum", optimizer.momentum), ("beta1", optimizer.beta1), ("beta2", optimizer.beta2), ("eps", optimizer.eps),
                ]
                for (name, parameter) in parameters {
                    if let parameter { table.append([name, formatted(parameter.defaultValue), parameter.allowedText]) }
                }
            }
            if let epochs = update.epochs { table.append(["epochs", formatted(epochs.defaultValue), epochs.allowedText]) }
            if let shuffle = update.shuffle { table.append(["shuffle", shuffle ? "yes" : "no", ""]) }
            if let seed = update.seed { table.append(["seed", formatted(seed.defaultValue), ""]) }
            lines.append(table.render(indent: indent + "  "))
        }
        return lines
    }

    private func render(_ knn: NearestNeighbors, indent: String) -> [String] {
        var table = TextTable(["", "", ""])
        table.append(["dimensions", String(knn.numberOfDimensions), ""])
        table.append(["samples", grouped(knn.sampleCount), ""])
        table.append(["k", formatted(knn.numberOfNeighbors.defaultValue), knn.numberOfNeighbors.allowedText])
        table.append(["index", knn.indexType == "kdTree" ? "kd-tree (leaf size \(knn.leafSize ?? 0))" : knn.indexType, ""])
        table.append(["weighting", knn.weighting == "inverseDistance" ? "inverse distance" : knn.weighting, ""])
        table.append(["distance", knn.distance == "squaredEuclidean" ? "squared Euclidean" : knn.distance, ""])
        if let label = knn.defaultLabel { table.append(["default label", label, ""]) }
        var lines = ["", "\(indent)k-nearest neighbours", table.render(indent: indent + "  ")]
        if !knn.labelCounts.isEmpty {
            let counts = knn.labelCounts.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
            lines.append("\(indent)  labels (\(knn.labelType)): \(counts.joined(separator: ", "))")
        }
        return lines
    }

    static let kindNames = [
        "neuralNetwork": "Neural network", "neuralNetworkClassifier": "Neural network classifier",
        "neuralNetworkRegressor": "Neural network regressor", "kNearestNeighborsClassifier": "k-nearest neighbours classifier",
        "glmClassifier": "Linear (GLM) classifier", "pipeline": "Pipeline", "pipelineClassifier": "Pipeline classifier",
        "pipelineRegressor": "Pipeline regressor", "mlProgram": "ML Program",
        "glmRegressor": "Linear (GLM) regressor", "supportVectorRegressor": "Support vector regressor",
        "supportVectorClassifier": "Support vector classifier", "treeEnsembleRegressor": "Tree ensemble regressor",
        "treeEnsembleClassifier": "Tree ensemble classifier", "bayesianProbitRegressor": "Bayesian probit regressor",
        "itemSimilarityRecommender": "Item similarity recommender", "linkedModel": "Linked model",
        "classConfidenceThresholding": "Class confidence thresholding", "oneHotEncoder": "One-hot encoder", "imputer": "Imputer",
        "featureVectorizer": "Feature vectorizer", "dictVectorizer": "Dictionary vectorizer", "scaler": "Scaler",
        "categoricalMapping": "Categorical mapping", "normalizer": "Normalizer", "arrayFeatureExtractor": "Array feature extractor",
        "identity": "Identity", "nonMaximumSuppression": "Non-maximum suppression",
    ]
}

extension ModelReport.Feature {
    /// `MultiArray Float32 [1, 28, 28]`, `MultiArray Int32 [1, 8] (sizes [1, 1...128])`,
    /// `Image RGB 224×224`, `Dictionary String → Double`, ...
    var typeText: String {
        var text = type
        if let dataType { text += " \(dataType)" }
        if let shape { text += " [\(shape.map(String.init).joined(separator: ", "))]" }
        if let shapeRanges {
            let sizes = shapeRanges.map { $0[0] == $0[1] ? "\($0[0])" : "\($0[0])...\($0[1] < 0 ? "" : String($0[1]))" }
            text += " (sizes [\(sizes.joined(separator: ", "))])"
        }
        if let enumeratedShapes {
            text += " (shapes \(enumeratedShapes.map { "[\($0.map(String.init).joined(separator: ", "))]" }.joined(separator: " or ")))"
        }
        if let colorSpace, let width, let height { text += " \(colorSpace) \(width)×\(height)" }
        if let keyType { text += " \(keyType) → Double" }
        if isOptional { text += " (optional)" }
        return text
    }
}

extension ModelReport.Parameter {
    /// `range 0 ... 1`, `one of 32, 64, 128`, or empty.
    var allowedText: String {
        if let range { return "range \(formatted(range[0])) ... \(formatted(range[1]))" }
        if let set { return "one of \(set.map(formatted).joined(separator: ", "))" }
        return ""
    }
}
