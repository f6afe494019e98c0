import Foundation
import Testing
import _OpenCoreMLTestSupport

/// `opencoreml tabular train` on CSV files and hyperparameters an attacker (or an accident)
/// could hand it: one error line naming the column, line or parameter, exit status 1, the output
/// left as it was; or a correct model within the memory budget. Never an abort or a hang.
@Suite("tabular command, hostile input", .serialized)
struct HostileTabularCommandTests {
    /// Runs `tabular train` and checks the one-line failure: its texts, and the output untouched.
    private func expectFailure(_ arguments: [String], mentioning texts: [String], output: URL,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try CommandRunner.run(["tabular", "train"] + arguments + ["--output", output.path])
        #expect(result.status == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && result.stderr.hasPrefix("error: "), "\(result.stderr.prefix(2000))", sourceLocation: sourceLocation)
        for text in texts { #expect(result.stderr.contains(text), "\(result.stderr.prefix(2000))", sourceLocation: sourceLocation) }
        #expect(try Data(contentsOf: output) == Data("keep me".utf8), sourceLocation: sourceLocation)
    }

    private func table(rows: Int, label: (Int) -> String) -> String {
        var random = TestRandom(seed: 11)
        var text = "a,b,label\n"
        for row in 0..<rows {
            text += String(format: "%.4f,%.4f,", random.float(), random.float()) + label(row) + "\n"
        }
        return text
    }

    /// A target of 300,000 distinct labels (an identifier column taken for the target): every
    /// classifier sized a per-class buffer of rows × classes before any check — the boosted trees
    /// asked for over a terabyte at once and the process aborted. Now one error naming the column.
    @Test(arguments: ["boosted-tree", "random-forest", "decision-tree", "logistic"])
    func aTargetOfHundredsOfThousandsOfLabelsIsOneError(_ algorithm: String) throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            try Data("keep me".utf8).write(to: output)
            let csv = folder.appendingPathComponent("ids.csv")
            try table(rows: 300_000) { "id\($0)" }.write(to: csv, atomically: true, encoding: .utf8)
            try expectFailure([csv.path, "--target", "label", "--algorithm", algorithm, "--task", "classification"],
                              mentioning: ["column 'label'", "300000 distinct labels", "memory limit"], output: output)
        }
    }

    /// A NUL byte is no text: in a String column it would have become part of a class label, in a
    /// number column it turned the column into text. Now an error naming the line and column.
    @Test func aNULByteIsAnErrorNamingLineAndColumn() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            try Data("keep me".utf8).write(to: output)
            let good = table(rows: 40) { $0 % 2 == 0 ? "yes" : "no" }
            var lines = good.split(separator: "\n").map(String.init)
            lines[7] = lines[7].replacingOccurrences(of: ",yes", with: ",ye\u{0}s").replacingOccurrences(of: ",no", with: ",n\u{0}o")
            let inLabel = folder.appendingPathComponent("label.csv")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: inLabel)
            try expectFailure([inLabel.path, "--target", "label"], mentioning: ["label.csv", "line 8", "column \"label\"", "NUL byte"], output: output)

            lines = good.split(separator: "\n").map(String.init)
            lines[12] = "0.\u{0}5," + lines[12].split(separator: ",", maxSplits: 1)[1]
            let inNumber = folder.appendingPathComponent("number.csv")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: inNumber)
            try expectFailure([inNumber.path, "--target", "label"], mentioning: ["number.csv", "line 13", "column \"a\"", "NUL byte"], output: output)
        }
    }

    /// An unclosed quote, bytes that are not UTF-8, and a target of one class: one error each,
    /// naming the line and column (or the column and the count).
    @Test func brokenQuotingInvalidTextAndOneClassAreOneErrorEach() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            try Data("keep me".utf8).write(to: output)
            var lines = table(rows: 40) { $0 % 2 == 0 ? "yes" : "no" }.split(separator: "\n").map(String.init)
            lines[4] = lines[4].replacingOccurrences(of: ",yes", with: ",\"yes").replacingOccurrences(of: ",no", with: ",\"no")
            let quote = folder.appendingPathComponent("quote.csv")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: quote)
            try expectFailure([quote.path, "--target", "label"], mentioning: ["quote.csv", "line 5", "never closed"], output: output)

            var bytes = Array(table(rows: 40) { $0 % 2 == 0 ? "yes" : "no" }.utf8)
            let cut = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }[9]
            bytes.insert(contentsOf: [0xFF, 0xFE], at: cut)
            let text = folder.appendingPathComponent("text.csv")
            try Data(bytes).write(to: text)
            try expectFailure([text.path, "--target", "label"], mentioning: ["text.csv", "line 10", "not valid UTF-8"], output: output)

            let one = folder.appendingPathComponent("one.csv")
            try table(rows: 40) { _ in "yes" }.write(to: one, atomically: true, encoding: .utf8)
            try expectFailure([one.path, "--target", "label"], mentioning: ["column 'label'", "at least two classes"], output: output)
        }
    }

    /// Tree counts no memory could hold, even as single leaves, are refused before training
    /// (they used to start an endless training run).
    @Test(arguments: ["boosted-tree", "random-forest"])
    func treeCountsBeyondMemoryAreRefusedAtOnce(_ algorithm: String) throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            try Data("keep me".utf8).write(to: output)
            let csv = folder.appendingPathComponent("small.csv")
            try table(rows: 60) { $0 % 3 == 0 ? "a" : $0 % 3 == 1 ? "b" : "c" }.write(to: csv, atomically: true, encoding: .utf8)
            try expectFailure([csv.path, "--target", "label", "--algorithm", algorithm, "--max-iterations", "1000000000000"],
                              mentioning: ["maxIterations", "memory limit"], output: output)
        }
    }

    /// A field of 30 MB (a category name) is data: the model trains, within memory.
    @Test func aFieldOfTensOfMegabytesTrains() throws {
        try withTemporaryDirectory { folder in
            let output = folder.appendingPathComponent("out.mlmodel")
            let huge = String(repeating: "x", count: 30 << 20)
            let csv = folder.appendingPathComponent("wide.csv")
            try table(rows: 60) { $0 == 5 ? huge : $0 % 2 == 0 ? "yes" : "no" }.write(to: csv, atomically: true, encoding: .utf8)
            let result = try CommandRunner.run(["tabular", "train", csv.path, "--target", "label", "--output", output.path])
            #expect(result.status == 0, "\(result.stderr.prefix(2000))")
            #expect(FileManager.default.fileExists(atPath: output.path))
        }
    }
}
