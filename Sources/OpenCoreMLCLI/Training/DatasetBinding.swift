import CoreMLSpec
import Foundation
import OpenCoreML

/// How a labelled dataset maps onto a model: its values onto the model's single input (reshaped to
/// the input's shape), its labels onto the loss target (a class index) or, for classifiers, onto the
/// predicted-label training input (the class label with that index).
struct DatasetBinding {
    let inputName: String
    let inputShape: [Int]
    /// The training input that takes the label, and how.
    let labelName: String?
    let labelKind: LabelKind
    /// Display names of the classes, for reports.
    let classNames: [String]
    /// The output holding class probabilities (a multi-array or a dictionary), if any.
    let probabilitiesName: String?

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
            throw CLIError.model("the model has \(inputs.count) inputs (\(inputs.keys.sorted().joined(separator: ", "))); datasets feed models with exactly one")
        }
        inputName = input.name
        guard let constraint = input.multiArrayConstraint else {
            throw CLIError.model("input '\(input.name)' is a \(input.type); datasets feed multi-array inputs")
        }
        inputShape = constraint.shape.map(\.intValue)
        let expected = inputShape.reduce(1, *)
        guard expected == dataset.featureCount else {
            throw CLIError.model("\(dataset.name): examples have \(dataset.featureCount) values (shape \(dataset.sampleShape)); input '\(input.name)' takes \(expected) (shape \(inputShape))")
        }
        let specification = model.specification
        if model.sampleCount != nil, let predicted = description.predictedFeatureName {
            // k-NN (alone or ending a pipeline): labels come from the data, as strings or int64s.
            let count = max(dataset.classCount, givenNames?.count ?? 0)
            if let givenNames, givenNames.count < dataset.classCount {
                let example = dataset.labels.firstIndex { $0 >= givenNames.count }!
                throw CLIError.model("\(dataset.name): example \(example) has label \(dataset.labels[example]), but only \(givenNames.count) class names were given")
            }
            let isString = description.outputDescriptionsByName[predicted]?.type == .string
            let names = givenNames ?? (0..<count).map(String.init)
            classNames = names
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
            classCount = output.map { Int($0.type.multiArrayType.shape.reduce(1, *)) } ?? 0
        }
        classNames = labels.count > 0 ? labels.descriptions : (0..<classCount).map(String.init)
        probabilitiesName = probabilities
        let maxLabel = dataset.labels.max() ?? 0
        guard maxLabel < classCount else {
            let example = dataset.labels.firstIndex(of: maxLabel)!
            throw CLIError.model("\(dataset.name): example \(example) has label \(maxLabel), but the model has \(classCount) classes (0…\(classCount - 1))")
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

    /// All examples as a batch provider; each example's features are made when asked for.
    func batch(_ dataset: LabeledDataset) -> MLBatchProvider {
        DatasetBatchProvider(binding: self, dataset: dataset)
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

/// A dataset seen through a binding, as Core ML's batch provider.
struct DatasetBatchProvider: MLBatchProvider {
    let binding: DatasetBinding
    let dataset: LabeledDataset

    var count: Int { dataset.count }

    func features(at index: Int) -> MLFeatureProvider {
        // Shapes were checked when the binding was made, so this cannot fail.
        try! binding.features(dataset, index)
    }
}
