import Foundation

/// How well a classifier labels a set of examples (Create ML's `MLClassifierMetrics`): accuracy and
/// classification error, per-class precision, recall and F1 with their macro and support-weighted
/// averages, the confusion matrix and the examples it got wrong.
///
/// ```swift
/// let metrics = try MLClassifierMetrics(model: trained, on: test.batchProvider(for: trained))
/// print(metrics.accuracy, metrics.precision(of: "Sneaker"), metrics.macroAverage.f1)
/// ```
///
/// A class never predicted has precision 0 and one never present has recall 0 (as scikit-learn
/// reports them). Differences from Create ML: `confusion` and `precisionRecall` are also available
/// as plain numbers (``confusionMatrix``, ``classes``); misclassified examples are listed; the mean
/// cross-entropy is reported when the model gives probabilities.
public struct MLClassifierMetrics: Sendable {
    /// One example the classifier labelled wrongly.
    public struct Misclassification: Sendable, Equatable {
        /// The example's position in the evaluated data.
        public var index: Int
        /// The picture, for image data.
        public var file: URL?
        /// The example's true class.
        public var trueLabel: String
        /// The class the model gave it.
        public var predictedLabel: String
    }

    /// Precision, recall and F1 of one class, and how many examples truly belong to it.
    public struct ClassMetrics: Sendable, Equatable, Encodable {
        /// The class.
        public var label: String
        /// Of the examples labelled this class, the fraction that truly belong to it (0 when none was).
        public var precision: Double
        /// Of the examples that belong to this class, the fraction labelled so (0 when there are none).
        public var recall: Double
        /// The harmonic mean of precision and recall (0 when both are 0).
        public var f1: Double
        /// How many examples truly belong to the class.
        public var support: Int

        private enum CodingKeys: String, CodingKey {
            case label = "name", precision, recall, f1, support
        }
    }

    /// Precision, recall and F1 averaged over the classes.
    public struct Average: Sendable, Equatable, Encodable {
        /// The mean precision.
        public var precision: Double
        /// The mean recall.
        public var recall: Double
        /// The mean F1 score.
        public var f1: Double
    }

    /// The classes, in the order of the confusion matrix.
    public let classLabels: [String]
    /// `confusionMatrix[t][p]`: how many examples of class t were labelled p.
    public let confusionMatrix: [[Int]]
    /// The examples the classifier labelled wrongly, in order (an OpenCoreML addition).
    public internal(set) var misclassifiedExamples: [Misclassification]
    /// How many examples were evaluated.
    public let exampleCount: Int
    /// The mean of −log p(true class) when the model gives class probabilities, else nil.
    public let meanCrossEntropy: Double?

    /// Why the metrics could not be computed, or nil when they were (Create ML's `error`).
    /// Initializers throw instead; `MLImageClassifier.evaluation(on:)`, which does not throw,
    /// reports its failures here.
    public var error: Error? { failure }
    /// Whether the metrics were computed without error (Create ML's `isValid`).
    public var isValid: Bool { failure == nil }
    var failure: CreateMLError?

    /// The number of examples labelled correctly.
    public var correctCount: Int { classLabels.indices.reduce(0) { $0 + confusionMatrix[$1][$1] } }

    /// The fraction labelled correctly (0 with no examples).
    public var accuracy: Double { exampleCount == 0 ? 0 : Double(correctCount) / Double(exampleCount) }

    /// 1 − accuracy (Create ML's `classificationError`).
    public var classificationError: Double { 1 - accuracy }

    /// Per-class precision, recall, F1 and support, in ``classLabels`` order.
    public var classes: [ClassMetrics] {
        classLabels.indices.map { c in
            let hits = Double(confusionMatrix[c][c])
            let support = confusionMatrix[c].reduce(0, +)
            let predicted = confusionMatrix.reduce(0) { $0 + $1[c] }
            let precision = predicted > 0 ? hits / Double(predicted) : 0
            let recall = support > 0 ? hits / Double(support) : 0
            let f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0
            return ClassMetrics(label: classLabels[c], precision: precision, recall: recall, f1: f1, support: support)
        }
    }

    /// The unweighted mean over classes.
    public var macroAverage: Average { average(classes) { _ in 1 } }

    /// The mean over classes weighted by support.
    public var weightedAverage: Average { average(classes) { Double($0.support) } }

    /// Of the examples labelled `label`, the fraction truly of it (0 when none was or the label is unknown).
    public func precision(of label: String) -> Double { metrics(of: label)?.precision ?? 0 }

