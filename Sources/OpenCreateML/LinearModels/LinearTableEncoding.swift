import CoreMLSpec
import _OpenCoreMLEngine

/// A table as the rows a linear model reads, built on the tabular trainers' shared encoding
/// (``TabularColumns``): a number as it is, a missing number as its column's mean over the
/// training rows (Create ML's linear models impute too; the exported pipeline's `Imputer` does the
/// same), a String column as one indicator per training category (a missing or unknown category:
/// all indicators 0, as the exported `OneHotEncoder` with `ignoreUnknown`). The rows are
/// row-major doubles, ``width`` values each, in the order of the exported `FeatureVectorizer`.
struct LinearTableEncoding: Sendable {
    let columns: TabularColumns
    /// Per feature, the training mean imputed for a missing number (0 for a String column, or a
    /// numeric column with no values).
    let means: [Double]

    /// The encoding of `columns` with the means of `training`'s numeric columns.
    init(columns: TabularColumns, training: MLDataTable) throws {
        let encoded = try columns.encodeFeatures(training)
        means = zip(columns.features, encoded).map { feature, column in
            if case .categorical = feature.kind { return 0 }
            // Σ (value / count): finite for finite values (a plain sum of values near the largest
            // double would overflow and impute ∞, which the solver would refuse naming a column
            // of its matrix rather than of the table).
            let count = column.reduce(0) { $0 + ($1.isNaN ? 0 : 1) }
            guard count > 0 else { return 0 }
            let n = Double(count)
            return column.reduce(0.0) { $1.isNaN ? $0 : $0 + $1 / n }
        }
        self.columns = columns
    }

    /// Values per row.
    var width: Int { columns.linearWidth }

    /// The rows of `table`, row-major (`table.rowCount` × ``width``). Throws naming a feature
    /// column the table lacks or holds values of another kind in.
    /// Throws `CreateMLError` naming the String column with the most categories when the rows
    /// would not fit in memory (``TabularColumns/checkLinearFits(rows:memoryLimit:)``).
    func rows(_ table: MLDataTable) throws -> [Double] {
        try columns.checkLinearFits(rows: table.rowCount)
        return columns.linearRows(try columns.encodeFeatures(table), means: means, rows: table.rowCount)
    }

    /// The exported model: the shared front (one-hot encoders, vectorizer, imputer) then `final`,
    /// whose input this sets to the front's vector and whose outputs are Create ML's.
    func specification(final: CoreML_Specification_Model, trainer: String, metadata: MLModelMetadata?) throws -> CoreML_Specification_Model {
        let front = try columns.linearFront(means: means)
        var final = final
        final.specificationVersion = 1
        final.description_p.input = front.finalInputs
        columns.finalOutputs(into: &final)
        return try columns.exportedModel(front: front, final: final, trainer: trainer, metadata: metadata)
    }
}

extension LinearModel {
    /// The engine's linear scores of `rows` (row-major, `width` values each), as the exported GLM computes them.
    func scores(rows: [Double]) -> [Double] {
        rows.withUnsafeBufferPointer { scores($0, count: width == 0 ? 0 : rows.count / width) }
    }
}
