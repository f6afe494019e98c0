import CoreMLSpec
import Foundation
import OpenCoreML
import OpenCreateML
import Testing
import _OpenCoreMLTestSupport

/// Vector (multi-array) feature columns in the tabular trainers (an OpenCoreML addition, as Turi
/// Create's array columns): a vector column trains the same model as its elements in columns of
/// their own, the exported model reads it as one multi-array input, and bad vectors get one error
/// naming the row and column.
@Suite("Tabular trainers: vector columns")
struct VectorColumnTests {
    static let rows = 300

    static func values(_ column: MLUntypedColumn) -> [MLDataValue] { (0..<column.count).map { column[$0] } }

    /// Three numbers per row; the label depends on all three.
    static func tables() -> (vector: MLDataTable, columns: MLDataTable) {
        var generator = SplitMix64(seed: 5)
        var vectors: [MLDataValue] = [], a: [Double] = [], b: [Double] = [], c: [Double] = [], labels: [String] = []
        for _ in 0..<rows {
            let x = (0..<3).map { _ in Double.random(in: -1...1, using: &generator) }
            vectors.append(.multiArray(MLDataValue.MultiArrayType(shape: [3], scalars: x)!))
            a.append(x[0]); b.append(x[1]); c.append(x[2])
            labels.append(x[0] + 0.5 * x[1] - x[2] + Double.random(in: -0.3...0.3, using: &generator) > 0 ? "up" : "down")
        }
        var vector = try! MLDataTable(dictionary: ["label": labels])
        vector.addColumn(MLUntypedColumn(vectors), named: "v")
        let columns = try! MLDataTable(dictionary: ["label": labels, "a": a, "b": b, "c": c])
        return (vector, columns)
    }

    /// The model `write` writes reads `v` as one multi-array input of 3 and labels the first 20
    /// rows of `table` as `predicted` says.
    static func expectExportedModelPredicts(_ table: MLDataTable, _ predicted: MLUntypedColumn, write: (URL) throws -> Void) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("v.mlmodel")
            try write(url)
            let model = try MLModel(contentsOf: url)
            let input = try #require(model.modelDescription.inputDescriptionsByName["v"])
            #expect(input.type == .multiArray && input.multiArrayConstraint?.shape == [3])
            for row in 0..<20 {
                let value = try #require(table.rows[row]["v"]?.multiArrayValue)
                let output = try model.prediction(from: MLDictionaryFeatureProvider(dictionary: ["v": MLFeatureValue(multiArray: value.mlMultiArray)]))
                #expect(output.featureValue(for: "label")?.stringValue == predicted[row].stringValue)
            }
        }
    }

    @Test func aLogisticClassifierOnAVectorEqualsOneOnItsElements() throws {
        let (vector, columns) = Self.tables()
        let parameters = MLLogisticRegressionClassifier.ModelParameters(validation: .none, maxIterations: 50)
        let onVector = try MLLogisticRegressionClassifier(trainingData: vector, targetColumn: "label", featureColumns: ["v"], parameters: parameters)
        let onColumns = try MLLogisticRegressionClassifier(trainingData: columns, targetColumn: "label", featureColumns: ["a", "b", "c"], parameters: parameters)
        #expect(onVector.featureColumns == ["v"])
        #expect(onVector.trainingMetrics.accuracy == onColumns.trainingMetrics.accuracy)
        #expect(onVector.trainingMetrics.accuracy > 0.85)
        #expect(try Self.values(onVector.predictions(from: vector)) == Self.values(onColumns.predictions(from: columns)))
        try Self.expectExportedModelPredicts(vector, try onVector.predictions(from: vector)) { try onVector.write(to: $0) }
    }

    @Test func boostedTreesSplitOnVectorElements() throws {
        let (vector, columns) = Self.tables()
        let parameters = BoostedTreeModelParameters(validation: .none, maxDepth: 3, maxIterations: 20)
        let onVector = try MLBoostedTreeClassifier(trainingData: vector, targetColumn: "label", parameters: parameters)
        let onColumns = try MLBoostedTreeClassifier(trainingData: columns, targetColumn: "label", featureColumns: ["a", "b", "c"], parameters: parameters)
        #expect(onVector.trainingMetrics.accuracy == onColumns.trainingMetrics.accuracy)
        #expect(try Self.values(onVector.predictions(from: vector)) == Self.values(onColumns.predictions(from: columns)))
        try Self.expectExportedModelPredicts(vector, try onVector.predictions(from: vector)) { try onVector.write(to: $0) }
    }

    @Test func vectorsOfDifferentWidthsAreRefusedNamingTheRow() throws {
        var table = try MLDataTable(dictionary: ["label": ["a", "b", "a"]])
        table.addColumn(MLUntypedColumn([MLDataValue.multiArray(.init(shape: [2], scalars: [1, 2])!),
                                         .multiArray(.init(shape: [2], scalars: [3, 4])!),
                                         .multiArray(.init(shape: [3], scalars: [5, 6, 7])!)]), named: "v")
        #expect {
            try MLLogisticRegressionClassifier(trainingData: table, targetColumn: "label", parameters: .init(validation: .none))
        } throws: { error in
            (error as? CreateMLError)?.row == 2 && (error as? CreateMLError)?.column == "v"
        }
    }
}
