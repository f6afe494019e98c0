import CoreMLSpec
import Foundation
import OpenCoreML

/// How a labelled dataset maps onto a model: its values onto the model's single input (reshaped to
/// the input's shape), its labels onto the loss target (a class index) or, for classifiers, onto the
/// predicted-label training input (the class label with that index).
struct ModelBinding: @unchecked Sendable {
    let inputName: String
    let inputShape: [Int]
    /// The training input that takes the label, and how.
    let labelName: String?
    let labelKind: LabelKind
    /// Display names of the classes, for reports.
    let classNames: [String]
    /// The output holding class probabilities (a multi-array or a dictionary), if any.
    let probabilitiesName: String?
    /// Whether label index i is the model's own class label i (not names given for a k-NN model).
    var usesModelLabels = true

    enum LabelKind {
        /// A one-element int32 array with the class index (e.g. `output_true`).
        case indexArray
        /// The classifier's label: `classLabels[index]`.
        case classLabel(ClassLabelSet)
        /// Evaluation only: no training inputs.
        case none
    }

    /// `classNames` name the dataset's class indices for k-NN models with string labels (default:
    /// each index as text); a k-NN model learns whatever labels the data brings.
    init(model: MLModel, dataset: LabeledDataset, classNames givenNames: [String]? = nil) throws {
        let description = model.modelDescription
        let inputs = description.inputDescriptionsByName
        guard inputs.count == 1, let input = inputs.values.first else {
            throw CreateMLError("model", "it has \(inputs.count) inputs (\(inputs.keys.sorted().joined(separator: ", "))); datasets feed models with exactly one")
        }
        inputName = input.name
        guard let constraint = input.multiArrayConstraint else {
            throw CreateMLError("input '\(input.name)'", "it is a \(input.type); datasets feed multi-array inputs")
        }
        inputShape = constraint.shape.map(\.intValue)
        guard let expected = checkedProduct(inputShape), expected == dataset.featureCount else {
            throw CreateMLError(dataset.name, "examples have \(dataset.featureCount) values (shape \(dataset.sampleShape)); input '\(input.name)' takes shape \(inputShape)")
        }
        let specification = model.specification
        if model.sampleCount != nil, let predicted = description.predictedFeatureName {
            // k-NN (alone or ending a pipeline): labels come from the data, as strings or int64s.
            let count = max(dataset.classCount, givenNames?.count ?? 0)
            if let givenNames, givenNames.count < dataset.classCount {
                let example = dataset.labels.firstIndex { $0 >= givenNames.count }!
                throw CreateMLError(dataset.name, "example \(example) has label \(dataset.labels[example]), but only \(givenNames.count) class names were given")
            }
            let isString = description.outputDescriptionsByName[predicted]?.type == .string
            let names = givenNames ?? (0..<count).map(String.init)
            classNames = names
            usesModelLabels = false
            labelName = predicted
            labelKind = .classLabel(isString ? .strings(names) : .int64s((0..<count).map(Int64.init)))
            probabilitiesName = description.predictedProbabilitiesName
            return
        }
        let labels = specification.classLabelSet
        var classCount = labels.count
        var probabilities: String? = description.predictedProbabilitiesName
        if labels.count == 0 {
            // A plain network: the first output, whose length is the number of classes.
            let output = specification.description_p.output.first
            probabilities = output?.name
            let shape = output?.type.multiArrayType.shape ?? []
            guard let count = checkedProduct(shape) else {
                throw CreateMLError("output '\(probabilities ?? "")'", SizeCheckFailure.product(shape, what: "the shape"))
            }
            classCount = output == nil ? 0 : count
        }
        guard classCount <= LabeledDataset.classIndexLimit else {
            throw CreateMLError("model", "its output has \(classCount) values; a data set's class indices go up to \(LabeledDataset.classIndexLimit - 1)")
        }
        classNames = labels.count > 0 ? labels.descriptions : (0..<classCount).map(String.init)
        probabilitiesName = probabilities
        let maxLabel = dataset.labels.max() ?? 0
        guard maxLabel < classCount else {
            let example = dataset.labels.firstIndex(of: maxLabel)!
            throw CreateMLError(dataset.name, "example \(example) has label \(maxLabel), but the model has \(classCount) classes (0…\(classCount - 1))")
        }
        let training = description.trainingInputDescriptionsByName.keys.filter { $0 != input.name }
        if let network = specification.neuralNetworkSpecification, network.hasUpdateParams,
           case .categoricalCrossEntropyLossLayer(let loss)? = network.updateParams.lossLayers.first?.lossLayerType,
           training.contains(loss.target) {
            labelName = loss.target
            labelKind = .indexArray
        } else if labels.count > 0, let predicted = description.predictedFeatureName, training.contains(predicted) {
            labelName = predicted
            labelKind = .classLabel(labels)
        } else {
            labelName = nil
            labelKind = .none
        }
    }

