import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// The inputs of a classic model (GLM, SVM, tree ensemble, scaler, …) read as one row of doubles
/// per example, as Core ML reads them: the declared inputs in order, a number contributing one
/// value and a multi-array all its elements in row-major order.
///
/// A multi-array declared without a shape takes its width from the first example; every
/// example must then have the same width.
struct ClassicInputRows: Sendable {
    struct Input: Sendable {
        let name: String
        /// The declared number of values, or nil for a multi-array declared without a shape.
        let count: Int?
        let isOptional: Bool
    }

    let inputs: [Input]
    /// What the rows are for, in errors ("the tree ensemble").
    let modelName: String
    /// The most bytes one read may allocate.
    let memoryLimit: Int
    /// The width every row has when all inputs declare their size.
    let declaredWidth: Int?

    /// Refuses input types other than numbers and multi-arrays, and declared sizes that together
    /// overflow or pass `memoryLimit` bytes for one row.
    init(_ features: [CoreML_Specification_FeatureDescription], modelName: String, memoryLimit: Int) throws {
        self.modelName = modelName
        self.memoryLimit = memoryLimit
        inputs = try features.map { feature in
            switch feature.type.type {
            case .doubleType?, .int64Type?:
                return Input(name: feature.name, count: 1, isOptional: feature.type.isOptional)
            case .multiArrayType(let array)?:
                guard let size = checkedProduct(array.shape) else {
                    throw MLModelError(.featureType, SizeCheckFailure.product(array.shape, what: "the shape of input '\(feature.name)'"))
                }
                let count = array.shape.isEmpty ? nil : size
                return Input(name: feature.name, count: count, isOptional: feature.type.isOptional)
            default:
                throw MLModelError(.featureType, "\(modelName) takes numbers and multi-arrays; input '\(feature.name)' is declared otherwise")
            }
        }
        let counts = inputs.compactMap(\.count)
        declaredWidth = counts.count == inputs.count ? try Self.width(counts, rows: 1, modelName: modelName, memoryLimit: memoryLimit) : nil
    }

    /// The sum of `counts`, checked: `rows` rows of that many doubles must fit `memoryLimit` bytes.
    private static func width(_ counts: [Int], rows: Int, modelName: String, memoryLimit: Int) throws -> Int {
        var width = 0
        for count in counts {
            let (sum, overflow) = width.addingReportingOverflow(count)
            guard !overflow else { throw MLModelError(.featureType, "the inputs of \(modelName) hold more values than a 64-bit count can hold") }
            width = sum
        }
        guard let bytes = checkedProduct([rows, width, MemoryLayout<Double>.stride]), bytes <= memoryLimit else {
            throw MLModelError(.featureType, "\(rows) row\(rows == 1 ? "" : "s") of the \(width) input values of \(modelName) pass the memory limit of \(memoryLimit) bytes")
        }
        return width
    }

    /// The examples' rows, one after another, and the row width. A missing optional input reads
    /// as NaN (a missing value), a missing required one is an error naming it and the example.
    /// Errors number the examples from `firstExample` (for a batch read in chunks).
    func read(_ examples: some Collection<MLFeatureProvider>, firstExample: Int = 0) throws -> (values: [Double], width: Int) {
        let examples = Array(examples)
        guard let first = examples.first else { return ([], declaredWidth ?? 0) }
        let counts = try inputs.map { input in
            if let count = input.count { return count }
            guard let array = first.featureValue(for: input.name)?.multiArrayValue else {
                throw MLModelError(.featureType, "example \(firstExample): input '\(input.name)' of \(modelName) must be a multi-array")
            }
            return array.count
        }
        let width = try Self.width(counts, rows: examples.count, modelName: modelName, memoryLimit: memoryLimit)
        var values = [Double](repeating: .nan, count: examples.count * width)
        // Large batches are read on the kernel threads; the error reported is the first example's.
        var failure: (example: Int, error: any Error)?
        let lock = NSLock()
        values.withUnsafeMutableBufferPointer { rows in
            let chunks = examples.count >= Self.parallelExamples ? nil : 1
            parallelChunks(examples.count, chunks: chunks) { _, range in
                for number in range {
                    var position = number * width
                    do {
                        for (input, count) in zip(inputs, counts) {
                            try write(examples[number].featureValue(for: input.name), input: input, count: count, example: firstExample + number,
                                      to: rows.baseAddress! + position)
                            position += count
                        }
                    } catch {
                        lock.withLock { if failure.map({ number < $0.example }) ?? true { failure = (number, error) } }
                        return
                    }
                }
            }
        }
        if let failure { throw failure.error }
        return (values, width)
    }

    /// Batches at least this large are read on several threads.
    static let parallelExamples = 2048

    private func write(_ value: MLFeatureValue?, input: Input, count: Int, example: Int, to destination: UnsafeMutablePointer<Double>) throws {
        guard let value, !value.isUndefined else {
            guard input.isOptional else { throw MLModelError(.featureType, "example \(example): input '\(input.name)' is missing") }
            return  // stays NaN
        }
        switch value.type {
        case .double where count == 1:
            destination[0] = value.doubleValue
        case .int64 where count == 1:
            destination[0] = Double(value.int64Value)
        case .multiArray:
            let array = value.multiArrayValue!
            guard array.count == count else {
                throw MLModelError(.featureType,
                                   "example \(example): input '\(input.name)' has \(array.count) values; \(modelName) expects \(count)")
            }
            array.copyDoubles(to: destination)
        default:
            let expected = count == 1 ? "a number" : "a multi-array of \(count) values"
            throw MLModelError(.featureType, "example \(example): input '\(input.name)' is a \(value.type); \(modelName) expects \(expected)")
        }
    }
}
