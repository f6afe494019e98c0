/// How far a regressor's predictions are from the truth (Create ML's `MLRegressorMetrics`).
///
/// ```swift
/// let metrics = try MLRegressorMetrics(model: model, on: examples, targetFeature: "price")
/// print(metrics.rootMeanSquaredError, metrics.maximumError)
/// ```
public struct MLRegressorMetrics: Sendable, Encodable {
    /// How many examples were evaluated.
    public let exampleCount: Int
    /// √(mean of (prediction − truth)²); 0 with no examples.
    public let rootMeanSquaredError: Double
    /// The largest |prediction − truth|; 0 with no examples.
    public let maximumError: Double
    /// The mean of |prediction − truth| (an OpenCoreML addition).
    public let meanAbsoluteError: Double

    /// Why the metrics could not be computed, for metrics that did not throw (a tabular
    /// regressor's `evaluation(on:)` and `validationMetrics`, which, as Create ML's, report
    /// failures here); nil otherwise.
    public var error: Error? { failure }
    let failure: CreateMLError?

    /// Create ML's flag for metrics computed without error. `init(targets:predictions:)` throws
    /// instead of giving invalid metrics; the tabular regressors' metrics are invalid when their
    /// table could not be evaluated (``error`` says why).
    public var isValid: Bool { failure == nil }

    private enum CodingKeys: String, CodingKey {
        case exampleCount, rootMeanSquaredError, maximumError, meanAbsoluteError
    }

    /// Metrics of `predictions` against `targets` (the same count, finite numbers).
    public init(targets: [Double], predictions: [Double]) throws {
        guard targets.count == predictions.count else {
            throw CreateMLError("metrics", "\(targets.count) targets but \(predictions.count) predictions")
        }
        var squares = 0.0, absolute = 0.0, largest = 0.0
        for (index, (target, prediction)) in zip(targets, predictions).enumerated() {
            guard target.isFinite, prediction.isFinite else {
                throw CreateMLError("example \(index)", "target \(target) or prediction \(prediction) is not a finite number")
            }
            let error = abs(prediction - target)
            squares += error * error
            absolute += error
            largest = max(largest, error)
        }
        exampleCount = targets.count
        rootMeanSquaredError = targets.isEmpty ? 0 : (squares / Double(targets.count)).squareRoot()
        meanAbsoluteError = targets.isEmpty ? 0 : absolute / Double(targets.count)
        maximumError = largest
        failure = nil
    }

    /// Metrics of no examples (a tabular regressor's validation metrics without validation rows).
    static let empty = MLRegressorMetrics(count: 0, failure: nil)

    /// Invalid metrics that say why.
    init(error: Error) {
        self.init(count: 0, failure: error as? CreateMLError ?? CreateMLError("metrics", String(describing: error)))
    }

    private init(count: Int, failure: CreateMLError?) {
        exampleCount = count
        rootMeanSquaredError = 0
        maximumError = 0
        meanAbsoluteError = 0
        self.failure = failure
    }
}
