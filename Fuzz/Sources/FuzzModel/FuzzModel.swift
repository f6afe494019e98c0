// FuzzModel: the bytes of a `.mlmodel` file → decode → validate → compile → predict.
//
// Every Swift error thrown on the way is an accepted answer to a bad model. Findings are what
// libFuzzer reports: a trap (precondition, overflow, force unwrap, index out of range), an
// AddressSanitizer report, a timeout or running out of memory.
//
// Inputs are made from the model's own description, so that a model that validates is also run:
// multi-arrays of the declared shape (or of the smallest shape a flexible input accepts), images
// as zero-filled pixel buffers of the declared size, numbers, strings and dictionaries. An input
// whose declared size is beyond `maximumElements` is left out rather than allocated here, so the
// library has to reject the model or the missing input itself.

import FuzzSupport
import CoreMLSpec
import Foundation
import OpenCoreML

/// The most elements (or pixels) the harness allocates for one model's inputs together: 4 M
/// float64s is 32 MB. (Per input, a model declaring dozens of large inputs made the harness itself
/// hold over a gigabyte.)
let maximumElements = 1 << 22

/// The memory budget the models run under (`MLModelConfiguration.memoryLimit`): 256 MB, an eighth
/// of the run's 2 GB resident limit (libFuzzer's own corpus and AddressSanitizer's caches take over
/// 1 GB of it after a long run), so that a model beyond it must be refused by the library's own
/// budget check; a model that still takes more than 2 GB is a finding.
let memoryLimit = 256 << 20

@main
enum FuzzModel {
    static func main() {
        exit(runLibFuzzer { bytes in fuzzOne(bytes) })
    }
}

func fuzzOne(_ bytes: Data) {
    let specification: CoreML_Specification_Model
    do {
        specification = try CoreML_Specification_Model(serializedModel: bytes)
    } catch {
        return
    }
    // Every rule, not only the first broken one, so that validation runs past the first problem.
    _ = specification.validationIssues()
    let model: MLModel
    do {
        let configuration = MLModelConfiguration()
        configuration.memoryLimit = memoryLimit
        model = try MLModel(specification: specification, configuration: configuration)  // validates again, throws the first issue
    } catch {
        return
    }
    let description = model.modelDescription
    var values: [String: MLFeatureValue] = [:]
    var remaining = maximumElements
    for input in description.inputDescriptions {
        if let value = makeValue(for: input, remaining: &remaining) { values[input.name] = value }
    }
    let provider = MLDictionaryFeatureProvider(featureValues: values)
    // The first prediction compiles the model's runner; the second reuses it.
    for _ in 0..<2 {
        guard let output = try? model.prediction(from: provider) else { return }
        for name in output.featureNames { _ = output.featureValue(for: name) }
    }
}

/// A value for one input, or nil when the description gives nothing the harness can build cheaply.
func makeValue(for input: MLFeatureDescription, remaining: inout Int) -> MLFeatureValue? {
    switch input.type {
    case .int64: return MLFeatureValue(int64: 1)
    case .double: return MLFeatureValue(double: 0.5)
    case .string: return MLFeatureValue(string: "a")
    case .multiArray:
        guard let constraint = input.multiArrayConstraint else { return nil }
        return makeMultiArray(constraint, remaining: &remaining).map { MLFeatureValue(multiArray: $0) }
    case .image:
        guard let constraint = input.imageConstraint else { return nil }
        let (pixels, overflow) = constraint.pixelsWide.multipliedReportingOverflow(by: constraint.pixelsHigh)
        guard !overflow, pixels > 0, pixels <= remaining,
              let buffer = PixelBuffer(width: constraint.pixelsWide, height: constraint.pixelsHigh,
                                       pixelFormatType: constraint.pixelFormatType)
        else { return nil }
        remaining -= pixels
        for offset in stride(from: 0, to: buffer.bytesPerRow * buffer.height, by: 7) {
            buffer.baseAddress.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: offset, as: UInt8.self)
        }
        return MLFeatureValue(pixelBuffer: buffer)
    case .dictionary:
        let key: AnyHashable = input.dictionaryConstraint?.keyType == .string ? "a" : Int64(1)
        return try? MLFeatureValue(dictionary: [key: NSNumber(value: 0.5)])
    default:
        return nil
    }
}

/// A multi-array the constraint accepts: its shape, else the first enumerated shape, else the
/// smallest size of each ranged dimension; nil when that shape is empty or larger than `remaining`
/// elements, which it otherwise reduces.
func makeMultiArray(_ constraint: MLMultiArrayConstraint, remaining: inout Int) -> MLMultiArray? {
    var shape = constraint.shape.map(\.intValue)
    let flexible = constraint.shapeConstraint
    if flexible.type == .enumerated, let first = flexible.enumeratedShapes.first, !first.isEmpty {
        if shape.isEmpty { shape = first.map(\.intValue) }
    } else if flexible.type == .range, !flexible.sizeRangeForDimension.isEmpty, shape.isEmpty {
        shape = flexible.sizeRangeForDimension.map { max($0.lowerBound, 1) }
    }
    guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else { return nil }
    var count = 1
    for dimension in shape {
        let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
        guard !overflow, product <= remaining else { return nil }
        count = product
    }
    guard let array = try? MLMultiArray(shape: shape.map { NSNumber(value: $0) }, dataType: constraint.dataType) else {
        return nil
    }
    remaining -= count
    // Small values of both signs, so that activations, logs and divisions see more than zeros.
    for index in 0..<min(count, 4096) {
        array[index] = NSNumber(value: Double(index % 7) * 0.25 - 0.5)
    }
    return array
}
