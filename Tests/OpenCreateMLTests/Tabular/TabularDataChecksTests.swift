import Foundation
@testable import OpenCreateML
import Testing

@Suite("Tabular data checks and model selection")
struct TabularDataChecksTests {
    /// The rows `.split(strategy: .automatic)` sets aside from a table of `rows` rows.
    static func automaticValidationRows(_ rows: Int) -> [Int] {
        TabularValidationData.splitIndices(rows: rows, validationCount: MLSplitStrategy.automatic.validationRowCount(rows: rows),
                                           seed: MLSplitStrategy.automatic.seed).validation
    }

    /// The thrown `CreateMLError` of `body`, if any.
    static func thrown(_ body: () throws -> Any) -> CreateMLError? {
        do { _ = try body() } catch let error as CreateMLError { return error } catch { return nil }
        return nil
    }

    @Test func aClassOnlyInTheValidationRowsDoesNotStopSelection() throws {
        // 200 rows: 10 are set aside (5 %); the one "rare" row is the first of them, so the
        // training part has no "rare" row. Every candidate learns the classes from the whole table.
        let rows = 200
        let rare = try #require(Self.automaticValidationRows(rows).first)
        let x = (0..<rows).map { Double($0) }
        let label = (0..<rows).map { $0 == rare ? "rare" : $0 < rows / 2 ? "low" : "high" }
        let table = try MLDataTable(dictionary: ["x": x, "label": label])
        let classifier = try MLClassifier(trainingData: table, targetColumn: "label")
        #expect(classifier.validationMetrics.isValid)
        #expect(classifier.validationMetrics.exampleCount == 10)
        #expect(Set(classifier.validationMetrics.classLabels) == ["high", "low", "rare"])
    }

    @Test func missingTargetsAndInfiniteValuesNameTheTablesRow() throws {
        // 200 rows, 10 set aside before row 150 in the shuffle's sorted order would shift a
        // training-part index; the error must name row 150 of the table itself.
        let rows = 200, bad = 150
        let validation = Self.automaticValidationRows(rows)
        #expect(validation.contains { $0 < bad } && !validation.contains(bad))
        let x = (0..<rows).map { Double($0) }
        let y: [MLDataValue] = (0..<rows).map { $0 == bad ? .invalid : .double(Double($0)) }
        let missing = try MLDataTable(dictionary: ["x": x, "y": MLDataValue.SequenceType(y)])
        for error in [Self.thrown { try MLBoostedTreeRegressor(trainingData: missing, targetColumn: "y") },
                      Self.thrown { try MLLinearRegressor(trainingData: missing, targetColumn: "y") }] {
            #expect(error?.row == bad && error?.column == "y", "\(String(describing: error))")
        }
        var infinite = x
        infinite[bad] = .infinity
        let table = try MLDataTable(dictionary: ["x": infinite, "y": x, "label": x.map { $0 < 100 ? "a" : "b" }])
        for error in [Self.thrown { try MLRandomForestRegressor(trainingData: table, targetColumn: "y", featureColumns: ["x"]) },
                      Self.thrown { try MLLinearRegressor(trainingData: table, targetColumn: "y", featureColumns: ["x"]) },
                      Self.thrown { try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "label", featureColumns: ["x"]) }] {
            #expect(error?.row == bad && error?.column == "x", "\(String(describing: error))")
        }
    }

    @Test func oneHotRowsOverTheMemoryLimitNameTheWidestColumn() throws {
        // Width 3 + 100 + 1 = 104 values; 100 rows × 104 × 24 bytes = 249,600 bytes.
        let rows = 100
        let table = try MLDataTable(dictionary: [
            "few": (0..<rows).map { ["p", "q", "r"][$0 % 3] }, "id": (0..<rows).map { "id\($0)" },
            "x": (0..<rows).map { Double($0) }, "y": (0..<rows).map { Double($0) },
        ])
        let columns = try TabularColumns(fitting: table, targetColumn: "y", featureColumns: nil, task: .regression)
        #expect(columns.linearWidth == 104)
        try columns.checkLinearFits(rows: rows, memoryLimit: 249_600)
        let error = Self.thrown { try columns.checkLinearFits(rows: rows, memoryLimit: 249_599) }
        #expect(error?.location == "column 'id'" && error?.message.contains("100 categories") == true, "\(String(describing: error))")
        #expect(Self.thrown { try columns.checkLinearFits(rows: Int.max, memoryLimit: Int.max) }?.location == "column 'id'")
    }

    @Test func linearRowsAreTheOneHotEncodingRowMajor() throws {
        // color: red and blue once each, so alphabetically blue = 0, red = 1; a missing color is
        // all zeros, a missing x the mean 2. Row-major: [color=blue, color=red, x] per row.
        let table = try MLDataTable(dictionary: [
            "x": MLDataValue.SequenceType([.double(1), .invalid, .double(3)]),
            "color": MLDataValue.SequenceType([.string("red"), .string("blue"), .invalid]),
            "y": [1.0, 2, 3],
        ])
        let columns = try TabularColumns(fitting: table, targetColumn: "y", featureColumns: ["color", "x"], task: .regression)
        let encoded = try columns.encodeFeatures(table)
        #expect(columns.linearRows(encoded, means: [0, 2], rows: 3) == [0, 1, 1, 1, 0, 2, 0, 0, 3])
    }

    @Test func invalidCandidatesArePassedOver() {
        // An invalid regressor's metrics carry RMSE 0, which would otherwise win.
        #expect(TabularModelSelection.best([-0.5, -0.2, 0.0, -0.3]) { $0 == 0 ? nil : $0 } == 1)
        #expect(TabularModelSelection.best([1.0, 2.0, 2.0]) { $0 } == 1)
        #expect(TabularModelSelection.best([1.0, 2.0]) { _ in nil } == 0)
    }

    @Test func maxDepthBeyondTheEnginesLimitIsRefusedUpFront() {
        let table = try! TabularTestData.table(rows: 60, seed: 3)
        let error = Self.thrown { try MLBoostedTreeRegressor(trainingData: table, targetColumn: "y", parameters: .init(maxDepth: 31)) }
        #expect(error?.location == "MLBoostedTreeRegressor.ModelParameters.maxDepth" || error?.location == "ModelParameters.maxDepth",
                "\(String(describing: error))")
    }
}
