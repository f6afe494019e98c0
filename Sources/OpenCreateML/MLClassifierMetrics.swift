import Foundation

/// How well a classifier labels a set of pictures (Create ML's `MLClassifierMetrics`): accuracy,
/// per-class precision and recall, the confusion matrix and the pictures it got wrong.
public struct MLClassifierMetrics: Sendable {
    /// One picture the classifier labelled wrongly.
    public struct Misclassification: Sendable, Equatable {
        public var file: URL
        public var trueLabel: String
        public var predictedLabel: String
    }

    /// The classes, in the order of the confusion matrix.
    public let classLabels: [String]
    /// `confusion[t][p]`: how many pictures of class t were labelled p.
    public let confusion: [[Int]]
    public let misclassifiedExamples: [Misclassification]
    public let exampleCount: Int

    /// The fraction labelled correctly (0 with no examples).
    public var accuracy: Double {
        exampleCount == 0 ? 0 : Double((0..<classLabels.count).reduce(0) { $0 + confusion[$1][$1] }) / Double(exampleCount)
    }

    /// 1 − accuracy (Create ML's `classificationError`).
    public var classificationError: Double { 1 - accuracy }

    /// Of the pictures labelled `label`, the fraction truly of it (0 when none was).
    public func precision(of label: String) -> Double {
        guard let c = classLabels.firstIndex(of: label) else { return 0 }
        let predicted = confusion.reduce(0) { $0 + $1[c] }
        return predicted == 0 ? 0 : Double(confusion[c][c]) / Double(predicted)
    }

    /// Of the pictures truly of `label`, the fraction labelled so (0 when there were none).
    public func recall(of label: String) -> Double {
        guard let c = classLabels.firstIndex(of: label) else { return 0 }
        let actual = confusion[c].reduce(0, +)
        return actual == 0 ? 0 : Double(confusion[c][c]) / Double(actual)
    }

    /// Metrics of `predicted` against `truth` (labels among `classLabels`), for the pictures `files`.
    init(classLabels: [String], truth: [String], predicted: [String], files: [URL]) {
        self.classLabels = classLabels
        var confusion = [[Int]](repeating: [Int](repeating: 0, count: classLabels.count), count: classLabels.count)
        var wrong: [Misclassification] = []
        let index = Dictionary(uniqueKeysWithValues: classLabels.enumerated().map { ($1, $0) })
        for i in truth.indices {
            if let t = index[truth[i]], let p = index[predicted[i]] { confusion[t][p] += 1 }
            if truth[i] != predicted[i] { wrong.append(Misclassification(file: files[i], trueLabel: truth[i], predictedLabel: predicted[i])) }
        }
        self.confusion = confusion
        self.misclassifiedExamples = wrong
        self.exampleCount = truth.count
    }

    /// No examples (training without validation data).
    init(classLabels: [String]) {
        self.init(classLabels: classLabels, truth: [], predicted: [], files: [])
    }
}
