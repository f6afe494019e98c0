import CoreMLSpec
import Foundation
import _OpenCoreMLEngine

/// Predicts with a tree ensemble regressor or classifier: every tree walks each example to a leaf,
/// the leaves' values are added to the base values, and the post-evaluation transform applies.
///
/// A regressor outputs the (transformed) values as its declared number or multi-array. A
/// classifier with one dimension is binary: the value is the probability of the second class
/// (with no transform, as random forests write it; through the logistic function, as boosted
/// trees do), the first class gets one minus it, and the second class is predicted when its
/// probability is at least 0.5. With more dimensions the values are the classes' probabilities:
/// after a softmax for boosted trees; with no transform, the sums divided by their total when
/// none is negative. That total is 1 for models whose leaves hold shares already scaled by the
/// number of trees; coremltools' converter does not scale multi-class random forests
/// (coremltools issue #1541), for which Core ML reports the number of trees times scikit-learn's
/// probabilities and OpenCoreML reports scikit-learn's (the label is the same either way). No
/// class labels stand for 0, 1, … (two of them for one dimension).
///
/// A large batch (``ClassicInputRows/parallelExamples`` examples or more) is read, evaluated and
/// transformed on the kernel threads, and its outputs are made when they are read
/// (``ClassicOutputRows``): equal values, without allocating every output up front.
final class TreeEnsembleRunner: ModelRunner, @unchecked Sendable {
    private let layout: TreeEnsembleLayout
    private let transform: TreeEnsembleTransform
    private let inputs: ClassicInputRows
    private let memoryLimit: Int
    private let outputs: Outputs
    private let outputNames: [String]

    private enum Outputs {
        case regressor(CoreML_Specification_FeatureDescription)
        /// `binary`: one dimension scoring the second of two classes.
        case classifier(ClassifierOutputs, binary: Bool)
    }

    private static let modelName = "the tree ensemble"

    init(specification: CoreML_Specification_Model, memoryLimit: Int) throws {
        let parameters: CoreML_Specification_TreeEnsembleParameters
        let transform: CoreML_Specification_TreeEnsemblePostEvaluationTransform
        let description = specification.description_p
        inputs = try ClassicInputRows(description.input, modelName: Self.modelName, memoryLimit: memoryLimit)
        switch specification.type {
        case .treeEnsembleRegressor(let regressor)?:
            parameters = regressor.treeEnsemble
            transform = regressor.postEvaluationTransform
            outputs = .regressor(try ClassicOutputs.regressorOutput(of: description, modelName: "the tree ensemble regressor"))
        case .treeEnsembleClassifier(let classifier)?:
            parameters = classifier.treeEnsemble
            transform = classifier.postEvaluationTransform
            let dimensions = Int(clamping: parameters.numPredictionDimensions)
            guard let bytes = checkedProduct([dimensions, MemoryLayout<Double>.stride]), bytes <= memoryLimit else {
                throw MLModelError(.generic, "the tree ensemble's \(parameters.numPredictionDimensions) prediction dimensions pass the memory limit of \(memoryLimit) bytes")
            }
            var classes = classifier.classLabelSet
            if classes == .none { classes = .int64s((0..<Int64(dimensions == 1 ? 2 : dimensions)).map { $0 }) }
            outputs = .classifier(ClassifierOutputs(description: description, classes: classes), binary: dimensions == 1)
        default:
            preconditionFailure("not a tree ensemble")
        }
        let isMultiClass: Bool
        if case .classifier(_, let binary) = outputs { isMultiClass = !binary } else { isMultiClass = false }
        switch transform {
        case .noTransform: self.transform = isMultiClass ? .shares : .none
        case .classificationSoftMax: self.transform = .softmax
        case .regressionLogistic: self.transform = .logistic
        case .classificationSoftMaxWithZeroClassReference: self.transform = .softmaxWithZeroReference
        case .UNRECOGNIZED(let value): throw MLModelError(.generic, "unknown post-evaluation transform \(value)")
        }
        do {
            layout = try TreeEnsembleLayout(parameters, inputWidth: inputs.declaredWidth, memoryLimit: memoryLimit)
        } catch let error as EngineError {
            throw MLModelError(.generic, error.description)
        }
        self.memoryLimit = memoryLimit
        switch outputs {
        case .regressor(let output): outputNames = [output.name]
        case .classifier(let classifier, _): outputNames = [classifier.predictedFeatureName] + (classifier.probabilitiesName.map { [$0] } ?? [])
        }
    }

