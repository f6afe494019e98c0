import Foundation
import Testing
import _OpenCoreMLTestSupport
@testable import OpenCoreMLCLI

/// A clock the test moves by hand.
private final class ManualClock {
    var now = 100.0
}

struct ProgressBarTests {
    private func makeBar(terminal: Bool, clock: ManualClock, into output: @escaping (String) -> Void) -> ProgressBar {
        ProgressBar(epochs: 10, stepsPerEpoch: 200, isTerminal: terminal, barWidth: 10, minimumInterval: 0.1, clock: { clock.now }, write: output)
    }

    @Test func terminalRedrawsOneLine() {
        let clock = ManualClock()
        var writes: [String] = []
        let bar = makeBar(terminal: true, clock: clock) { writes.append($0) }
        bar.startEpoch(3)

        // Half way after 30 s: 6,400 samples / 30 s ≈ 213/s, 100 steps left at 0.3 s each = 30 s.
        clock.now = 130
        bar.update(step: 100, samples: 6400, loss: 0.41234)
        #expect(writes == ["\repoch 3/10 [█████░░░░░] 100/200  loss 0.4123  213 samples/s  ETA 0:30"])

        // Redraws come at most every 0.1 s, except for the last step.
        clock.now = 130.05
        bar.update(step: 101, samples: 6464, loss: 0.41)
        #expect(writes.count == 1)
        clock.now = 130.2
        bar.update(step: 102, samples: 6528, loss: 0.41)
        #expect(writes.count == 2)
        clock.now = 130.21
        bar.update(step: 200, samples: 12800, loss: 0.4)
        #expect(writes.count == 3)
        #expect(writes[2].contains("[██████████] 200/200"))
        #expect(writes[2].contains("ETA 0:00"))

        clock.now = 160
        bar.finishEpoch(loss: 0.4, accuracy: 0.91234, samples: 12800)
        let text = writes.joined()
        #expect(text.hasSuffix("\n"))
        #expect(text.filter { $0 == "\n" }.count == 1)
        #expect(writes.dropLast().allSatisfy { $0.hasPrefix("\r") })
        let lastLine = text.split(separator: "\r").last!
        #expect(lastLine.contains("accuracy 91.23%"))
        #expect(lastLine.contains("213 samples/s"))  // 12,800 in 60 s
        #expect(lastLine.contains("time 1:00"))
    }

    /// A shorter line blanks the rest of the longer one before it.
    @Test func shorterLinesArePadded() {
        let clock = ManualClock()
        var writes: [String] = []
        let bar = makeBar(terminal: true, clock: clock) { writes.append($0) }
        bar.startEpoch(1)
        clock.now = 101
        bar.update(step: 1, samples: 100_000_000, loss: 123.5)  // 100,000,000 samples/s
        clock.now = 200
        bar.update(step: 2, samples: 100, loss: 1)  // 1 samples/s
        #expect(writes.count == 2)
        #expect(writes[1].count == writes[0].count)
        #expect(writes[1].hasSuffix("   "))
    }

    @Test func notATerminalPrintsOneLinePerEpoch() {
        let clock = ManualClock()
        var writes: [String] = []
        let bar = makeBar(terminal: false, clock: clock) { writes.append($0) }
        for epoch in 1...2 {
            bar.startEpoch(epoch)
            for step in 1...200 {
                clock.now += 0.25
                bar.update(step: step, samples: step * 64, loss: 1.0 / Double(step))
            }
            bar.finishEpoch(loss: 0.5 / Double(epoch), samples: 12800)
        }
        let text = writes.joined()
        #expect(!text.contains("\r"))
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        #expect(lines[0].hasPrefix("epoch 1/10") && lines[0].contains("loss 0.5000"))
        #expect(lines[1].hasPrefix("epoch 2/10") && lines[1].contains("loss 0.2500"))
        #expect(lines[1].contains("256 samples/s"))  // 12,800 in 50 s
        #expect(!lines[0].contains("accuracy"))
    }

    @Test func clockTimes() {
        #expect(clockTime(0) == "0:00")
        #expect(clockTime(42.4) == "0:42")
        #expect(clockTime(600) == "10:00")
        #expect(clockTime(3725) == "1:02:05")
        #expect(clockTime(.infinity) == "?")
    }
}

struct TrainingLogTests {
    @Test func linesParseBackAsJSON() throws {
        try withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("log.jsonl").path
            try Data("old content\n".utf8).write(to: URL(fileURLWithPath: path))
            do {
                let log = try TrainingLog(path: path)
                try log.append(epoch: 1, loss: 0.5, accuracy: 0.8, seconds: 1.2)
                try log.append(epoch: 2, loss: 0.3125, seconds: 1.23456)
                try log.append(epoch: 3, loss: .nan, accuracy: 1, seconds: 2)
            }
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasSuffix("\n"))
            let lines = text.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[0] == #"{"epoch":1,"loss":0.5,"accuracy":0.8,"seconds":1.2}"#)
            let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            func number(_ line: Int, _ key: String) -> Double? { (objects[line][key] as? NSNumber)?.doubleValue }
            #expect(number(1, "epoch") == 2)
            #expect(number(1, "loss") == 0.3125)
            #expect(objects[1]["accuracy"] == nil)
            #expect(number(1, "seconds") == 1.235)
            #expect(objects[2]["loss"] is NSNull)
            #expect(number(2, "accuracy") == 1)

            // Starting again empties the file.
            _ = try TrainingLog(path: path)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)

            let unwritable = folder.appendingPathComponent("missing/log.jsonl").path
            expectMessage(errorMessage { _ = try TrainingLog(path: unwritable) }, contains: [unwritable, "cannot create"])
        }
    }
}