    /// Of the examples truly of `label`, the fraction labelled so (0 when there were none).
    public func recall(of label: String) -> Double { metrics(of: label)?.recall ?? 0 }

    /// The harmonic mean of `label`'s precision and recall.
    public func f1(of label: String) -> Double { metrics(of: label)?.f1 ?? 0 }

    private func metrics(of label: String) -> ClassMetrics? {
        classLabels.firstIndex(of: label).map { classes[$0] }
    }

    private func average(_ classes: [ClassMetrics], weight: (ClassMetrics) -> Double) -> Average {
        let total = classes.reduce(0) { $0 + weight($1) }
        guard total > 0 else { return Average(precision: 0, recall: 0, f1: 0) }
        func mean(_ value: (ClassMetrics) -> Double) -> Double { classes.reduce(0) { $0 + weight($1) * value($1) } / total }
        return Average(precision: mean(\.precision), recall: mean(\.recall), f1: mean(\.f1))
    }

    /// Metrics of predicted class indices against true ones; indices outside `classLabels` throw,
    /// naming the example. `files` (one per example) name pictures among the misclassified ones.
    public init(classLabels: [String], trueLabels: [Int], predictedLabels: [Int], files: [URL]? = nil, meanCrossEntropy: Double? = nil) throws {
        guard trueLabels.count == predictedLabels.count else {
            throw CreateMLError("metrics", "\(trueLabels.count) true labels but \(predictedLabels.count) predictions")
        }
        let n = classLabels.count
        var matrix = [[Int]](repeating: [Int](repeating: 0, count: n), count: n)
        var wrong: [Misclassification] = []
        for (index, (truth, predicted)) in zip(trueLabels, predictedLabels).enumerated() {
            for (label, kind) in [(truth, "true"), (predicted, "predicted")] where !(0..<n).contains(label) {
                throw CreateMLError("example \(index)", "\(kind) label \(label) is not one of the \(n) classes (0…\(n - 1))")
            }
            matrix[truth][predicted] += 1
            if truth != predicted {
                wrong.append(Misclassification(index: index, file: files?[index], trueLabel: classLabels[truth], predictedLabel: classLabels[predicted]))
            }
        }
        self.classLabels = classLabels
        self.confusionMatrix = matrix
        self.misclassifiedExamples = wrong
        self.exampleCount = trueLabels.count
        self.meanCrossEntropy = meanCrossEntropy
    }

    /// Metrics of predicted labels against true ones, both among `classLabels` (a label outside
    /// them throws, naming the example).
    public init(classLabels: [String], trueLabels: [String], predictedLabels: [String], files: [URL]? = nil) throws {
        let index = Dictionary(classLabels.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func indices(_ labels: [String], _ kind: String) throws -> [Int] {
            try labels.enumerated().map { example, label in
                guard let i = index[label] else { throw CreateMLError("example \(example)", "\(kind) label '\(label)' is not one of the classes") }
                return i
            }
        }
        try self.init(classLabels: classLabels, trueLabels: indices(trueLabels, "true"), predictedLabels: indices(predictedLabels, "predicted"), files: files)
    }

    /// No examples (training without validation data).
    init(classLabels: [String]) {
        // Empty label lists cannot fail.
        try! self.init(classLabels: classLabels, trueLabels: [Int](), predictedLabels: [Int]())
    }

    /// No examples, and `error` saying why.
    init(classLabels: [String], error: Error) {
        self.init(classLabels: classLabels)
        failure = error as? CreateMLError ?? CreateMLError("evaluation", "\(error)")
    }
}

extension MLClassifierMetrics: Encodable {
    private enum CodingKeys: String, CodingKey {
        case sampleCount, correctCount, accuracy, meanCrossEntropy, classes, macroAverage, weightedAverage, classNames, confusionMatrix
    }

    /// The numbers as one JSON object (what `opencoreml evaluate --json` prints under `report`).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(exampleCount, forKey: .sampleCount)
        try container.encode(correctCount, forKey: .correctCount)
        try container.encode(accuracy, forKey: .accuracy)
        try container.encodeIfPresent(meanCrossEntropy, forKey: .meanCrossEntropy)
        try container.encode(classes, forKey: .classes)
        try container.encode(macroAverage, forKey: .macroAverage)
        try container.encode(weightedAverage, forKey: .weightedAverage)
        try container.encode(classLabels, forKey: .classNames)
        try container.encode(confusionMatrix, forKey: .confusionMatrix)
    }
}