    func predictions(_ examples: [MLFeatureProvider]) throws -> [MLFeatureProvider] {
        guard !examples.isEmpty else { return [] }
        let (rows, width) = try inputs.read(examples)
        let dimensions = layout.dimensions
        guard let count = checkedProduct([examples.count, dimensions]), let bytes = checkedProduct([count, 8]), bytes <= memoryLimit else {
            throw MLModelError(.generic, "\(examples.count) examples of \(dimensions) tree ensemble outputs need more memory than the limit of \(memoryLimit) bytes")
        }
        var values = [Double](repeating: 0, count: count)
        try values.withUnsafeMutableBufferPointer { values in
            try rows.withUnsafeBufferPointer { rows in
                do {
                    try layout.evaluate(rows: rows.baseAddress!, count: examples.count, width: width, into: values.baseAddress!)
                } catch let error as EngineError {
                    throw MLModelError(.featureType, error.description)
                }
            }
        }
        let large = examples.count >= ClassicInputRows.parallelExamples
        values.withUnsafeMutableBufferPointer { values in
            parallelChunks(examples.count, chunks: large ? nil : 1) { _, range in
                for example in range {
                    transform.apply(to: UnsafeMutableBufferPointer(rebasing: values[(example * dimensions)..<((example + 1) * dimensions)]))
                }
            }
        }
        // What can fail (an output declared with another size) does not depend on the values:
        // the first example's outputs are made here, the rest of a large batch's when read.
        var first: [String: MLFeatureValue] = [:]
        try values.withUnsafeBufferPointer { values in
            let row = UnsafeBufferPointer(rebasing: values[0..<dimensions])
            for name in outputNames { first[name] = try feature(row, name) }
        }
        guard large else {
            return try values.withUnsafeBufferPointer { values in
                try (0..<examples.count).map { example in
                    guard example > 0 else { return MLDictionaryFeatureProvider(featureValues: first) }
                    let row = UnsafeBufferPointer(rebasing: values[(example * dimensions)..<((example + 1) * dimensions)])
                    var features: [String: MLFeatureValue] = [:]
                    for name in outputNames { features[name] = try feature(row, name) }
                    return MLDictionaryFeatureProvider(featureValues: features)
                }
            }
        }
        let outputRows = ClassicOutputRows(values: values, width: dimensions, names: Set(outputNames)) { [self] row, name in
            try? feature(row, name)
        }
        return outputRows.providers(count: examples.count)
    }

    /// The output feature `name` of one example's transformed values.
    private func feature(_ row: UnsafeBufferPointer<Double>, _ name: String) throws -> MLFeatureValue? {
        switch outputs {
        case .regressor(let output):
            return name == output.name ? try ClassicOutputs.value(row, as: output, modelName: Self.modelName) : nil
        case .classifier(let classifier, let binary):
            func pick(_ scores: UnsafeBufferPointer<Double>, best: Int?) throws -> MLFeatureValue? {
                if name == classifier.predictedFeatureName { return classifier.label(scores: scores, best: best) }
                if name == classifier.probabilitiesName { return try classifier.probabilities(scores: scores, modelName: Self.modelName) }
                return nil
            }
            guard binary else { return try pick(row, best: nil) }
            let second = row[0]
            return try [1 - second, second].withUnsafeBufferPointer { try pick($0, best: second >= 0.5 ? 1 : 0) }
        }
    }
}
