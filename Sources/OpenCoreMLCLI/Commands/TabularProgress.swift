import Foundation
import OpenCreateML

/// A tabular trainer's progress: a bar over the iterations on standard error (trees, or solver
/// iterations, with the training loss, rows per second and the time left), one `--log` line per
/// iteration as it ends, and the per-iteration table printed after training.
final class TabularProgress: @unchecked Sendable {
    let task: Tabular.Task
    let rows: Int
    private let bar: ProgressBar?
    private let log: TrainingLog?
    private let lock = NSLock()
    private var started = false
    private var last: TabularTrainingIteration?
    private(set) var logError: Error?
    private var indicator: ElapsedIndicator?

    /// `iterations` is the most the trainer runs (nil when not known in advance: `auto`, which
    /// trains several models, shows the elapsed time instead of a bar).
    init(iterations: Int?, rows: Int, task: Tabular.Task, algorithm: Tabular.Algorithm, log: TrainingLog?) {
        self.task = task
        self.rows = rows
        self.log = log
        if let iterations {
            bar = ProgressBar(epochs: 1, stepsPerEpoch: iterations, title: "training \(algorithm.rawValue)")
        } else {
            bar = nil
            indicator = ElapsedIndicator("training (\(algorithm.rawValue): several models)")
        }
    }

    /// The trainers' progress callback: draws and logs the iteration; never stops training.
    var handler: @Sendable (TabularTrainingIteration) -> Bool {
        { [self] iteration in
            lock.withLock {
                if !started {
                    bar?.startEpoch(1)
                    started = true
                }
                last = iteration
                bar?.update(step: iteration.iteration, samples: rows * iteration.iteration, loss: iteration.trainingLoss)
                do {
                    try log?.append(Self.fields(iteration, task: task))
                } catch {
                    logError = error
                }
            }
            return true
        }
    }

    /// Completes the bar's line with the last iteration's numbers.
    func finish() {
        lock.withLock {
            indicator?.finish()
            indicator = nil
            guard let bar, let last else { return }
            bar.finishEpoch(loss: last.trainingLoss, accuracy: task == .classification ? last.trainingMetric : nil, samples: rows * last.iteration)
        }
    }

    /// Ends the bar's line after a failure, so the error prints on a line of its own.
    func abandon() {
        lock.withLock {
            indicator?.finish()
            indicator = nil
            if started, bar?.isTerminal == true { FileHandle.standardError.write(Data("\n".utf8)) }
        }
    }

    /// One `--log` line: `{"iteration":3,"trainingLoss":…,"trainingAccuracy":…,"validationLoss":…,"validationAccuracy":…,"seconds":…}`
    /// (`trainingRMSE`/`validationRMSE` for regression; validation keys left out without validation data;
    /// `seconds` since training started).
    static func fields(_ iteration: TabularTrainingIteration, task: Tabular.Task) -> [(String, TrainingLog.Value?)] {
        let metric = task == .classification ? "Accuracy" : "RMSE"
        return [("iteration", .number(Double(iteration.iteration))),
                ("trainingLoss", .number(iteration.trainingLoss)),
                ("training" + metric, .number(iteration.trainingMetric)),
                ("validationLoss", iteration.validationLoss.map { .number($0) }),
                ("validation" + metric, iteration.validationMetric.map { .number($0) }),
                ("seconds", .number((iteration.seconds * 1000).rounded() / 1000))]
    }

    /// The per-iteration table: iteration, training loss and metric, validation loss and metric, and
    /// the seconds since training started (the trainers' `seconds`).
    static func table(_ iterations: [TabularTrainingIteration], task: Tabular.Task) -> String {
        let metric = task == .classification ? "accuracy" : "RMSE"
        let hasValidation = iterations.contains { $0.validationMetric != nil }
        var headers = ["iteration", "training loss", "training \(metric)"]
        if hasValidation { headers += ["validation loss", "validation \(metric)"] }
        var table = TextTable(headers + ["elapsed s"], alignments: (headers + ["elapsed s"]).map { _ in .right })
        let value: (Double) -> String = { task == .classification ? String(format: "%.2f%%", $0 * 100) : String(format: "%.4g", $0) }
        for iteration in iterations {
            var row = [String(iteration.iteration), String(format: "%.4f", iteration.trainingLoss), value(iteration.trainingMetric)]
            if hasValidation {
                row += [iteration.validationLoss.map { String(format: "%.4f", $0) } ?? "–", iteration.validationMetric.map(value) ?? "–"]
            }
            table.append(row + [String(format: "%.3f", iteration.seconds)])
        }
        return table.render()
    }
}

/// A line on standard error while something without steps of its own runs (reading a CSV file,
/// `auto`'s several trainings): on a terminal the label, a spinner and the elapsed time, redrawn four
/// times a second; elsewhere nothing.
final class ElapsedIndicator: @unchecked Sendable {
    private let label: String
    private let isTerminal = isatty(2) != 0
    private let start = monotonicSeconds()
    private let lock = NSLock()
    private var timer: DispatchSourceTimer?
    private var frame = 0
    private var lastLength = 0

    init(_ label: String) {
        self.label = label
        guard isTerminal else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 0.25, repeating: 0.25)
        timer.setEventHandler { [weak self] in self?.draw() }
        timer.resume()
        self.timer = timer
    }

    deinit { timer?.cancel() }

    private func draw() {
        lock.withLock {
            guard timer != nil else { return }
            let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            frame += 1
            redraw("\(label) \(spinner[frame % spinner.count]) \(clockTime(monotonicSeconds() - start))")
        }
    }

    private func redraw(_ line: String) {
        let padding = String(repeating: " ", count: max(0, lastLength - line.count))
        FileHandle.standardError.write(Data(("\r" + line + padding).utf8))
        lastLength = line.count
    }

    /// Stops the spinner and clears its line.
    func finish() {
        lock.withLock {
            timer?.cancel()
            timer = nil
            if isTerminal && lastLength > 0 {
                redraw("")
                FileHandle.standardError.write(Data("\r".utf8))
            }
        }
    }
}
