import Foundation

extension MLActivityClassifier {
    /// The activity classifier's training options (Create ML's `MLActivityClassifier.ModelParameters`),
    /// with both of Create ML's initializers:
    ///
    /// ```swift
    /// // macOS 10.15–13
    /// let old = MLActivityClassifier.ModelParameters(validationData: validationTable, batchSize: 32,
    ///                                                maximumIterations: 10, predictionWindowSize: 50)
    /// // macOS 14 and later
    /// let new = MLActivityClassifier.ModelParameters(validation: .split(strategy: .automatic), batchSize: 32,
    ///                                                maximumIterations: 10, predictionWindowSize: 50)
    /// ```
    ///
    /// ``seed`` (the automatic validation split, the initial weights and the dropout masks) is an
    /// OpenCoreML addition, set as a property (Turi Create's `random_seed`, which defaults to a random
    /// value; this one to 0).
    public struct ModelParameters: Sendable {
        /// Which sessions measure the model during training (Create ML's
        /// `MLActivityClassifier.ModelParameters.Validation`).
        public enum Validation: Sendable {
            /// Sessions set aside from the training data: `.automatic` is Turi Create 6's rule (none
            /// below 50 sessions, 10 % from 50, 5 % from 200, 10,000 sessions from 200,000), drawn
            /// from ``seed``; `.fixed(ratio:seed:)` sets aside that fraction of the sessions (at least
            /// one), drawn from its own seed. A session is never split.
            case split(strategy: MLSplitStrategy)
            /// Other sessions, in a table with the training data's columns.
            case table(MLDataTable)
            /// No validation.
            case none
        }

        /// Which sessions measure the model during training.
        public var validation: Validation
        /// Chunks of 20 prediction windows per training step (32 by default). Every step computes
        /// `batchSize` chunks: a last batch with fewer is filled up with empty ones, as Turi Create's
        /// iterator does (so with 3 chunks and a batch size of 256 each step computes 256).
        public var batchSize: Int
        /// Passes over the training data (10 by default).
        public var maximumIterations: Int
        /// Samples per prediction: the model labels every `predictionWindowSize` consecutive rows of a
        /// session once (100 by default, as in Create ML).
        public var predictionWindowSize: Int
        /// Seeds the automatic validation split, the initial weights and the dropout masks (an
        /// OpenCoreML addition; Turi Create's `random_seed`, which defaults to a random value, this
        /// one to 0; the chunks go in the data's order every pass, as in Turi Create).
        public var seed: Int = 0

        /// The batchnorm statistics the trained model predicts with (an OpenCoreML addition).
        /// Measured on seglearn's smartwatch data with the book's settings (BENCHMARKS.md, "Activity
        /// classifier: batchnorm statistics"): at 10 iterations Turi's moving averages leave 0–3 % of
        /// the test windows above 0.9 confidence, bias-corrected ones 36 % (35.6–37.2), recomputed ones 31 %,
        /// at the same accuracy; hence the default.
        public enum BatchNormStatistics: String, Sendable, CaseIterable {
            /// Turi Create's moving averages with their start divided out (the default): after t
            /// steps of momentum m = 0.99 from mean 0 and variance 1, mean / (1 − mᵗ) and
            /// (variance − mᵗ) / (1 − mᵗ), as Adam corrects its moments.
            case biasCorrected = "bias-corrected"
            /// Recomputed after training: the average of the batch statistics of one more pass over
            /// the training data in training mode (dropout on), with the final weights.
            case recomputed
            /// Exactly Turi Create's recipe: the moving averages as they stand after the last step.
            /// After a short training they are still close to their start (0 and 1), and the model's
            /// confidence suffers (the book's GestureIt game scores only above 0.9).
            case movingAverage = "moving-average"
        }

        /// How the batchnorm statistics of the trained model are made (default ``BatchNormStatistics/biasCorrected``).
        public var batchNormStatistics: BatchNormStatistics = .biasCorrected

        /// Create ML's older spelling: the validation data as a table, or nil for none.
        public var validationData: MLDataTable? {
            get { if case .table(let table) = validation { return table } else { return nil } }
            set { validation = newValue.map(Validation.table) ?? .none }
        }

        /// Parameters with validation sessions given as a table (nil: Turi Create's automatic split).
        public init(validationData: MLDataTable?, batchSize: Int? = 32, maximumIterations: Int? = 10, predictionWindowSize: Int? = 100) {
            self.init(validation: validationData.map(Validation.table) ?? .split(strategy: .automatic), batchSize: batchSize,
                      maximumIterations: maximumIterations, predictionWindowSize: predictionWindowSize)
        }

        /// Parameters with validation sessions from `validation`.
        public init(validation: Validation = .split(strategy: .automatic), batchSize: Int? = 32, maximumIterations: Int? = 10,
                    predictionWindowSize: Int? = 100) {
            self.validation = validation
            self.batchSize = batchSize ?? 32
            self.maximumIterations = maximumIterations ?? 10
            self.predictionWindowSize = predictionWindowSize ?? 100
        }

        /// Throws for a parameter out of range, naming it.
        func check() throws {
            guard batchSize >= 1 else { throw CreateMLError("batchSize", "must be at least 1, got \(batchSize)") }
            guard maximumIterations >= 1 else { throw CreateMLError("maximumIterations", "must be at least 1, got \(maximumIterations)") }
            guard predictionWindowSize >= 1 else {
                throw CreateMLError("predictionWindowSize", "must be at least 1, got \(predictionWindowSize)")
            }
            if case .split(.fixed(let ratio, _)) = validation, !(ratio > 0 && ratio < 1) {
                throw CreateMLError("validation split", "the ratio must lie strictly between 0 and 1, got \(ratio)")
            }
        }
    }
}
