import Foundation
import _OpenCoreMLImageIO

/// How a trainer sets validation data aside from its training data (Create ML's `MLSplitStrategy`).
public enum MLSplitStrategy: Sendable, Equatable {
    /// 10 % of each class when there are at least 50 pictures, none otherwise.
    case automatic
    /// `ratio` (0 < ratio < 1) of each class, chosen by a generator seeded with `seed`.
    case fixed(ratio: Double, seed: Int)
}

extension MLImageClassifier {
    /// The image classifier's training options (Create ML's `MLImageClassifier.ModelParameters`),
    /// with both of Create ML's initializers:
    ///
    /// ```swift
    /// // Create ML 1–2 (macOS 10.14–11)
    /// let old = MLImageClassifier.ModelParameters(featureExtractor: .scenePrint(revision: 1), validation: .none,
    ///                                             maxIterations: 20, augmentationOptions: [.flip])
    /// // Create ML 3 and later
    /// let new = MLImageClassifier.ModelParameters(validation: .split(strategy: .automatic), maxIterations: 20, augmentation: [.flip],
    ///                                             algorithm: .transferLearning(featureExtractor: .scenePrint(revision: 1),
    ///                                                                          classifier: .logisticRegressor))
    /// ```
    ///
    /// OpenCoreML additions, set as properties after either initializer: the logistic
    /// regression's ``penalty``, ``convergenceThreshold`` and ``standardizesFeatures``, how many
    /// augmented copies are made (``augmentedCopies``, ``augmentationSeed``), where features are
    /// cached (``cacheDirectory``), and a k-nearest-neighbours classifier
    /// (``ClassifierType/kNearestNeighbors(k:)``).
    public struct ModelParameters: Sendable {
        /// Which pictures measure the model during training; with any, the iteration with the best
        /// validation accuracy is kept (Create ML keeps the last).
        public enum ValidationData: Sendable {
            /// Pictures set aside from the training data by `strategy`.
            case split(strategy: MLSplitStrategy)
            /// Other pictures, whose labels must all be training classes.
            case dataSource(DataSource)
            /// No validation: the last iteration is kept.
            case none
        }

        /// The penalty on a logistic regression's weights, added to the mean cross-entropy (an
        /// OpenCoreML addition: Create ML does not expose its regularization).
        public enum Penalty: Sendable, Equatable, Hashable {
            /// No penalty.
            case none
            /// (λ/2)·‖W‖²
            case l2(Double)
            /// λ·‖W‖₁
            case l1(Double)
        }

        /// The classifier trained on the extracted features (Create ML's
        /// `MLImageClassifier.ModelParameters.ClassifierType`).
        public enum ClassifierType: Sendable, Equatable, Hashable, CustomStringConvertible {
            /// Multinomial logistic regression by L-BFGS (OWL-QN under an L1 ``ModelParameters/penalty``);
            /// training stops when no gradient component exceeds
            /// ``ModelParameters/convergenceThreshold`` or after ``ModelParameters/maxIterations``.
            case logisticRegressor
            /// k nearest neighbours (squared Euclidean distance) among all training features (an
            /// OpenCoreML addition; the exported k-NN pipeline can learn new classes through
            /// `MLUpdateTask`).
            case kNearestNeighbors(k: Int)

            public var description: String {
                switch self {
                case .logisticRegressor: return "logisticRegressor"
                case .kNearestNeighbors(let k): return "kNearestNeighbors(k: \(k))"
                }
            }
        }

        /// How the classifier is trained (Create ML's `MLImageClassifier.ModelParameters.ModelAlgorithmType`).
        public enum ModelAlgorithmType: Sendable, Equatable, Hashable, CustomStringConvertible {
            /// A classifier trained on the features that `featureExtractor` gives for each picture.
            case transferLearning(featureExtractor: FeatureExtractorType, classifier: ClassifierType)

            public var description: String {
                switch self {
                case .transferLearning(let extractor, let classifier): return "transferLearning(\(extractor), \(classifier))"
                }
            }
        }

        /// Create ML's defaults: the built-in feature extractor and a logistic regression.
        public static let defaultAlgorithm = ModelAlgorithmType.transferLearning(featureExtractor: .scenePrint(revision: 1), classifier: .logisticRegressor)
        /// The L2 penalty used unless ``penalty`` is set. 5-fold cross-validation on the seeds'
        /// hand-gesture training photos (BENCHMARKS.md, "Image classifier accuracy") could not tell any λ from
        /// 10⁻⁴ to 0.1 apart, so it stays at the small penalty that only keeps the fit finite.
        public static let defaultPenalty = Penalty.l2(1e-3)

