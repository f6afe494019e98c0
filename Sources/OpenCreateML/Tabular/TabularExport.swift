import CoreMLSpec
import OpenCoreMLTools

/// How a tabular model is written as a Core ML model: the pipeline's inputs are the feature
/// columns by name (String, Int64 or Double, each optional so that a missing value can be left
/// out), a front part turns them into the one vector the final model reads, and the final model
/// (a tree ensemble or a GLM) names its outputs as Create ML does: the target column's name for
/// the prediction and `<target>Probability` for a classifier's probabilities.
///
/// - Trees (``TabularColumns/treeFront()``): per String column a `CategoricalMapping` from the
///   category to its code (unknown → the "other" code), then a `FeatureVectorizer`; the trees split
///   natively on a code with `BranchOnValueEqual` (one category against the rest). A table without
///   String columns needs no front: the tree ensemble reads the column inputs directly.
/// - Linear models (``TabularColumns/linearFront(means:)``): per String column a `OneHotEncoder`
///   (an unknown or missing category is all zeros), a `FeatureVectorizer`, and an `Imputer` that
///   replaces a missing (NaN) number by its training mean.
struct TabularFront {
    /// The models before the final one, in order.
    var models: [CoreML_Specification_Model]
    /// The inputs the final model declares: the column inputs, or the one vector of `width` values.
    var finalInputs: [CoreML_Specification_FeatureDescription]
    /// The number of values the final model's inputs hold together (its feature indices).
    var width: Int
}

extension TabularColumns {
    /// The pipeline input of each feature column, in feature order.
    var inputDescriptions: [CoreML_Specification_FeatureDescription] {
        features.map { feature in
            var type = CoreML_Specification_FeatureType()
            switch feature.kind {
            case .numeric(let isInteger):
                if isInteger { type.int64Type = .init() } else { type.doubleType = .init() }
            case .categorical:
                type.stringType = .init()
            }
            type.isOptional = true
            return Self.feature(feature.name, type)
        }
    }

    /// A model of one input and one output (specification version 1), its type still to set.
    static func model(input: CoreML_Specification_FeatureDescription, output: CoreML_Specification_FeatureDescription) -> CoreML_Specification_Model {
        var model = CoreML_Specification_Model()
        model.specificationVersion = 1
        model.description_p.input = [input]
        model.description_p.output = [output]
        return model
    }

    static func feature(_ name: String, _ type: CoreML_Specification_FeatureType) -> CoreML_Specification_FeatureDescription {
        var description = CoreML_Specification_FeatureDescription()
        description.name = name
        description.type = type
        return description
    }

    /// A name no column (feature or target) has: `base`, or `base` with underscores appended.
    func unusedName(_ base: String, avoiding extra: Set<String> = []) -> String {
        let taken = Set(featureNames).union([targetColumn, targetColumn + "Probability"]).union(extra)
        var name = base
        while taken.contains(name) { name += "_" }
        return name
    }

    /// The front of a tree model (see ``TabularFront``).
    func treeFront() -> TabularFront {
        let inputs = inputDescriptions
        guard features.contains(where: { $0.codeCount != nil }) else {
            return TabularFront(models: [], finalInputs: inputs, width: features.count)
        }
        var models: [CoreML_Specification_Model] = []
        var vectorizerInputs: [CoreML_Specification_FeatureDescription] = []
        var taken = Set<String>()
        for (feature, input) in zip(features, inputs) {
            guard case .categorical(let categories) = feature.kind else {
                vectorizerInputs.append(input)
                continue
            }
            let codeName = unusedName(feature.name + "__code", avoiding: taken)
            taken.insert(codeName)
            var mapping = CoreML_Specification_CategoricalMapping()
            var map = CoreML_Specification_StringToInt64Map()
            for (code, category) in categories.enumerated() { map.map[category] = Int64(code) }
            mapping.stringToInt64Map = map
            mapping.int64Value = Int64(categories.count)
            var code = CoreML_Specification_FeatureType()
            code.int64Type = .init()
            var model = Self.model(input: input, output: Self.feature(codeName, code))
            model.categoricalMapping = mapping
            models.append(model)
            vectorizerInputs.append(model.description_p.output[0])
        }
        let vector = vectorizer(vectorizerInputs, widths: [Int](repeating: 1, count: features.count), name: unusedName("__features", avoiding: taken))
        models.append(vector.model)
        return TabularFront(models: models, finalInputs: [vector.output], width: features.count)
    }

