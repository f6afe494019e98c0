import CoreMLSpec
import Foundation
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// Hostile activity data: a label per row (a million distinct labels) and a table of 200,000
/// columns are read in time linear in their size, then refused with one error naming the limit;
/// a few of the 200,000 columns train; a JSON table whose rows each bring new keys is refused
/// before it grows with the square of the file. (Not timed: the test only finishes in seconds
/// because reading is linear.)
@Suite("Activity classifier: data with too many labels or columns")
struct ActivityDataLimitTests {
    static func write(_ lines: some Sequence<String>, to url: URL) throws {
        var text = ""
        for line in lines { text += line; text += "\n" }
        try Data(text.utf8).write(to: url)
    }

    @Test func aMillionDistinctLabelsAreReadThenRefusedNamingTheLimit() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("labels.csv")
            try Self.write(["session,label,x,y"] + (0..<1_000_000).lazy.map { "\($0 / 100),L\($0),\($0 % 7),\($0 % 5)" }, to: url)
            let table = try MLDataTable(contentsOf: url)
            #expect(table.size.rows == 1_000_000 && table.size.columns == 4)
            #expect(table["label"][999_999] == .string("L999999"))
            do {
                _ = try MLActivityClassifier(trainingData: table, featureColumns: ["x", "y"], labelColumn: "label", recordingFileColumn: "session",
                                             parameters: .init(maximumIterations: 1, predictionWindowSize: 5))
                Issue.record("a million activities were trained")
            } catch let error as CreateMLError {
                #expect("\(error)".contains("column 'label' holds more than \(MLActivityClassifier.classLimit) distinct labels"), "\(error)")
            }
        }
    }

    @Test func twoHundredThousandColumnsAreReadAndAFewOfThemTrain() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("wide.csv")
            let width = 200_000
            let row = Array(repeating: "1", count: width).joined(separator: ",")
            try Self.write(["session,label," + (0..<width).map { "c\($0)" }.joined(separator: ",")]
                           + (0..<40).map { "\($0 / 20),\($0 % 2 == 0 ? "a" : "b"),\(row)" }, to: url)
            let table = try MLDataTable(contentsOf: url)
            #expect(table.size.rows == 40 && table.size.columns == width + 2)
            #expect(table.columnNames.last == "c\(width - 1)")
            do {
                _ = try MLActivityClassifier(trainingData: table, labelColumn: "label", recordingFileColumn: "session",
                                             parameters: .init(maximumIterations: 1, predictionWindowSize: 5))
                Issue.record("200,000 features were trained")
            } catch let error as CreateMLError {
                #expect("\(error)".contains("\(width) feature columns; an activity classifier takes at most \(MLActivityClassifier.featureLimit)"), "\(error)")
            }
            let classifier = try MLActivityClassifier(trainingData: table, featureColumns: ["c7", "c199998"], labelColumn: "label",
                                                      recordingFileColumn: "session", parameters: .init(maximumIterations: 1, predictionWindowSize: 5))
            #expect(classifier.classLabels == ["a", "b"] && classifier.featureColumns == ["c7", "c199998"])
            // A missing column is named, and the message lists only the first columns.
            do {
                _ = try MLActivityClassifier(trainingData: table, featureColumns: ["nope"], labelColumn: "label", recordingFileColumn: "session",
                                             parameters: .init(maximumIterations: 1, predictionWindowSize: 5))
                Issue.record("a missing column was accepted")
            } catch let error as CreateMLError {
                #expect("\(error)".contains("there is no column 'nope'") && "\(error)".contains("(\(width + 2) in all)") && "\(error)".count < 1_000, "\(error)")
            }
        }
    }

    @Test func majorityIsTheMostFrequentLabelWithTiesToTheLowest() {
        var generator = SplitMix64(seed: 3)
        for _ in 0..<500 {
            let labels = (0..<Int.random(in: 1...12, using: &generator)).map { _ in Int.random(in: 0..<5, using: &generator) * 200_000 }
            var counts: [Int: Int] = [:]
            for label in labels { counts[label, default: 0] += 1 }
            let expected = counts.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key
            #expect(ActivityChunk.majority(labels[...], classCount: 1_000_000) == expected, "\(labels)")
        }
    }

    @Test func jsonRowsThatEachBringNewKeysAreRefused() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("sparse.json")
            try Data(("[" + (0..<3_000).map { "{\"k\($0)\":1}" }.joined(separator: ",") + "]").utf8).write(to: url)
            do {
                _ = try MLDataTable(contentsOf: url)
                Issue.record("a table of 3,000 × 3,000 mostly missing cells was built")
            } catch let error as CreateMLError {
                #expect("\(error)".contains("sparse.json") && "\(error)".contains("rows must mostly share their keys"), "\(error)")
            }
        }
    }
}
