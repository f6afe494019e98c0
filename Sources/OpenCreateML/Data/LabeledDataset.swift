import CoreMLSpec
import Foundation
import OpenCoreML

/// Labelled examples of equal size, as the data sets of image and signal benchmarks come: `count`
/// rows of `featureCount` numbers and one class index per row (an OpenCoreML addition; Create ML
/// reads tabular data into ``MLDataTable`` instead).
///
/// ```swift
/// let train = try LabeledDataset(contentsOf: URL(fileURLWithPath: "/usr/share/datasets/fashion-mnist"), split: .train)
/// let examples = try train.batchProvider(for: model)   // onto the model's input and label
/// let result = try model.updated(with: examples)
/// ```
///
/// The values are kept once, as 32-bit floats, row after row; ``batchProvider(for:classNames:)``
/// and training read them in place rather than copying them.
public struct LabeledDataset: Sendable {
    /// Which files of an MNIST-format folder to read.
    public enum Split: String, CaseIterable, Sendable {
        /// `train` reads the `train-*` files, `test` the `t10k-*` files.
        case train, test
    }

    /// Class indices are below this (a million classes): a label like 999,999,999 in a file is an
    /// error rather than a request for a billion class names.
    public static let classIndexLimit = 1_000_000

    /// What to call the data in messages, e.g. `fashion-mnist (train)`.
    public let name: String
    /// The number of examples.
    public let count: Int
    /// The numbers per example.
    public let featureCount: Int
    /// `count × featureCount` values, row after row, already scaled.
    public let values: [Float]
    /// One class index (0 or more) per example.
    public let labels: [Int]
    /// The layout of one example, e.g. `[28, 28]` for IDX images; `[featureCount]` when the source
    /// has none.
    public let sampleShape: [Int]

    /// Examples from memory; throws unless `values` holds `labels.count` rows of
    /// `sampleShape`'s element count, every value finite and every label at least 0.
    public init(name: String = "examples", values: [Float], labels: [Int], sampleShape: [Int]) throws {
        guard !sampleShape.isEmpty, sampleShape.allSatisfy({ $0 > 0 }) else {
            throw CreateMLError(name, "example shape \(sampleShape) must have positive sizes")
        }
        guard let width = checkedProduct(sampleShape), checkedProduct([width, labels.count]) == values.count else {
            throw CreateMLError(name, "\(values.count) values are not \(labels.count) examples of shape \(sampleShape)")
        }
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw CreateMLError(name, "example \(bad / width): value \(bad % width) is \(values[bad])")
        }
        if let bad = labels.firstIndex(where: { !(0..<Self.classIndexLimit).contains($0) }) {
            throw CreateMLError(name, "example \(bad): label \(labels[bad]) is not a class index (0 to \(Self.classIndexLimit - 1))")
        }
        self.init(name: name, count: labels.count, featureCount: width, values: values, labels: labels, sampleShape: sampleShape)
    }

    /// Examples already checked by a reader.
    init(name: String, count: Int, featureCount: Int, values: [Float], labels: [Int], sampleShape: [Int]? = nil) {
        precondition(values.count == count * featureCount, "values must hold count × featureCount numbers")
        precondition(labels.count == count, "labels must hold one class index per row")
        self.name = name
        self.count = count
        self.featureCount = featureCount
        self.values = values
        self.labels = labels
        self.sampleShape = sampleShape ?? [featureCount]
    }

    /// The examples in a file or folder: a folder of MNIST-format IDX files (`split` picks the
    /// `train-*` or `t10k-*` pair, each optionally gzipped), or a CSV file with the class index
    /// first and then the values on each line (gzipped or not; an optional header line). Values are
    /// multiplied by `scale` (1/255 turns 8-bit pixels into 0…1).
    public init(contentsOf url: URL, split: Split = .train, scale: Float = 1 / 255) throws {
        let path = url.path
        guard scale.isFinite, scale > 0 else { throw CreateMLError(path, "the scale must be a positive number, got \(scale)") }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw CreateMLError(path, "no such file or folder")
        }
        let dataset = isFolder.boolValue ? try Self.idx(folder: path, split: split, scale: scale) : try Self.csv(path: path, scale: scale)
        guard dataset.count > 0 else { throw CreateMLError(path, "holds no examples") }
        self = dataset
    }

    /// Row `index`'s values.
    public func row(_ index: Int) -> ArraySlice<Float> {
        values[(index * featureCount)..<((index + 1) * featureCount)]
    }

    /// The number of classes the labels imply: the largest label plus one (0 when empty).
    public var classCount: Int { (labels.max() ?? -1) + 1 }

    /// The first `n` examples (all of them when `n >= count`), e.g. for a quick run.
    public func prefix(_ n: Int) -> LabeledDataset {
        let kept = max(0, min(n, count))
        guard kept < count else { return self }
        return LabeledDataset(
            name: name, count: kept, featureCount: featureCount,
            values: Array(values.prefix(kept * featureCount)), labels: Array(labels.prefix(kept)), sampleShape: sampleShape)
    }
}

extension LabeledDataset {
    /// The examples in a pair of NumPy files: `features` holds an N × D (or N × …) array, `labels`
    /// N whole numbers ≥ 0 (any integer or float dtype). Each example keeps the features' trailing
    /// shape. Every feature value must be finite (an error names the first row that is not).
    public init(npyFeatures features: URL, labels: URL, name: String? = nil) throws {
        let x = try MLMultiArray(contentsOf: features), y = try MLMultiArray(contentsOf: labels, dataType: .float64)
        let shape = x.shape.map(\.intValue), labelShape = y.shape.map(\.intValue)
        guard shape.count >= 2 else {
            throw CreateMLError(features.path, "shape \(shape); expected rows × features")
        }
        guard labelShape == [shape[0]] else {
            throw CreateMLError(labels.path, "shape \(labelShape); expected [\(shape[0])], one label per row of \(features.path)")
        }
        let classes = try (0..<y.count).map { index -> Int in
            let value = y[index].doubleValue
            guard value >= 0, value == value.rounded(), value < Double(Self.classIndexLimit) else {
                throw CreateMLError(labels.path, "element \(index) is \(value), not a class index (0 to \(Self.classIndexLimit - 1))")
            }
            return Int(value)
        }
        // Training data keeps the finite rule: one NaN would poison every weight it reaches.
        let values = x.floatValues()
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            let width = max(1, values.count / max(1, shape[0]))
            throw CreateMLError(features.path, "row \(bad / width), value \(bad % width) is \(values[bad]); training features must be finite numbers")
        }
        try self.init(name: name ?? features.deletingPathExtension().lastPathComponent, values: values, labels: classes,
                      sampleShape: Array(shape.dropFirst()))
    }
}
