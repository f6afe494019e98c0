import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// A batch provider's examples converted once into float rows for the network's inputs and loss
/// targets, checked on the way (shapes, NaN/inf, labels), so epochs only copy rows.
final class TrainingSet: @unchecked Sendable {
    struct Column {
        let name: String
        let width: Int
        /// The example shape, for error messages.
        let shape: [Int]
        var values: [Float]
    }

    let count: Int
    private(set) var columns: [Column] = []

    /// Converts `provider`'s examples; throws before allocating when the converted examples would
    /// take more than `memoryLimit` bytes (counting only what is not shared with the provider).
    init(_ provider: MLBatchProvider, network: Network, specification: CoreML_Specification_Model, memoryLimit: Int = .max) throws {
        count = provider.count
        guard count > 0 else { throw MLModelError(.update, "the training data holds no examples") }
        let description = specification.description_p
        let predictedFeature = description.predictedFeatureName
        let labels = specification.classLabelSet
        var columns: [Column] = []
        for name in network.inputNames + network.targetNames {
            let shape = network.inputBlob(named: name)!.shape
            guard checkedProduct([count, shape.count]) != nil else {
                throw MLModelError(.update, "\(count) examples of '\(name)' (shape \(shape.dims)) hold more values than a 64-bit count can hold")
            }
            columns.append(Column(name: name, width: shape.count, shape: shape.dims, values: []))
        }
        let isIndex = network.targetIsClassIndex
        let classCounts = network.classCounts
        let inputNames = Set(network.inputNames)
        let imageTypes = Dictionary(description.input.map { ($0.name, FeatureEncoding.imageType(of: $0)) }, uniquingKeysWith: { a, _ in a })
        let optionalInputs = Set(description.input.filter(\.type.isOptional).map(\.name))
        // Columns the provider holds in memory are taken as they are (no copy: arrays share storage).
        var pending = Array(columns.indices)
        if let contiguous = provider as? ContiguousTrainingData {
            pending = try pending.filter { column in
                let (name, width) = (columns[column].name, columns[column].width)
                if inputNames.contains(name) || isIndex[name] != true {
                    guard imageTypes[name] == nil || imageTypes[name]! == nil,
                          let values = contiguous.contiguousValues(of: name, width: width), values.count == count * width else { return true }
                    columns[column].values = values
                    return false
                }
                let label = contiguous.classIndices(of: name) ?? (predictedFeature.isEmpty ? nil : contiguous.classIndices(of: predictedFeature))
                guard let label, label.count == count else { return true }
                let classes = classCounts[name] ?? 0
                if let bad = label.firstIndex(where: { !(0..<classes).contains($0) }) {
                    throw MLModelError(.featureType, "example \(bad): class index \(label[bad]) in '\(name)' is outside 0..<\(classes)")
                }
                columns[column].values = label.map(Float.init)
                return false
            }
        }
        var bytes = 0
        for column in pending {
            let (perExample, overflow) = columns[column].width.multipliedReportingOverflow(by: 4)
            let (columnBytes, overflowColumn) = perExample.multipliedReportingOverflow(by: count)
            let (sum, overflowSum) = bytes.addingReportingOverflow(columnBytes)
            guard !overflow, !overflowColumn, !overflowSum, sum <= memoryLimit else {
                throw MLModelError(.update, "the training data: \(count) examples of '\(columns[column].name)' (\(columns[column].width) values each) "
                    + "need \(overflow || overflowColumn || overflowSum ? "more than \(formatBytes(.max))" : formatBytes(sum)) "
                    + "as floats, more than the memory limit of \(formatBytes(memoryLimit))")
            }
            bytes = sum
        }
        for example in 0..<count where !pending.isEmpty {
            let features = provider.features(at: example)
            for column in pending {
                if example == 0 { columns[column].values = [Float](repeating: 0, count: count * columns[column].width) }
                let (name, width, shape) = (columns[column].name, columns[column].width, columns[column].shape)
                try columns[column].values.withUnsafeMutableBufferPointer { buffer in
                    let row = buffer.baseAddress! + example * width
                    if inputNames.contains(name) || isIndex[name] != true {
                        try FeatureEncoding.write(
                            features.featureValue(for: name), name: name, example: example, count: width, shape: shape,
                            image: imageTypes[name] ?? nil, isOptional: optionalInputs.contains(name), to: row)
                        try FeatureEncoding.checkFinite(row, count: width, name: name, example: example)
                        return
                    }
                    row[0] = Float(try Self.classIndex(
                        features: features, target: name, predictedFeature: predictedFeature, labels: labels,
                        classes: classCounts[name] ?? 0, example: example))
                }
            }
        }
        self.columns = columns
    }

    /// The class index an example's label names: the target feature (an index, or a label for
    /// classifiers), else the classifier's predicted-feature training input.
    private static func classIndex(
        features: MLFeatureProvider, target: String, predictedFeature: String, labels: ClassLabelSet, classes: Int, example: Int
    ) throws -> Int {
        let fromTarget = features.featureValue(for: target)
        let value = fromTarget ?? (predictedFeature.isEmpty ? nil : features.featureValue(for: predictedFeature))
        guard let value, !value.isUndefined else {
            let names = predictedFeature.isEmpty || predictedFeature == target ? "'\(target)'" : "'\(target)' or '\(predictedFeature)'"
            throw MLModelError(.featureType, "example \(example): the label (\(names)) is missing")
        }
        let name = fromTarget == nil ? predictedFeature : target
        // Labels of a classifier: strings, or int64 values naming a class (from the label feature).
        if labels.count > 0, value.type == .string || (fromTarget == nil && value.type == .int64) {
            guard let index = labels.index(of: value) else {
                throw MLModelError(.featureType, "example \(example): label \(value) in '\(name)' is not one of the model's classes (\(labels.descriptions.prefix(20).joined(separator: ", ")))")
            }
            return index
        }
        let number: Double
        switch value.type {
        case .int64: number = Double(value.int64Value)
        case .double: number = value.doubleValue
        case .multiArray:
            let array = value.multiArrayValue!
            guard array.count == 1 else {
                throw MLModelError(.featureType, "example \(example): '\(name)' holds \(array.count) values; one class index expected")
            }
            number = array[0].doubleValue
        default:
            throw MLModelError(.featureType, "example \(example): '\(name)' is a \(value.type); a class index or label expected")
        }
        guard number.isFinite, number == number.rounded(), number >= 0, number < Double(classes) else {
            throw MLModelError(.featureType, "example \(example): class index \(formatNumber(number)) in '\(name)' is outside 0..<\(classes)")
        }
        return Int(number)
    }

    /// Copies the rows of `examples` into the network's input and target blobs (rows 0, 1, …).
    func gather(_ examples: ArraySlice<Int>, into network: Network) {
        for column in columns {
            let destination = network.inputBlob(named: column.name)!.value.pointer
            column.values.withUnsafeBufferPointer { source in
                for (row, example) in examples.enumerated() {
                    (destination + row * column.width).update(from: source.baseAddress! + example * column.width, count: column.width)
                }
            }
        }
    }
}
