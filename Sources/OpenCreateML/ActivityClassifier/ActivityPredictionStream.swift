import Foundation
import OpenCoreML

/// Runs an exported activity classifier (Turi Create's / ``MLActivityClassifier``'s interface: a
/// `features` window `[1, window, F]`, optional `hiddenIn` / `cellIn`, outputs `hiddenOut` /
/// `cellOut`) on samples as they arrive, as the book's GestureIt app does (an OpenCoreML addition):
///
/// ```swift
/// let stream = try ActivityPredictionStream(model: GestureClassifier().model, windowOffset: 5, threshold: 0.9)
/// // for every motion sample (rotation x y z, acceleration x y z):
/// for prediction in try stream.append([r.x, r.y, r.z, a.x, a.y, a.z]) where prediction.isConfident {
///     print(prediction.label, prediction.probability)
/// }
/// ```
///
/// Every `windowOffset` samples, once a full window has arrived, the last `window` samples are
/// predicted. Windows that start `window` samples apart form one series: each series passes its
/// previous prediction's `hiddenOut` / `cellOut` as `hiddenIn` / `cellIn` (nil, zeros, for its first
/// window), so with `windowOffset` = window / 4 there are four interleaved series, as in GestureIt.
/// A series starts again from no state every `stateResetInterval` windows: 20 by default, the
/// sequence length the model was trained on, which makes the predictions on a recording exactly
/// those of ``MLActivityClassifier/windowPredictions(from:)``; nil never resets.
public final class ActivityPredictionStream {
    /// One window's prediction.
    public struct Prediction: Sendable, Equatable {
        /// The number of samples appended when the window was complete (its last sample's position + 1).
        public var endSample: Int
        /// Which interleaved series the window belongs to (0 when windows do not overlap).
        public var series: Int
        /// The most probable activity.
        public var label: String
        /// Its probability.
        public var probability: Double
        /// Every activity's probability.
        public var probabilities: [String: Double]
        /// Whether `probability` passed the stream's threshold.
        public var isConfident: Bool
    }

    /// The model.
    public let model: MLModel
    /// Samples per window (the `features` input's second dimension).
    public let predictionWindow: Int
    /// Values per sample (its third dimension).
    public let featureCount: Int
    /// The feature names from the model's metadata (`features`), when it has them.
    public let featureNames: [String]?
    /// Samples between the starts of consecutive predicted windows.
    public let windowOffset: Int
    /// The probability a prediction must pass to count as confident.
    public let threshold: Double
    /// Windows per series before its state starts from nothing again; nil never.
    public let stateResetInterval: Int?

    private let labelName: String, probabilitiesName: String
    private let hasState: Bool
    private var buffer: [Double]
    private var received = 0
    private var states: [(hidden: MLMultiArray, cell: MLMultiArray)?]
    private var windowsInSeries: [Int]

    /// A stream over `model`.
    ///
    /// - Parameters:
    ///   - windowOffset: Samples between predictions; nil for the prediction window (no overlap).
    ///     Must divide the prediction window.
    ///   - threshold: The probability a prediction must pass to be confident (GestureIt uses 0.9).
    ///   - stateResetInterval: Windows per series before the state starts again (20, as trained; nil: never).
    /// - Throws: A ``CreateMLError`` when the model does not have an activity classifier's interface or
    ///   the offset does not divide the window.
    public init(model: MLModel, windowOffset: Int? = nil, threshold: Double = 0.5, stateResetInterval: Int? = 20) throws {
        let description = model.modelDescription
        guard let features = description.inputDescriptionsByName["features"], let constraint = features.multiArrayConstraint,
              constraint.shape.count == 3, constraint.shape[0].intValue == 1 else {
            throw CreateMLError("model", "not an activity classifier: it needs a 'features' input of shape [1, window, features]")
        }
        guard let label = description.predictedFeatureName, let probabilities = description.predictedProbabilitiesName else {
            throw CreateMLError("model", "not an activity classifier: it has no predicted label and probabilities")
        }
        self.model = model
        predictionWindow = constraint.shape[1].intValue
        featureCount = constraint.shape[2].intValue
        let userDefined = description.metadata[.creatorDefinedKey] as? [String: String] ?? [:]
        featureNames = userDefined["features"].map { $0.split(separator: ",").map(String.init) }
        let offset = windowOffset ?? predictionWindow
        guard offset >= 1, offset <= predictionWindow, predictionWindow % offset == 0 else {
            throw CreateMLError("windowOffset", "must divide the prediction window (\(predictionWindow)), got \(offset)")
        }
        if let stateResetInterval, stateResetInterval < 1 {
            throw CreateMLError("stateResetInterval", "must be at least 1 (or nil), got \(stateResetInterval)")
        }
        self.windowOffset = offset
        self.threshold = threshold
        self.stateResetInterval = stateResetInterval
        labelName = label
        probabilitiesName = probabilities
        hasState = ["hiddenIn", "cellIn"].allSatisfy { description.inputDescriptionsByName[$0] != nil }
            && ["hiddenOut", "cellOut"].allSatisfy { description.outputDescriptionsByName[$0] != nil }
        buffer = [Double](repeating: 0, count: predictionWindow * featureCount)
        states = Array(repeating: nil, count: predictionWindow / offset)
        windowsInSeries = Array(repeating: 0, count: predictionWindow / offset)
    }

