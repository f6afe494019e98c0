import Foundation

/// A batch of a classic model's computed values, one row per example, whose output features are
/// made only when read: predicting a large batch then allocates one small provider per example
/// instead of every output's feature values, dictionaries and numbers.
///
/// `feature(row, name)` makes the feature `name` of one row; it must not fail for a declared
/// output name (check what can fail, such as a declared shape, on one row before handing the
/// batch out). The rows stay alive while any of their providers does.
final class ClassicOutputRows: @unchecked Sendable {  // immutable after init
    let values: [Double]
    /// Values per row.
    let width: Int
    let names: Set<String>
    private let feature: (UnsafeBufferPointer<Double>, String) -> MLFeatureValue?

    init(values: [Double], width: Int, names: Set<String>, feature: @escaping (UnsafeBufferPointer<Double>, String) -> MLFeatureValue?) {
        self.values = values
        self.width = width
        self.names = names
        self.feature = feature
    }

    /// One provider per row.
    func providers(count: Int) -> [MLFeatureProvider] {
        (0..<count).map { Row(rows: self, row: $0) }
    }

    func value(row: Int, name: String) -> MLFeatureValue? {
        guard names.contains(name) else { return nil }
        return values.withUnsafeBufferPointer { values in
            feature(UnsafeBufferPointer(rebasing: values[(row * width)..<((row + 1) * width)]), name)
        }
    }

    /// One example's outputs, read from the batch's rows.
    final class Row: MLFeatureProvider, @unchecked Sendable {
        let rows: ClassicOutputRows
        let row: Int

        init(rows: ClassicOutputRows, row: Int) {
            self.rows = rows
            self.row = row
        }

        var featureNames: Set<String> { rows.names }

        func featureValue(for featureName: String) -> MLFeatureValue? {
            rows.value(row: row, name: featureName)
        }
    }
}
