import Foundation
import OpenCoreML

/// Trains a model on a dataset through `MLUpdateTask`, showing a progress bar and writing an
/// optional JSON-lines log: what `train` and `demo` share.
struct TrainingSession {
    struct Epoch {
        let loss: Double
        let accuracy: Double?
        let seconds: Double
        /// Processor time of the whole process (every thread) during the epoch.
        var cpuSeconds: Double = 0
    }

    let model: MLModel
    let dataset: LabeledDataset
    let binding: DatasetBinding
    var logPath: String?
    var quiet = false

    /// Runs the update; returns the trained model and one entry per epoch. Throws the task's error.
    func run() throws -> (model: MLModel, epochs: [Epoch]) {
        let log = try logPath.map { try TrainingLog(path: $0) }
        let epochs = (try? model.parameterValue(for: .epochs)) as? Int ?? 1
        let batchSize = (try? model.parameterValue(for: .miniBatchSize)) as? Int ?? 32
        let bar = ProgressBar(epochs: epochs, stepsPerEpoch: (dataset.count + batchSize - 1) / batchSize)
        let state = SessionState()
        let done = DispatchSemaphore(value: 0)
        let handlers = MLUpdateProgressHandlers(
            forEvents: [.trainingBegin, .miniBatchEnd, .epochEnd],
            progressHandler: { context in
                let epoch = context.metrics[.epochIndex] as? Int ?? 0
                switch context.event {
                case .trainingBegin:
                    if !quiet { bar.startEpoch(1) }
                    state.epochStart = Date()
                    state.epochCPUStart = ProcessUsage.cpuSeconds
                case .miniBatchEnd:
                    let miniBatch = context.metrics[.miniBatchIndex] as? Int ?? 0
                    state.lossSum += context.metrics[.lossValue] as? Double ?? 0
                    let samples = min((miniBatch + 1) * batchSize, dataset.count)
                    if !quiet { bar.update(step: miniBatch + 1, samples: samples, loss: state.lossSum / Double(miniBatch + 1)) }
                case .epochEnd:
                    let loss = context.metrics[.lossValue] as? Double ?? .nan
                    let accuracy = context.metrics[.trainingAccuracy] as? Double
                    let seconds = Date().timeIntervalSince(state.epochStart)
                    state.epochs.append(Epoch(loss: loss, accuracy: accuracy, seconds: seconds,
                                              cpuSeconds: ProcessUsage.cpuSeconds - state.epochCPUStart))
                    if !quiet { bar.finishEpoch(loss: loss, accuracy: accuracy, samples: dataset.count) }
                    do {
                        try log?.append(epoch: epoch + 1, loss: loss, accuracy: accuracy, seconds: seconds)
                    } catch {
                        state.logError = error
                        context.task.cancel()
                    }
                    state.lossSum = 0
                    state.epochStart = Date()
                    state.epochCPUStart = ProcessUsage.cpuSeconds
                    if epoch + 1 < epochs, !quiet { bar.startEpoch(epoch + 2) }
                default:
                    break
                }
            },
            completionHandler: { context in
                if context.task.error == nil { state.trained = context.model }
                done.signal()
            })
        let task = MLUpdateTask(model: model, trainingData: binding.batch(dataset), progressHandlers: handlers)
        task.resume()
        done.wait()
        if let error = task.error { throw CLIError.wrap(error) }
        if let error = state.logError { throw CLIError.file(logPath ?? "", "could not write the log: \(error.localizedDescription)") }
        return (state.trained ?? model, state.epochs)
    }
}

/// What the handlers record, on the training thread.
private final class SessionState: @unchecked Sendable {
    var epochs: [TrainingSession.Epoch] = []
    var lossSum = 0.0
    var epochStart = Date()
    var epochCPUStart = 0.0
    var trained: MLModel?
    var logError: Error?
}
