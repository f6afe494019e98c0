import CoreMLSpec
import Foundation

extension MLImageClassifier {
    /// The result of k-fold cross-validation (an OpenCoreML addition): each fold's metrics on the
    /// pictures held out of its training.
    public struct CrossValidation: Sendable {
        /// The metrics of each fold's classifier on that fold's held-out pictures.
        public let folds: [MLClassifierMetrics]

        /// Every held-out picture counted once: correct labels over pictures.
        public var accuracy: Double {
            let total = folds.reduce(0) { $0 + $1.exampleCount }
            return total == 0 ? 0 : Double(folds.reduce(0) { $0 + $1.correctCount }) / Double(total)
        }

        /// The number of pictures labelled correctly when held out.
        public var correctCount: Int { folds.reduce(0) { $0 + $1.correctCount } }

        /// The number of pictures (each held out once).
        public var exampleCount: Int { folds.reduce(0) { $0 + $1.exampleCount } }

        /// The standard deviation of the folds' accuracies.
        public var accuracyStandardDeviation: Double {
            let values = folds.map(\.accuracy)
            guard values.count > 1 else { return 0 }
            let mean = values.reduce(0, +) / Double(values.count)
            return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count - 1)).squareRoot()
        }
    }

    /// Stratified k-fold cross-validation (an OpenCoreML addition): the pictures of each class are
    /// shuffled (seeded) and dealt to `folds` folds in turn; each fold is held out once while a
    /// classifier with `parameters` trains on the rest. Features are cached, so each picture is
    /// extracted once.
    ///
    /// - Parameters:
    ///   - data: The labelled pictures; every class needs at least `folds` of them.
    ///   - folds: At least 2.
    ///   - seed: Seeds the shuffle.
    ///   - parameters: The training options of every fold.
    ///   - progress: Called as in training.
    /// - Throws: A ``CreateMLError`` for unreadable data, too few pictures or a failed fold.
    public static func crossValidation(on data: DataSource, folds: Int = 5, seed: Int = 0, parameters: ModelParameters = ModelParameters(),
                                       progress: (@Sendable (Progress) -> Void)? = nil) throws -> CrossValidation {
        guard folds >= 2 else { throw CreateMLError("folds", "must be at least 2, got \(folds)") }
        let images = try data.labeledImages()
        var assignment: [[LabeledImage]] = Array(repeating: [], count: folds)
        var generator = SplitMix64(seed: UInt64(bitPattern: Int64(seed)))
        var next = 0
        for label in Array(Set(images.map(\.label))).sorted() {
            var members = images.filter { $0.label == label }
            guard members.count >= folds else {
                throw CreateMLError(data.description, "class '\(label)' has \(members.count) pictures, fewer than the \(folds) folds")
            }
            members.shuffle(using: &generator)
            for member in members {
                assignment[next % folds].append(member)
                next += 1
            }
        }
        var results: [MLClassifierMetrics] = []
        for fold in 0..<folds {
            let training = assignment.enumerated().filter { $0.offset != fold }.flatMap(\.element)
            let classifier = try MLImageClassifier(trainingImages: { training }, source: "\(data.description) (fold \(fold + 1))",
                                                   parameters: parameters, progress: progress)
            results.append(try classifier.evaluation(of: assignment[fold]))
        }
        return CrossValidation(folds: results)
    }
}