    /// The features of example `index` (values and, when training, the label).
    func features(_ dataset: LabeledDataset, _ index: Int) throws -> MLFeatureProvider {
        let array = try MLMultiArray(shape: inputShape.map { NSNumber(value: $0) }, dataType: .float32)
        array.withUnsafeMutableBufferPointer(ofType: Float.self) { buffer, _ in
            dataset.values.withUnsafeBufferPointer { source in
                buffer.baseAddress!.update(from: source.baseAddress! + index * dataset.featureCount, count: dataset.featureCount)
            }
        }
        var values = ["\(inputName)": MLFeatureValue(multiArray: array)]
        let label = dataset.labels[index]
        switch labelKind {
        case .indexArray:
            let target = try MLMultiArray(shape: [1], dataType: .int32)
            target[0] = NSNumber(value: label)
            values[labelName!] = MLFeatureValue(multiArray: target)
        case .classLabel(let labels):
            switch labels {
            case .strings(let names): values[labelName!] = MLFeatureValue(string: names[label])
            case .int64s(let numbers): values[labelName!] = MLFeatureValue(int64: numbers[label])
            case .none: break
            }
        case .none:
            break
        }
        return MLDictionaryFeatureProvider(featureValues: values)
    }

    /// The class probabilities in an output, by class index.
    func probabilities(in output: MLFeatureProvider) -> [Double]? {
        guard let name = probabilitiesName, let value = output.featureValue(for: name) else { return nil }
        if let array = value.multiArrayValue { return array.floatValues().map(Double.init) }
        let dictionary = value.dictionaryValue
        guard case .classLabel(let labels) = labelKind else {
            return classNames.indices.map { dictionary[AnyHashable(Int64($0))]?.doubleValue ?? 0 }
        }
        switch labels {
        case .strings(let names): return names.map { dictionary[AnyHashable($0)]?.doubleValue ?? 0 }
        case .int64s(let numbers): return numbers.map { dictionary[AnyHashable($0)]?.doubleValue ?? 0 }
        case .none: return nil
        }
    }
}

/// A ``LabeledDataset`` bound to a model's input and label features, as Core ML's batch provider
/// (what ``LabeledDataset/batchProvider(for:classNames:)`` returns): each example's features are
/// made when asked for, and training reads the dataset's values in place.
public struct LabeledBatchProvider: MLBatchProvider, ContiguousTrainingData, @unchecked Sendable {
    /// The examples.
    public let dataset: LabeledDataset
    let binding: ModelBinding

    /// The model input that takes the values.
    public var inputName: String { binding.inputName }
    /// The training input that takes the labels (nil when the model has none: evaluation only).
    public var labelName: String? { binding.labelName }
    /// A name per class index: the model's class labels, the given names, or the index as text.
    public var classNames: [String] { binding.classNames }

    /// The number of examples.
    public var count: Int { dataset.count }

    /// Example `index`: its values under ``inputName`` and, when there is one, its label under
    /// ``labelName``.
    public func features(at index: Int) -> MLFeatureProvider {
        // Shapes and labels were checked when the binding was made, so this cannot fail.
        try! binding.features(dataset, index)
    }

    package func contiguousValues(of feature: String, width: Int) -> [Float]? {
        feature == binding.inputName && width == dataset.featureCount ? dataset.values : nil
    }

    package func classIndices(of feature: String) -> [Int]? {
        guard feature == binding.labelName else { return nil }
        switch binding.labelKind {
        case .indexArray: return dataset.labels
        case .classLabel(let labels) where binding.usesModelLabels && labels.count > 0: return dataset.labels
        default: return nil
        }
    }
}

extension LabeledDataset {
    /// The examples bound to `model`: the values onto its single multi-array input (reshaped to the
    /// input's shape), the labels onto its loss target (a class index) or, for classifiers, onto its
    /// label input (the class label with that index). For k-NN models (alone or at the end of a
    /// pipeline) with string labels, `classNames` name the class indices (default: each index as
    /// text). Throws when the model has more than one input, the sizes differ, or a label is not
    /// one of the model's classes.
    public func batchProvider(for model: MLModel, classNames: [String]? = nil) throws -> LabeledBatchProvider {
        LabeledBatchProvider(dataset: self, binding: try ModelBinding(model: model, dataset: self, classNames: classNames))
    }
}
