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
    /// The image classifier's training options (Create ML's `MLImageClassifier.ModelParameters`).
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

        /// The penalty on a logistic regression's weights, added to the mean cross-entropy.
        public enum Penalty: Sendable, Equatable {
            /// No penalty.
            case none
            /// (λ/2)·‖W‖²
            case l2(Double)
            /// λ·‖W‖₁
            case l1(Double)
        }

        /// The classifier trained on the extracted features.
        public enum ModelAlgorithmType: Sendable, Equatable {
            /// Multinomial logistic regression by L-BFGS (OWL-QN under L1); training stops when no
            /// gradient component exceeds `convergenceThreshold` or after `maxIterations`.
            case logisticRegression(penalty: Penalty = .l2(1e-3), convergenceThreshold: Double = 1e-4)
            /// k nearest neighbours (squared Euclidean distance) among all training features.
            case kNearestNeighbors(k: Int = 1)
        }

        /// A Core ML feature extractor: a neural network with one image input and one multi-array
        /// output (a classifier with such an output, as the converted EfficientNet-Lite0, is cut
        /// to it).
        public var featureExtractor: URL
        /// Which pictures measure the model during training (by default 10 % of each class, when there are
        /// at least 50 pictures).
        public var validation: ValidationData
        /// The most logistic-regression iterations (25 by default).
        public var maxIterations: Int
        /// Random changes applied to extra copies of each training picture (none by default).
        public var augmentation: ImageAugmentationOptions
        /// How many augmented copies of each training picture are added when `augmentation` is set.
        public var augmentedCopies: Int
        /// Seeds the augmentations (each picture's copies depend only on it, the file and the copy).
        public var augmentationSeed: Int
        /// The classifier trained on the features (by default a logistic regression with a small L2
        /// penalty).
        public var algorithm: ModelAlgorithmType
        /// Whether the logistic regression scales each feature to zero mean and unit variance while
        /// fitting (the penalty then applies to the scaled weights; the exported weights are in the
        /// extractor's units either way).
        public var standardizesFeatures: Bool
        /// Where extracted features are kept between runs; nil: `opencoreml-features` in the
        /// system's temporary folder.
        public var cacheDirectory: URL?

        /// Training options; every one but the feature extractor has a default.
        public init(featureExtractor: URL, validation: ValidationData = .split(strategy: .automatic), maxIterations: Int = 25,
                    augmentation: ImageAugmentationOptions = [], augmentedCopies: Int = 1, augmentationSeed: Int = 0,
                    algorithm: ModelAlgorithmType = .logisticRegression(), standardizesFeatures: Bool = false, cacheDirectory: URL? = nil) {
            self.featureExtractor = featureExtractor
            self.validation = validation
            self.maxIterations = maxIterations
            self.augmentation = augmentation
            self.augmentedCopies = augmentedCopies
            self.augmentationSeed = augmentationSeed
            self.algorithm = algorithm
            self.standardizesFeatures = standardizesFeatures
            self.cacheDirectory = cacheDirectory
        }

        var resolvedCacheDirectory: URL {
            cacheDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("opencoreml-features", isDirectory: true)
        }
    }
}
