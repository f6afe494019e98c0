import Foundation

/// Training progress on standard error. On a terminal, one line redrawn in place with `\r`, at most
/// once per `minimumInterval` seconds:
/// `epoch 3/10 [██████░░░░] 120/469  loss 0.4123  1,234 samples/s  ETA 0:42`;
/// elsewhere (a log file, a pipe) one plain line per finished epoch and no carriage returns.
/// With a `title`, the title stands in place of `epoch 3/10` (one run of steps, such as the trees
/// of a boosted ensemble).
final class ProgressBar {
    let epochs: Int
    let title: String?
    let stepsPerEpoch: Int
    let isTerminal: Bool
    private let barWidth: Int
    private let minimumInterval: Double
    private let clock: () -> Double
    private let write: (String) -> Void

    private var epoch = 0
    private var epochStart = 0.0
    private var lastDraw: Double?
    private var lastLineLength = 0

    /// `clock` returns seconds from any fixed origin; `write` receives the text exactly as it should
    /// appear (carriage returns and newlines included).
    init(
        epochs: Int, stepsPerEpoch: Int, title: String? = nil,
        isTerminal: Bool = isatty(2) != 0, barWidth: Int = 20, minimumInterval: Double = 0.1,
        clock: @escaping () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
        write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.epochs = epochs
        self.title = title
        self.stepsPerEpoch = max(1, stepsPerEpoch)
        self.isTerminal = isTerminal
        self.barWidth = max(1, barWidth)
        self.minimumInterval = minimumInterval
        self.clock = clock
        self.write = write
    }

    /// Starts timing `epoch` (1-based).
    func startEpoch(_ epoch: Int) {
        self.epoch = epoch
        epochStart = clock()
        lastDraw = nil
        lastLineLength = 0
    }

    /// After `step` of `stepsPerEpoch` batches, `samples` examples into the epoch, with the running loss.
    /// Redraws on a terminal unless the last redraw was too recent; does nothing elsewhere.
    func update(step: Int, samples: Int, loss: Double) {
        guard isTerminal else { return }
        let now = clock()
        if let lastDraw, now - lastDraw < minimumInterval && step < stepsPerEpoch { return }
        lastDraw = now
        let elapsed = now - epochStart
        var parts = [header(step: step), "loss \(lossText(loss))"]
        if elapsed >= 0.5 && step > 0 {  // earlier rates are mostly noise
            parts.append("\(grouped(Int((Double(samples) / elapsed).rounded()))) samples/s")
            let remaining = elapsed / Double(step) * Double(max(0, stepsPerEpoch - step))
            parts.append("ETA \(clockTime(remaining))")
        }
        redraw(parts.joined(separator: "  "))
    }

    /// Ends the epoch with its final loss (and accuracy, a fraction, when known) and the number of
    /// examples it used: completes the terminal line, or prints the epoch's one line elsewhere.
    func finishEpoch(loss: Double, accuracy: Double? = nil, samples: Int) {
        let elapsed = clock() - epochStart
        var parts = ["loss \(lossText(loss))"]
        if let accuracy { parts.append("accuracy " + String(format: "%.2f%%", accuracy * 100)) }
        if elapsed > 0 { parts.append("\(grouped(Int((Double(samples) / elapsed).rounded()))) samples/s") }
        parts.append("time \(clockTime(elapsed))")
        if isTerminal {
            redraw(([header(step: stepsPerEpoch)] + parts).joined(separator: "  "))
            write("\n")
        } else {
            write(([epochTitle, "\(grouped(stepsPerEpoch)) steps"] + parts).joined(separator: "  ") + "\n")
        }
        lastLineLength = 0
    }

    /// `epoch 3/10 [██████░░░░] 120/469`.
    private func header(step: Int) -> String {
        let done = min(max(step, 0), stepsPerEpoch)
        let filled = done * barWidth / stepsPerEpoch
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        return "\(epochTitle) [\(bar)] \(done)/\(stepsPerEpoch)"
    }

    /// `epoch 3/10`, or the title.
    private var epochTitle: String { title ?? "epoch \(epoch)/\(epochs)" }

    /// Rewrites the current terminal line, blanking what is left of a longer previous one.
    private func redraw(_ line: String) {
        let padding = String(repeating: " ", count: max(0, lastLineLength - line.count))
        write("\r" + line + padding)
        lastLineLength = line.count
    }

    private func lossText(_ loss: Double) -> String {
        loss.isFinite ? String(format: "%.4f", loss) : "\(loss)"
    }
}

/// Seconds as `m:ss`, or `h:mm:ss` from an hour on: `42` → `0:42`, `3725` → `1:02:05`.
func clockTime(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let total = Int(max(0, seconds).rounded())
    let hours = total / 3600, minutes = total / 60 % 60, rest = total % 60
    return hours > 0
        ? String(format: "%d:%02d:%02d", hours, minutes, rest)
        : String(format: "%d:%02d", minutes, rest)
}