    /// The number of samples appended since the start or the last ``reset()``.
    public var sampleCount: Int { received }

    /// Appends one sample (`featureCount` values, in the model's feature order) and returns the
    /// prediction of the window it completes, if any.
    public func append(_ sample: [Double]) throws -> [Prediction] {
        guard sample.count == featureCount else {
            throw CreateMLError("sample \(received + 1)", "has \(sample.count) values; the model takes \(featureCount)")
        }
        if let bad = sample.firstIndex(where: { !$0.isFinite }) {
            throw CreateMLError("sample \(received + 1)", "value \(bad + 1) is \(sample[bad]), not a finite number")
        }
        // The buffer holds the last `predictionWindow` samples, oldest first.
        buffer.removeFirst(featureCount)
        buffer.append(contentsOf: sample)
        received += 1
        guard received >= predictionWindow, (received - predictionWindow) % windowOffset == 0 else { return [] }
        return [try predict(series: ((received - predictionWindow) / windowOffset) % states.count, window: buffer)]
    }

    /// When the last samples are in no predicted window, predicts the next window, which they begin
    /// but do not fill, zero-padded at its end (as the trainer predicts a recording's last window);
    /// nothing otherwise. Call it when a recording ends, then ``reset()``.
    public func finish() throws -> [Prediction] {
        let started = received >= predictionWindow ? (received - predictionWindow) / windowOffset + 1 : 0
        let covered = started == 0 ? 0 : (started - 1) * windowOffset + predictionWindow
        guard received > covered else { return [] }
        let start = started * windowOffset
        let count = received - start
        var window = [Double](repeating: 0, count: predictionWindow * featureCount)
        window.replaceSubrange(0..<(count * featureCount), with: buffer[(buffer.count - count * featureCount)...])
        return [try predict(series: started % states.count, window: window)]
    }

    private func predict(series: Int, window: [Double]) throws -> Prediction {
        if let stateResetInterval, windowsInSeries[series] == stateResetInterval {
            states[series] = nil
            windowsInSeries[series] = 0
        }
        let features = try MLMultiArray(shape: [1, NSNumber(value: predictionWindow), NSNumber(value: featureCount)], dataType: .double)
        let pointer = features.dataPointer.assumingMemoryBound(to: Double.self)
        window.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: window.count) }
        var inputs: [String: MLFeatureValue] = ["features": MLFeatureValue(multiArray: features)]
        if hasState, let state = states[series] {
            inputs["hiddenIn"] = MLFeatureValue(multiArray: state.hidden)
            inputs["cellIn"] = MLFeatureValue(multiArray: state.cell)
        }
        let output = try model.prediction(from: MLDictionaryFeatureProvider(featureValues: inputs))
        if hasState, let hidden = output.featureValue(for: "hiddenOut")?.multiArrayValue, let cell = output.featureValue(for: "cellOut")?.multiArrayValue {
            states[series] = (hidden, cell)
        }
        windowsInSeries[series] += 1
        let probabilities = (output.featureValue(for: probabilitiesName)?.dictionaryValue ?? [:])
            .reduce(into: [String: Double]()) { $0["\($1.key)"] = $1.value.doubleValue }
        let label = output.featureValue(for: labelName).map { $0.stringValue.isEmpty ? String($0.int64Value) : $0.stringValue } ?? ""
        let probability = probabilities[label] ?? 0
        return Prediction(endSample: received, series: series, label: label, probability: probability, probabilities: probabilities,
                          isConfident: probability > threshold)
    }

    /// Forgets every sample and state, as when a new recording starts.
    public func reset() {
        buffer = [Double](repeating: 0, count: predictionWindow * featureCount)
        received = 0
        states = Array(repeating: nil, count: states.count)
        windowsInSeries = Array(repeating: 0, count: windowsInSeries.count)
    }
}
