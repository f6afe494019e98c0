import Foundation
import OpenCoreML

extension MLActivityClassifier {
    /// What a written activity classifier predicts for every prediction window of every session of
    /// `data` (an OpenCoreML addition): the sessions run through an ``ActivityPredictionStream``
    /// without overlap, the state carried from window to window and reset every 20 windows, and each
    /// session's last, partly filled window zero-padded, so that the result is what the trainer
    /// predicted. The feature columns are the model's metadata `features` (Turi Create writes them).
    ///
    /// - Parameter recordingFileColumn: The session column; nil (or absent from `data`) for one session.
    /// - Throws: A ``CreateMLError`` for a model without the interface or metadata, a missing column or a bad value.
    public static func windowPredictions(model: MLModel, from data: MLDataTable, recordingFileColumn: String?) throws -> [WindowPrediction] {
        try predictions(model: model, data: data, labelColumn: nil, recordingFileColumn: recordingFileColumn).windows
    }

    /// A written activity classifier's metrics on labelled sessions, per row (each row gets its
    /// window's label, as Turi Create counts) and per window (an OpenCoreML addition); predictions as
    /// ``windowPredictions(model:from:recordingFileColumn:)`` makes them.
    public static func evaluation(model: MLModel, on data: MLDataTable, labelColumn: String, recordingFileColumn: String?) throws
        -> (perRow: MLClassifierMetrics, perWindow: MLClassifierMetrics) {
        let (classes, sessions, windows) = try predictions(model: model, data: data, labelColumn: labelColumn, recordingFileColumn: recordingFileColumn)
        let index = Dictionary(uniqueKeysWithValues: classes.enumerated().map { ($1, $0) })
        var rowTruth: [Int] = [], rowPredicted: [Int] = [], windowTruth: [Int] = [], windowPredicted: [Int] = []
        var next = windows.makeIterator()
        for session in sessions {
            let labels = session.labels!
            var sample = 0
            while sample < labels.count, let window = next.next() {
                let predicted = index[window.label] ?? 0
                let end = min(sample + window.rowCount, labels.count)
                for label in labels[sample..<end] {
                    rowTruth.append(label)
                    rowPredicted.append(predicted)
                }
                windowTruth.append(ActivityChunk.majority(labels[sample..<end], classCount: classes.count))
                windowPredicted.append(predicted)
                sample = end
            }
        }
        return (try MLClassifierMetrics(classLabels: classes, trueLabels: rowTruth, predictedLabels: rowPredicted),
                try MLClassifierMetrics(classLabels: classes, trueLabels: windowTruth, predictedLabels: windowPredicted))
    }

    private static func predictions(model: MLModel, data: MLDataTable, labelColumn: String?, recordingFileColumn: String?) throws
        -> (classes: [String], sessions: [ActivitySession], windows: [WindowPrediction]) {
        let stream = try ActivityPredictionStream(model: model)
        guard let features = stream.featureNames, features.count == stream.featureCount else {
            throw CreateMLError("model", "its metadata does not name its \(stream.featureCount) feature columns ('features', as Turi Create and OpenCreateML write it)")
        }
        let classes = (model.modelDescription.classLabels ?? []).map { "\($0)" }
        let session = recordingFileColumn.flatMap { data.columnNames.contains($0) ? $0 : nil }
        let sessions = try ActivitySessions.read(data, what: "data", featureColumns: features, labelColumn: labelColumn, sessionColumn: session,
                                                 classes: classes.isEmpty ? nil : classes, predictionWindow: stream.predictionWindow).sessions
        let window = stream.predictionWindow
        var result: [WindowPrediction] = []
        for session in sessions {
            stream.reset()
            var predictions: [ActivityPredictionStream.Prediction] = []
            for sample in session.samples { predictions += try stream.append(sample.map(Double.init)) }
            predictions += try stream.finish()
            for (index, prediction) in predictions.enumerated() {
                let first = index * window
                result.append(WindowPrediction(session: session.id, window: index, firstRow: session.rows[first],
                                               rowCount: min(window, session.rows.count - first), label: prediction.label,
                                               probabilities: prediction.probabilities))
            }
        }
        return (classes, sessions, result)
    }
}