    /// The number of values a linear model sees: one per numeric column, one per category of a
    /// String column.
    var linearWidth: Int {
        features.reduce(0) { width, feature in
            if case .categorical(let categories) = feature.kind { return width + categories.count }
            return width + 1
        }
    }

    /// The front of a linear model (see ``TabularFront``): `means` holds the training mean of each
    /// feature (one per feature, in order; ignored for String columns), imputed for a missing number.
    func linearFront(means: [Double]) throws -> TabularFront {
        guard means.count == features.count else {
            throw CreateMLError("linear model export", "\(means.count) means for \(features.count) features")
        }
        let inputs = inputDescriptions
        var models: [CoreML_Specification_Model] = []
        var vectorizerInputs: [CoreML_Specification_FeatureDescription] = []
        var widths: [Int] = []
        var imputed: [Double] = []
        var taken = Set<String>()
        for (index, (feature, input)) in zip(features, inputs).enumerated() {
            guard case .categorical(let categories) = feature.kind else {
                vectorizerInputs.append(input)
                widths.append(1)
                imputed.append(means[index])
                continue
            }
            let name = unusedName(feature.name + "__onehot", avoiding: taken)
            taken.insert(name)
            var encoder = CoreML_Specification_OneHotEncoder()
            var list = CoreML_Specification_StringVector()
            list.vector = categories
            encoder.stringCategories = list
            encoder.outputSparse = false
            encoder.handleUnknown = .ignoreUnknown
            var array = CoreML_Specification_FeatureType()
            array.multiArrayType.shape = [Int64(max(categories.count, 1))]
            array.multiArrayType.dataType = .double
            var model = Self.model(input: input, output: Self.feature(name, array))
            model.oneHotEncoder = encoder
            models.append(model)
            vectorizerInputs.append(model.description_p.output[0])
            widths.append(max(categories.count, 1))
            imputed += [Double](repeating: 0, count: max(categories.count, 1))
        }
        let vector = vectorizer(vectorizerInputs, widths: widths, name: unusedName("__vectorized", avoiding: taken))
        models.append(vector.model)
        let width = widths.reduce(0, +)
        var imputer = CoreML_Specification_Imputer()
        var values = CoreML_Specification_DoubleVector()
        values.vector = imputed
        imputer.imputedDoubleArray = values
        imputer.replaceDoubleValue = .nan
        let output = Self.feature(unusedName("__features", avoiding: taken), vector.output.type)
        var model = Self.model(input: vector.output, output: output)
        model.imputer = imputer
        models.append(model)
        return TabularFront(models: models, finalInputs: [output], width: width)
    }

    /// The linear model's rows from encoded columns (``encodeFeatures(_:)``), column-major, as the
    /// exported front makes them: numbers with NaN replaced by `means`, categories one-hot (the
    /// "other" code all zeros). `linearWidth` columns.
    func linearColumns(_ encoded: [[Double]], means: [Double]) -> [[Double]] {
        var result: [[Double]] = []
        result.reserveCapacity(linearWidth)
        for (index, (feature, column)) in zip(features, encoded).enumerated() {
            guard case .categorical(let categories) = feature.kind else {
                let mean = means[index]
                result.append(column.map { $0.isNaN ? mean : $0 })
                continue
            }
            var oneHot = [[Double]](repeating: [Double](repeating: 0, count: column.count), count: max(categories.count, 1))
            for (row, code) in column.enumerated() where code < Double(categories.count) { oneHot[Int(code)][row] = 1 }
            result += oneHot
        }
        return result
    }

