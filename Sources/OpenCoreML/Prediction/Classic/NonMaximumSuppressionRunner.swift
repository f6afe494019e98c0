import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a non-maximum suppression model: keeps the most confident of overlapping boxes.
///
/// Per example: the confidence input is boxes × classes, the coordinates input boxes × 4
/// (centerX, centerY, width, height); the last dimension is the classes (or the 4 values) and any
/// leading dimensions count boxes, so a `[1, boxes, classes]` array reads as `[boxes, classes]`.
/// The threshold inputs, when the model names them and the example has them, replace the
/// model's defaults. A box counts with its highest class confidence: boxes below the confidence
/// threshold are dropped, then PickTop keeps the most confident, suppressing boxes whose IoU with
/// a kept box is above the IoU threshold (only boxes of the same top class when `perClass`).
///
/// The outputs are the kept boxes' rows, most confident first: `[kept, classes]` and
/// `[kept, 4]`, in the outputs' declared element type. When the outputs declare a shape, the rows
/// are cut to its (largest) number and padded with zero rows up to its (smallest); otherwise
/// keeping no box gives arrays of shape `[0, classes]` and `[0, 4]`.
final class NonMaximumSuppressionRunner: ModelRunner, @unchecked Sendable {
    private let suppression: CoreML_Specification_NonMaximumSuppression
    private let perClass: Bool
    private let rows: CoreML_Specification_NonMaximumSuppression.OutputRows
    private let dataType: MLMultiArrayDataType
    private let memoryLimit: Int
    /// The threshold inputs the model declares as required.
    private let requiredInputs: Set<String>

