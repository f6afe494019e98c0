import Foundation
@testable import OpenCreateML
import Testing

@Suite("Tabular data preparation")
struct TabularColumnsTests {
    /// x: Int with a missing row, y: Double, color: String with a missing row, label: String.
    static func table() throws -> MLDataTable {
        var table = try MLDataTable(dictionary: [
            "x": [MLDataValue.int(1), .int(2), .invalid, .int(4)].dataValueSequence,
            "y": [0.5, -1.5, 2.0, 3.25],
            "color": [MLDataValue.string("red"), .string("blue"), .string("red"), .invalid].dataValueSequence,
            "label": ["b", "a", "b", "c"],
        ])
        table.addColumn(MLUntypedColumn([1, 2, 3, 4]), named: "id")
        return table
    }

    @Test func numbersCategoriesAndMissingValuesEncode() throws {
        let table = try Self.table()
        let columns = try TabularColumns(fitting: table, targetColumn: "label", featureColumns: ["x", "y", "color"], task: .classification)
        #expect(columns.features.map(\.kind) == [.numeric(isInteger: true), .numeric(isInteger: false), .categorical(["blue", "red"])])
        #expect(columns.target == .classes(.strings(["a", "b", "c"])))
        let encoded = try columns.encodeFeatures(table)
        #expect(encoded[0][0] == 1 && encoded[0][1] == 2 && encoded[0][2].isNaN && encoded[0][3] == 4)
        #expect(encoded[1] == [0.5, -1.5, 2.0, 3.25])
        // blue = 0, red = 1; missing → the "other" code 2.
        #expect(encoded[2] == [1, 0, 1, 2])
        #expect(try columns.encodeTargets(table) == [1, 0, 1, 2])
    }

    @Test func defaultFeaturesAreEveryOtherColumnInTableOrder() throws {
        let table = try Self.table()
        let columns = try TabularColumns(fitting: table, targetColumn: "label", featureColumns: nil, task: .classification)
        #expect(columns.featureNames == table.columnNames.filter { $0 != "label" })
    }

    @Test func unknownCategoriesTakeTheOtherCode() throws {
        let columns = try TabularColumns(fitting: try Self.table(), targetColumn: "label", featureColumns: ["color"], task: .classification)
        let other = try MLDataTable(dictionary: ["color": ["green", "red", "blue"], "label": ["a", "a", "a"]])
        #expect(try columns.encodeFeatures(other) == [[2, 1, 0]])
    }

    @Test func intTargetsSortAsNumbersAndRegressionTakesValues() throws {
        let table = try MLDataTable(dictionary: ["t": [10, 2, 2, 33], "f": [1.0, 2, 3, 4]])
        let classes = try TabularColumns(fitting: table, targetColumn: "t", featureColumns: nil, task: .classification)
        #expect(classes.target == .classes(.ints([2, 10, 33])))
        #expect(try classes.encodeTargets(table) == [1, 0, 0, 2])
        let values = try TabularColumns(fitting: table, targetColumn: "t", featureColumns: nil, task: .regression)
        #expect(try values.encodeTargets(table) == [10, 2, 2, 33])
    }

