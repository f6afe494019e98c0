import CoreMLSpec
import OpenCoreML
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
    /// The pipeline input of each feature column, in feature order (a vector column once, as a
    /// multi-array of its width).
    var inputDescriptions: [CoreML_Specification_FeatureDescription] {
        var kinds: [String: FeatureKind] = [:]
        for feature in features where kinds[feature.name] == nil { kinds[feature.name] = feature.kind }
        return featureNames.map { name in
            var type = CoreML_Specification_FeatureType()
            switch kinds[name]! {
            case .numeric(let isInteger):
                if isInteger { type.int64Type = .init() } else { type.doubleType = .init() }
            case .categorical:
                type.stringType = .init()
            case .element(_, let width):
                type.multiArrayType.shape = [Int64(width)]
                type.multiArrayType.dataType = .double
            }
            type.isOptional = true
            return Self.feature(name, type)
        }
    }

    /// The features grouped by column, in order: each column's first feature and how many
    /// features (values) it gives (a vector column its width, any other column 1).
    var columnGroups: [(feature: Feature, width: Int)] {
        var groups: [(feature: Feature, width: Int)] = []
        for feature in features {
            if case .element(let index, _) = feature.kind, index > 0 { groups[groups.count - 1].width += 1 } else { groups.append((feature, 1)) }
        }
        return groups
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
        let hasVectors = features.contains { if case .element = $0.kind { true } else { false } }
        guard hasVectors || features.contains(where: { $0.codeCount != nil }) else {
            return TabularFront(models: [], finalInputs: inputs, width: features.count)
        }
        var models: [CoreML_Specification_Model] = []
        var vectorizerInputs: [CoreML_Specification_FeatureDescription] = []
        var taken = Set<String>()
        let groups = columnGroups
        for ((feature, _), input) in zip(groups, inputs) {
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
        let vector = vectorizer(vectorizerInputs, widths: groups.map(\.width), name: unusedName("__features", avoiding: taken))
        models.append(vector.model)
        return TabularFront(models: models, finalInputs: [vector.output], width: features.count)
    }

    /// The number of values a linear model sees: one per numeric column, one per category of a
    /// String column.
    /// (A String column with no categories still takes one, always-zero value, as its exported
    /// `OneHotEncoder` output has one element.)
    var linearWidth: Int {
        features.reduce(0) { width, feature in
            if case .categorical(let categories) = feature.kind { return width + max(categories.count, 1) }
            return width + 1
        }
    }

    /// Bytes a linear trainer may hold per cell of its rows × ``linearWidth`` matrix: the row-major
    /// doubles, the solver's copy (standardized doubles, or the logistic solver's floats), and the
    /// validation rows' share.
    static let linearBytesPerCell = 24

    /// Throws `CreateMLError` naming the String column with the most categories when `rows` rows
    /// of the dense one-hot encoding would need more than `memoryLimit` bytes (default:
    /// `OpenCoreMLRuntime.defaultMemoryLimit`, half of the physical memory). The linear models
    /// hold their rows dense; a String column of many distinct values (an identifier) makes them
    /// rows × categories wide.
    func checkLinearFits(rows: Int, memoryLimit: Int = OpenCoreMLRuntime.defaultMemoryLimit) throws {
        let (cells, overflow) = rows.multipliedReportingOverflow(by: linearWidth)
        let (bytes, overflow2) = cells.multipliedReportingOverflow(by: Self.linearBytesPerCell)
        guard overflow || overflow2 || bytes > memoryLimit else { return }
        var widest: (name: String, count: Int)?
        for feature in features {
            if case .categorical(let categories) = feature.kind, categories.count > (widest?.count ?? 0) {
                widest = (feature.name, categories.count)
            }
        }
        let size = overflow || overflow2 ? "more than \(Int.max) bytes" : "\(bytes / (1 << 20)) MiB"
        let message = "a linear model's one-hot rows (\(rows) rows × \(linearWidth) values) would need \(size), over the memory limit of \(memoryLimit / (1 << 20)) MiB"
        if let widest {
            throw CreateMLError("column '\(widest.name)'", message + "; this String column has \(widest.count) categories (drop it from featureColumns, or use a tree model, which codes categories without one-hot)")
        }
        throw CreateMLError("featureColumns", message)
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
        var index = 0
        for ((feature, width), input) in zip(columnGroups, inputs) {
            defer { index += width }
            guard case .categorical(let categories) = feature.kind else {
                vectorizerInputs.append(input)
                widths.append(width)
                imputed += means[index..<(index + width)]
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

    /// The linear model's rows from encoded columns (``encodeFeatures(_:)``), row-major
    /// (`rows` × ``linearWidth``), as the exported front makes them: numbers with NaN replaced by
    /// `means`, categories one-hot (the "other" code all zeros). Written in place, with no
    /// column-major intermediate; callers bound the size with ``checkLinearFits(rows:memoryLimit:)``.
    func linearRows(_ encoded: [[Double]], means: [Double], rows: Int) -> [Double] {
        let width = linearWidth
        var result = [Double](repeating: 0, count: rows * width)
        result.withUnsafeMutableBufferPointer { result in
            var offset = 0
            for (index, (feature, column)) in zip(features, encoded).enumerated() {
                column.withUnsafeBufferPointer { column in
                    if case .categorical(let categories) = feature.kind {
                        let count = Double(categories.count)
                        for row in 0..<rows where column[row] < count { result[row * width + offset + Int(column[row])] = 1 }
                        offset += max(categories.count, 1)
                    } else {
                        let mean = means[index]
                        for row in 0..<rows { result[row * width + offset] = column[row].isNaN ? mean : column[row] }
                        offset += 1
                    }
                }
            }
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
        let columnCount = featureNames.count
        stored.shortDescription = "\(trainer) predicting '\(targetColumn)' from \(columnCount) column\(columnCount == 1 ? "" : "s"), trained by OpenCreateML"
        if let metadata { stored = metadata.specification }
        stored.userDefined["com.opencoreml.trainer"] = "OpenCreateML.\(trainer)"
        model.description_p.metadata = stored
        try model.validate()
        return model
    }
}