    private func vectorizer(_ inputs: [CoreML_Specification_FeatureDescription], widths: [Int],
                            name: String) -> (model: CoreML_Specification_Model, output: CoreML_Specification_FeatureDescription) {
        var vectorizer = CoreML_Specification_FeatureVectorizer()
        vectorizer.inputList = zip(inputs, widths).map { input, width in
            var column = CoreML_Specification_FeatureVectorizer.InputColumn()
            column.inputColumn = input.name
            column.inputDimensions = UInt64(width)
            return column
        }
        var array = CoreML_Specification_FeatureType()
        array.multiArrayType.shape = [Int64(widths.reduce(0, +))]
        array.multiArrayType.dataType = .double
        let output = Self.feature(name, array)
        var model = CoreML_Specification_Model()
        model.specificationVersion = 1
        model.description_p.input = inputs
        model.description_p.output = [output]
        model.featureVectorizer = vectorizer
        return (model, output)
    }

    /// The outputs of the final model: for a classifier the label (the target's type) and the
    /// probabilities dictionary, for a regressor one Double.
    func finalOutputs(into model: inout CoreML_Specification_Model) {
        switch target {
        case .classes(let labels):
            var label = CoreML_Specification_FeatureType()
            var probabilities = CoreML_Specification_FeatureType()
            switch labels {
            case .strings:
                label.stringType = .init()
                probabilities.dictionaryType.stringKeyType = .init()
            case .ints:
                label.int64Type = .init()
                probabilities.dictionaryType.int64KeyType = .init()
            }
            let probabilitiesName = targetColumn + "Probability"
            model.description_p.output = [Self.feature(targetColumn, label), Self.feature(probabilitiesName, probabilities)]
            model.description_p.predictedFeatureName = targetColumn
            model.description_p.predictedProbabilitiesName = probabilitiesName
        case .values:
            var value = CoreML_Specification_FeatureType()
            value.doubleType = .init()
            model.description_p.output = [Self.feature(targetColumn, value)]
            model.description_p.predictedFeatureName = targetColumn
        }
    }

    /// The whole model: `front`'s models then `final` (whose inputs are `front.finalInputs` and
    /// whose outputs ``finalOutputs(into:)`` set) as a pipeline classifier or regressor, or
    /// `final` alone when the front is empty; inputs in feature order; `metadata` (default: a
    /// description naming `trainer`), validated.
    func exportedModel(front: TabularFront, final: CoreML_Specification_Model, trainer: String,
                       metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        var model: CoreML_Specification_Model
        if front.models.isEmpty {
            model = final
        } else {
            do {
                let kind: PipelineKind = if case .classes = target { .classifier } else { .regressor }
                model = try CoreML_Specification_Model.pipeline(front.models + [final], kind: kind, inputs: featureNames,
                                                                outputs: final.description_p.output.map(\.name))
            } catch let error as ModelToolsError {
                throw CreateMLError("export › \(error.location)", error.message)
            }
            let order = Dictionary(uniqueKeysWithValues: featureNames.enumerated().map { ($1, $0) })
            model.description_p.input.sort { (order[$0.name] ?? .max) < (order[$1.name] ?? .max) }
            model.description_p.predictedFeatureName = final.description_p.predictedFeatureName
            model.description_p.predictedProbabilitiesName = final.description_p.predictedProbabilitiesName
        }
        var stored = CoreML_Specification_Metadata()
        stored.shortDescription = "\(trainer) predicting '\(targetColumn)' from \(features.count) column\(features.count == 1 ? "" : "s"), trained by OpenCreateML"
        if let metadata { stored = metadata.specification }
        stored.userDefined["com.opencoreml.trainer"] = "OpenCreateML.\(trainer)"
        model.description_p.metadata = stored
        try model.validate()
        return model
    }
}