        /// Which pictures measure the model during training (by default 10 % of each class, when
        /// there are at least 50 pictures).
        public var validation: ValidationData
        /// The most logistic-regression iterations (25 by default, as in Create ML).
        public var maxIterations: Int
        /// Random changes applied to extra copies of each training picture (none by default). A
        /// flip mirrors every other copy (the first always), so one copy with `.flip` alone is the
        /// mirror image.
        public var augmentation: ImageAugmentationOptions
        /// The feature extractor and the classifier.
        public var algorithm: ModelAlgorithmType

        /// How many augmented copies of each training picture are added when `augmentation` is set
        /// (an OpenCoreML addition; 1 by default).
        public var augmentedCopies: Int = 1
        /// Seeds the augmentations: each picture's copies depend only on it, the file and the copy
        /// (an OpenCoreML addition).
        public var augmentationSeed: Int = 0
        /// The penalty of the logistic regression (an OpenCoreML addition; ``defaultPenalty``
        /// unless set).
        public var penalty: Penalty = ModelParameters.defaultPenalty
        /// The logistic regression stops once no gradient component exceeds this (an OpenCoreML
        /// addition).
        public var convergenceThreshold: Double = 1e-4
        /// Whether the logistic regression scales each feature to zero mean and unit variance while
        /// fitting; the penalty then applies to the scaled weights, and the exported weights are in
        /// the extractor's units either way (an OpenCoreML addition).
        public var standardizesFeatures = false
        /// Where extracted features are kept between runs; nil: `opencoreml-features` in the
        /// system's temporary folder (an OpenCoreML addition).
        public var cacheDirectory: URL?

        /// Training options as Create ML 1 and 2 spell them.
        ///
        /// - Parameters:
        ///   - featureExtractor: The model that turns pictures into features; `.scenePrint` is the
        ///     built-in one.
        ///   - validation: Which pictures measure the model during training.
        ///   - maxIterations: The most logistic-regression iterations.
        ///   - augmentationOptions: Random changes applied to extra copies of each training picture.
        public init(featureExtractor: FeatureExtractorType = .scenePrint(revision: 1), validation: ValidationData = .split(strategy: .automatic),
                    maxIterations: Int = 25, augmentationOptions: ImageAugmentationOptions = []) {
            self.init(validation: validation, maxIterations: maxIterations, augmentation: augmentationOptions,
                      algorithm: .transferLearning(featureExtractor: featureExtractor, classifier: .logisticRegressor))
        }

        /// Training options as Create ML 1 spells them, with validation pictures from a data source.
        public init(featureExtractor: FeatureExtractorType = .scenePrint(revision: 1), validationData: DataSource,
                    maxIterations: Int = 25, augmentationOptions: ImageAugmentationOptions = []) {
            self.init(featureExtractor: featureExtractor, validation: .dataSource(validationData), maxIterations: maxIterations,
                      augmentationOptions: augmentationOptions)
        }

        /// Training options as Create ML 1 first spelled them, with validation pictures by label;
        /// `nil` splits validation pictures off the training data (`.split(strategy: .automatic)`).
        public init(featureExtractor: FeatureExtractorType = .scenePrint(revision: 1), validationData: [String: [URL]]?,
                    maxIterations: Int = 25, augmentationOptions: ImageAugmentationOptions = []) {
            self.init(featureExtractor: featureExtractor, validation: validationData.map { .dataSource(.filesByLabel($0)) } ?? .split(strategy: .automatic),
                      maxIterations: maxIterations, augmentationOptions: augmentationOptions)
        }

        /// Training options as Create ML 3 and later spell them.
        ///
        /// - Parameters:
        ///   - validation: Which pictures measure the model during training.
        ///   - maxIterations: The most logistic-regression iterations.
        ///   - augmentation: Random changes applied to extra copies of each training picture.
        ///   - algorithm: The feature extractor and the classifier.
        public init(validation: ValidationData = .split(strategy: .automatic), maxIterations: Int = 25, augmentation: ImageAugmentationOptions,
                    algorithm: ModelAlgorithmType = ModelParameters.defaultAlgorithm) {
            self.validation = validation
            self.maxIterations = maxIterations
            self.augmentation = augmentation
            self.algorithm = algorithm
        }

        /// The feature extractor of ``algorithm`` (Create ML 1–2's spelling).
        public var featureExtractor: FeatureExtractorType {
            get { switch algorithm { case .transferLearning(let extractor, _): return extractor } }
            set { algorithm = .transferLearning(featureExtractor: newValue, classifier: classifier) }
        }

        /// The classifier of ``algorithm``.
        public var classifier: ClassifierType {
            get { switch algorithm { case .transferLearning(_, let classifier): return classifier } }
            set { algorithm = .transferLearning(featureExtractor: featureExtractor, classifier: newValue) }
        }

        /// ``augmentation`` under Create ML 1–2's name.
        public var augmentationOptions: ImageAugmentationOptions {
            get { augmentation }
            set { augmentation = newValue }
        }

        var resolvedCacheDirectory: URL {
            cacheDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("opencoreml-features", isDirectory: true)
        }
    }
}