    @Test func errorsNameTheColumnOrRow() throws {
        let table = try Self.table()
        let missingColumn = #"column 'nope'"#
        #expect(thrownMessage { try TabularColumns(fitting: table, targetColumn: "nope", featureColumns: nil, task: .classification) }?.contains(missingColumn) == true)
        #expect(thrownMessage { try TabularColumns(fitting: table, targetColumn: "label", featureColumns: ["x", "nope"], task: .classification) }?
            .contains(missingColumn) == true)
        #expect(thrownMessage { try TabularColumns(fitting: table, targetColumn: "y", featureColumns: ["x"], task: .classification) }?
            .contains("column 'y'") == true)
        #expect(thrownMessage { try TabularColumns(fitting: table, targetColumn: "color", featureColumns: ["x"], task: .regression) }?
            .contains("column 'color'") == true)
        // A missing target names its row (row 4 counting from 1).
        #expect(thrownMessage { try TabularColumns(fitting: table, targetColumn: "color", featureColumns: ["x"], task: .classification) }?
            .contains("row 4") == true)
        let sequences = try MLDataTable(dictionary: ["s": [[1.0, 2.0], [3.0]], "label": ["a", "b"]])
        #expect(thrownMessage { try TabularColumns(fitting: sequences, targetColumn: "label", featureColumns: nil, task: .classification) }?
            .contains("column 's'") == true)
        let columns = try TabularColumns(fitting: table, targetColumn: "label", featureColumns: ["x", "color"], task: .classification)
        let lacking = try MLDataTable(dictionary: ["x": [1], "label": ["a"]])
        #expect(thrownMessage { try columns.encodeFeatures(lacking) }?.contains("column 'color'") == true)
        let unknownClass = try MLDataTable(dictionary: ["x": [1], "color": ["red"], "label": ["zebra"]])
        #expect(thrownMessage { try columns.encodeTargets(unknownClass) }?.contains("row 1") == true)
        let oneClass = try MLDataTable(dictionary: ["x": [1, 2], "label": ["a", "a"]])
        #expect(thrownMessage { try TabularColumns(fitting: oneClass, targetColumn: "label", featureColumns: nil, task: .classification) }?
            .contains("two classes") == true)
    }

    @Test func automaticValidationFollowsCreateMLsRowCountRule() {
        let automatic = MLSplitStrategy.automatic
        #expect(automatic.validationRowCount(rows: 49) == 0)
        #expect(automatic.validationRowCount(rows: 50) == 5)
        #expect(automatic.validationRowCount(rows: 199) == 20)   // 19.9 rounded
        #expect(automatic.validationRowCount(rows: 200) == 10)
        #expect(automatic.validationRowCount(rows: 1000) == 50)
        #expect(MLSplitStrategy.fixed(ratio: 0.25, seed: 1).validationRowCount(rows: 10) == 3)  // 2.5 rounds to 3
        #expect(MLSplitStrategy.fixed(ratio: 0.01, seed: 1).validationRowCount(rows: 10) == 1)
        #expect(MLSplitStrategy.fixed(ratio: 0.99, seed: 1).validationRowCount(rows: 10) == 9)
    }

    @Test func splitsAreSeededDisjointAndComplete() throws {
        let table = try MLDataTable(dictionary: ["i": Array(0..<300), "label": (0..<300).map { "\($0 % 2)" }])
        let (training, validation) = try TabularValidationData.split(strategy: .automatic).tables(from: table, location: "test")
        let trainingRows = ints(training["i"])
        let validationRows = ints(try #require(validation)["i"])
        #expect(validationRows.count == 15 && trainingRows.count == 285)
        #expect(Set(trainingRows + validationRows) == Set(0..<300))
        #expect(validationRows == validationRows.sorted())
        let again = try TabularValidationData.split(strategy: .automatic).tables(from: table, location: "test")
        #expect(ints(try #require(again.validation)["i"]) == validationRows)
        let other = try TabularValidationData.split(strategy: .fixed(ratio: 0.05, seed: 7)).tables(from: table, location: "test")
        #expect(ints(try #require(other.validation)["i"]) != validationRows)
        #expect(thrownMessage { try TabularValidationData.split(strategy: .fixed(ratio: 1.5, seed: 1)).tables(from: table, location: "test") }?
            .contains("ratio") == true)
        let small = try MLDataTable(dictionary: ["i": Array(0..<49), "label": (0..<49).map { "\($0 % 2)" }])
        #expect(try TabularValidationData.split(strategy: .automatic).tables(from: small, location: "test").validation == nil)
    }

    @Test func aMillionRowsOfFiftyColumnsEncodeQuickly() throws {
        let rows = 1_000_000
        var dictionary: [String: any MLDataValueConvertible] = [:]
        for column in 0..<48 { dictionary["n\(column)"] = (0..<rows).map { Double($0 &* (column + 1) % 977) } }
        dictionary["c"] = (0..<rows).map { ["a", "b", "c", "d"][$0 % 4] }
        dictionary["label"] = (0..<rows).map { $0 % 3 }
        let table = try MLDataTable(dictionary: dictionary)
        let start = Date()
        let columns = try TabularColumns(fitting: table, targetColumn: "label", featureColumns: nil, task: .classification)
        let encoded = try columns.encodeFeatures(table)
        _ = try columns.encodeTargets(table)
        let seconds = Date().timeIntervalSince(start)
        #expect(encoded.count == 49 && encoded[0].count == rows)
        // About 0.6 s in a debug build on a loaded machine; a release build is several times faster.
        #expect(seconds < 3, "encoding took \(seconds) s")
    }
}

/// A column's Int values.
func ints(_ column: MLUntypedColumn) -> [Int] { (0..<column.count).compactMap { column[$0].intValue } }

extension Array where Element == MLDataValue {
    /// The values as one sequence value, for `MLDataTable(dictionary:)` columns with missing values.
    var dataValueSequence: MLDataValue.SequenceType { MLDataValue.SequenceType(self) }
}
