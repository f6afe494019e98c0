import Foundation
@testable import OpenCreateML

/// Tables made from fixed formulas with noise from a seeded generator.
enum TabularTestData {
    /// Rows of x1, x2 ∈ [-1, 1) (x2 missing in about 5 % of rows), color ∈ {red, green, blue} (missing
    /// in about 5 %), and targets:
    /// - `label`: "pos" when x1 + x2 + (red ? 1.0 : 0) > 0 (x2 counted as 0 when missing), flipped
    ///   for 5 % of rows (the true rule scores about 94 % on 400 rows; ignoring color about 83 %).
    /// - `band`: 0, 1 or 2 for x1 below −⅓, below ⅓, or above (Int labels, no noise).
    /// - `y`: 3·x1 + 2·sin(3·x2) + (red ? 1 : 0) + N(0, 0.1²) (x2 counted as 0 when missing); the
    ///   noise alone gives an RMSE of 0.1.
    static func table(rows: Int, seed: Int) throws -> MLDataTable {
        var generator = SeededGenerator(seed: seed)
        var x1: [Double] = [], x2: [MLDataValue] = [], color: [MLDataValue] = [], label: [String] = [], band: [Int] = [], y: [Double] = []
        let colors = ["red", "green", "blue"]
        for _ in 0..<rows {
            let a = generator.unit() * 2 - 1
            let b = generator.unit() * 2 - 1
            let bMissing = generator.unit() < 0.05
            let c = colors[Int(generator.unit() * 3)]
            let cMissing = generator.unit() < 0.05
            let red = !cMissing && c == "red"
            let bValue = bMissing ? 0 : b
            let positive = a + bValue + (red ? 1.0 : 0) > 0
            let flip = generator.unit() < 0.05
            // Box–Muller.
            let noise = (-2 * log(1 - generator.unit())).squareRoot() * cos(2 * Double.pi * generator.unit()) * 0.1
            x1.append(a)
            x2.append(bMissing ? .invalid : .double(b))
            color.append(cMissing ? .invalid : .string(c))
            label.append(positive != flip ? "pos" : "neg")
            band.append(a < -1.0 / 3 ? 0 : a < 1.0 / 3 ? 1 : 2)
            y.append(3 * a + 2 * sin(3 * bValue) + (red ? 1 : 0) + noise)
        }
        return try MLDataTable(dictionary: [
            "x1": x1, "x2": MLDataValue.SequenceType(x2), "color": MLDataValue.SequenceType(color),
            "label": label, "band": band, "y": y,
        ])
    }
}
