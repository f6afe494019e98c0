import CoreMLSpec
import Foundation

/// Predicts with a feature vectorizer: the listed input columns, in order, side by side in one
/// array, each as wide as its `inputDimensions`. A number fills one value; a multi-array its
/// elements in row-major order (as many as the column's width); an Int64-keyed dictionary
/// `{position: value}` (a sparse vector, as a dict vectorizer or sparse one-hot encoder gives it)
/// its positions, the others 0. A missing optional column gives NaNs (missing values).
final class FeatureVectorizerRunner: ModelRunner, @unchecked Sendable {
    private struct Column {
        let feature: CoreML_Specification_FeatureDescription
        let width: Int
    }

    private let columns: [Column]
    private let width: Int
    private let output: CoreML_Specification_FeatureDescription
    private let modelName = "the feature vectorizer"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .featureVectorizer(let vectorizer)? = specification.type else { preconditionFailure("not a feature vectorizer") }
        let description = specification.description_p
        guard let output = description.output.first else { throw MLModelError(.generic, "the feature vectorizer has no output") }
        self.output = output
        var width = 0
        columns = try vectorizer.inputList.map { column in
            guard let feature = description.input.first(where: { $0.name == column.inputColumn }) else {
                throw MLModelError(.generic, "the feature vectorizer's column '\(column.inputColumn)' is not an input of the model")
            }
            guard let columnWidth = checkedSize(column.inputDimensions, limit: memoryLimit / MemoryLayout<Double>.stride), columnWidth > 0 else {
                throw MLModelError(.generic, "column '\(column.inputColumn)' of the feature vectorizer is \(column.inputDimensions) values wide; it must be positive and fit the memory limit of \(memoryLimit) bytes")
            }
            width += columnWidth
            if width > memoryLimit / MemoryLayout<Double>.stride {
                throw MLModelError(.generic, "the feature vectorizer's output of more than \(width) values exceeds the memory limit of \(memoryLimit) bytes")
            }
            return Column(feature: feature, width: columnWidth)
        }
        guard width > 0 else { throw MLModelError(.generic, "the feature vectorizer has no input columns") }
        self.width = width
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        var row = [Double](repeating: 0, count: width)
        return try examples.enumerated().map { number, example in
            try row.withUnsafeMutableBufferPointer { row in
                var position = 0
                for column in columns {
                    let slice = UnsafeMutableBufferPointer(rebasing: row[position..<position + column.width])
                    try write(column, of: example, number: number, to: slice)
                    position += column.width
                }
                let value = try ClassicOutputs.value(UnsafeBufferPointer(row), as: output, modelName: modelName)
                return MLDictionaryFeatureProvider(featureValues: [output.name: value])
            }
        }
    }

    private func write(_ column: Column, of example: MLFeatureProvider, number: Int, to slice: UnsafeMutableBufferPointer<Double>) throws {
        guard let value = try ClassicInputValue.read(column.feature, from: example, number: number, modelName: modelName) else {
            slice.update(repeating: .nan)
            return
        }
        switch value.value.type {
        case .double, .int64:
            guard column.width == 1 else { throw value.wrongType("a multi-array of \(column.width) values") }
            slice[0] = try value.double
        case .multiArray:
            let array = try value.multiArray(count: column.width)
            array.copyDoubles(to: slice.baseAddress!)
        case .dictionary:
            slice.update(repeating: 0)
            for (key, entry) in value.value.dictionaryValue {
                guard let index = key.base as? Int64 else {
                    throw MLModelError(.featureType, "example \(value.example): input '\(value.name)' has String keys; the feature vectorizer takes Int64 positions")
                }
                guard index >= 0 && index < column.width else {
                    throw MLModelError(.featureType, "example \(value.example): input '\(value.name)' has position \(index), outside its \(column.width) values")
                }
                slice[Int(index)] = entry.doubleValue
            }
        default:
            throw value.wrongType("a number, a multi-array or a dictionary")
        }
    }
}