    /// Refuses outputs whose declared smallest number of rows would not fit in `memoryLimit` bytes.
    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        guard case .nonMaximumSuppression(let suppression)? = specification.type else {
            preconditionFailure("not a non-maximum suppression model")
        }
        self.suppression = suppression
        requiredInputs = Set(specification.description_p.input.filter { !$0.type.isOptional }.map(\.name))
        if case .pickTop(let pickTop)? = suppression.suppressionMethod { perClass = pickTop.perClass } else { perClass = false }
        let outputs = specification.description_p.output
        func array(_ name: String) throws -> CoreML_Specification_ArrayFeatureType {
            guard let feature = outputs.first(where: { $0.name == name }), case .multiArrayType(let array)? = feature.type.type else {
                throw MLModelError(.generic, "the suppression's output '\(name)' is not a multi-array")
            }
            return array
        }
        let confidence = try array(suppression.confidenceOutputFeatureName)
        let coordinates = try array(suppression.coordinatesOutputFeatureName)
        guard let rows = suppression.outputRows(confidence: confidence, coordinates: coordinates) else {
            throw MLModelError(.generic, "the suppression's output shapes hold a size too large for this machine")
        }
        guard let bytes = checkedProduct([rows.lower, 4 + Int(clamping: max(confidence.shape.last ?? 1, 1)), 8]), bytes <= memoryLimit else {
            throw MLModelError(.generic, "the suppression's outputs pad to at least \(rows.lower) rows, which would exceed the memory limit (\(memoryLimit) bytes)")
        }
        self.rows = rows
        self.memoryLimit = memoryLimit
        dataType = confidence.dataType == .float32 ? .float32 : .double
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        try examples.enumerated().map { try prediction($1, example: $0) }
    }

    private func prediction(_ example: MLFeatureProvider, example number: Int) throws -> MLFeatureProvider {
        let (confidences, classes) = try rowsOf(suppression.confidenceInputFeatureName, in: example, example: number, width: nil)
        let boxCount = classes == 0 ? 0 : confidences.count / classes
        let (coordinates, _) = try rowsOf(suppression.coordinatesInputFeatureName, in: example, example: number, width: 4)
        guard coordinates.count == boxCount * 4 else {
            throw MLModelError(.featureType, "example \(number): input '\(suppression.coordinatesInputFeatureName)' has \(coordinates.count / 4) boxes; "
                + "input '\(suppression.confidenceInputFeatureName)' has \(boxCount)")
        }
        let iou = try threshold(suppression.iouThresholdInputFeatureName, default: suppression.iouThreshold, in: example, example: number)
        let minimum = try threshold(suppression.confidenceThresholdInputFeatureName, default: suppression.confidenceThreshold, in: example, example: number)
        var kept = boxCount == 0 ? [] : confidences.withUnsafeBufferPointer { confidences in
            coordinates.withUnsafeBufferPointer { coordinates in
                BoxSuppression.pickTop(confidences: confidences.baseAddress!, classCount: classes, coordinates: coordinates.baseAddress!,
                                       boxCount: boxCount, iouThreshold: iou, confidenceThreshold: minimum, perClass: perClass)
            }
        }
        if let upper = rows.upper, kept.count > upper { kept.removeLast(kept.count - upper) }
        let rowCount = max(kept.count, rows.lower)
        return MLDictionaryFeatureProvider(featureValues: [
            suppression.confidenceOutputFeatureName: MLFeatureValue(multiArray: try gather(kept, from: confidences, width: classes, rowCount: rowCount)),
            suppression.coordinatesOutputFeatureName: MLFeatureValue(multiArray: try gather(kept, from: coordinates, width: 4, rowCount: rowCount)),
        ])
    }

    /// The input's values and the width of its rows (its last dimension, which must be `width` when given).
    private func rowsOf(_ name: String, in example: MLFeatureProvider, example number: Int, width: Int?) throws -> (values: [Double], width: Int) {
        guard let array = example.featureValue(for: name)?.multiArrayValue else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' of the suppression must be a multi-array")
        }
        let shape = array.shape.map(\.intValue)
        guard shape.count >= 2, let last = shape.last, width == nil || last == width else {
            let expected = width.map { "(boxes, \($0))" } ?? "(boxes, classes)"
            throw MLModelError(.featureType, "example \(number): input '\(name)' has shape \(shape); the suppression takes \(expected)")
        }
        var values = [Double](repeating: 0, count: array.count)
        if !values.isEmpty { values.withUnsafeMutableBufferPointer { array.copyDoubles(to: $0.baseAddress!) } }
        return (values, last)
    }

    private func threshold(_ name: String, default value: Double, in example: MLFeatureProvider, example number: Int) throws -> Double {
        guard !name.isEmpty, let feature = example.featureValue(for: name), !feature.isUndefined else {
            if requiredInputs.contains(name) { throw MLModelError(.featureType, "example \(number): input '\(name)' is missing") }
            return value
        }
        guard feature.type == .double || feature.type == .int64, !feature.doubleValue.isNaN else {
            throw MLModelError(.featureType, "example \(number): input '\(name)' must be a number")
        }
        return feature.doubleValue
    }

    /// The `kept` rows of `values`, then zero rows up to `rowCount`, as a `[rowCount, width]` array.
    private func gather(_ kept: [Int], from values: [Double], width: Int, rowCount: Int) throws -> MLMultiArray {
        guard rowCount > 0 else { return try MLMultiArray.emptyRows(columns: width, dataType: dataType) }
        guard let count = checkedProduct([rowCount, width]), let bytes = checkedProduct([count, 8]), bytes <= memoryLimit else {
            throw MLModelError(.generic, "the suppression's output of \(rowCount) × \(width) values would exceed the memory limit (\(memoryLimit) bytes)")
        }
        var rows = [Double](repeating: 0, count: count)
        for (position, row) in kept.enumerated() {
            for column in 0..<width { rows[position * width + column] = values[row * width + column] }
        }
        return try rows.withUnsafeBufferPointer { try MLMultiArray.make(shape: [rowCount, width], dataType: dataType, doubles: $0.baseAddress!) }
    }
}
