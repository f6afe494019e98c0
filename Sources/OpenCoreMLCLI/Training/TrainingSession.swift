import Foundation
import OpenCoreML

/// Trains a model with the library's blocking update, drawing a progress bar and writing an optional
/// JSON-lines log: what `train`, `demo` and the benchmarks share.
struct TrainingSession {
    let model: MLModel
    let examples: MLBatchProvider
    var logPath: String?
    var quiet = false

    /// Runs the update; returns the trained model and one entry per epoch.
    func run() throws -> MLUpdateResult {
        let log = try logPath.map { try TrainingLog(path: $0) }
        let epochs = (try? model.parameterValue(for: .epochs)) as? Int ?? 1
        let batchSize = (try? model.parameterValue(for: .miniBatchSize)) as? Int ?? 32
        let count = examples.count
        let bar = ProgressBar(epochs: epochs, stepsPerEpoch: (count + batchSize - 1) / batchSize)
        var lossSum = 0.0
        var epochStart = Date()
        let result: MLUpdateResult
        do {
            result = try model.updated(with: examples, events: [.trainingBegin, .miniBatchEnd, .epochEnd]) { progress in
                switch progress.event {
                case .trainingBegin:
                    if !quiet { bar.startEpoch(1) }
                case .miniBatchEnd:
                    lossSum += progress.loss
                    let samples = min((progress.miniBatch + 1) * batchSize, count)
                    if !quiet { bar.update(step: progress.miniBatch + 1, samples: samples, loss: lossSum / Double(progress.miniBatch + 1)) }
                case .epochEnd:
                    let loss = progress.hasLoss ? progress.loss : .nan
                    if !quiet { bar.finishEpoch(loss: loss, accuracy: progress.accuracy, samples: count) }
                    do {
                        try log?.append(epoch: progress.epoch + 1, loss: loss, accuracy: progress.accuracy,
                                        seconds: Date().timeIntervalSince(epochStart))
                    } catch {
                        throw CLIError.file(logPath ?? "", "could not write the log: \(error.localizedDescription)")
                    }
                    lossSum = 0
                    epochStart = Date()
                    if progress.epoch + 1 < progress.epochs, !quiet { bar.startEpoch(progress.epoch + 2) }
                default:
                    break
                }
            }
        } catch {
            throw CLIError.wrap(error)
        }
        return result
    }
}
