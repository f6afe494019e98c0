import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// The operations of a transformer block (the ones that run by C kernels: linear with its weight
/// packed once, transpose, layer_norm, softmax and gelu over the last axis, broadcasting add and
/// mul of a row or a scalar) on small hand-built programs, against straightforward definitions.
@Suite("ML Program transformer operations")
struct ProgramPlanTransformerTests {
    typealias Program = ProgramPlanTests.Program

    /// The input [2, 3, 5] used throughout: distinct values of both signs.
    static let x = MILTensor(shape: [2, 3, 5], values: (0..<30).map { Float($0 % 7) * 0.37 - Float($0 % 4) * 0.81 })

    static func expectClose(_ actual: MILTensor?, _ shape: [Int], _ expected: [Double], _ tolerance: Double = 1e-5,
                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(actual?.shape == shape, sourceLocation: sourceLocation)
        let values = actual?.values ?? []
        #expect(values.count == expected.count, sourceLocation: sourceLocation)
        for (a, e) in zip(values, expected) {
            #expect(abs(Double(a) - e) <= tolerance * max(1, abs(e)), "\(a) is not \(e)", sourceLocation: sourceLocation)
        }
    }

    @Test func linearWithBiasOverLeadingDimensions() throws {
        var p = Program()
        p.input("x", [2, 3, 5])
        let weight = (0..<20).map { Float($0 % 6) * 0.25 - 0.5 }, bias: [Float] = [1, -2, 0.5, 3]
        p.constant("weight", floats: weight, shape: [4, 5])
        p.constant("bias", floats: bias, shape: [4])
        p.operation("linear", ["x": ["x"], "weight": ["weight"], "bias": ["bias"]], output: "y")
        p.operation("linear", ["x": ["x"], "weight": ["weight"]], output: "plain")
        let result = try p.plan(outputs: ["y", "plain"]).run(["x": Self.x])
        let x = Self.x.values
        let plain = (0..<6).flatMap { row in
            (0..<4).map { o in (0..<5).reduce(0.0) { $0 + Double(x[row * 5 + $1]) * Double(weight[o * 5 + $1]) } }
        }
        Self.expectClose(result["plain"], [2, 3, 4], plain)
        Self.expectClose(result["y"], [2, 3, 4], plain.enumerated().map { $1 + Double(bias[$0 % 4]) })
    }

    @Test func transposeOfRankThree() throws {
        var p = Program()
        p.input("x", [2, 3, 5])
        p.constant("perm", ints: [2, 0, 1], shape: [3])
        p.constant("swap", ints: [0, 2, 1], shape: [3])
        p.operation("transpose", ["x": ["x"], "perm": ["perm"]], output: "t")
        p.operation("transpose", ["x": ["x"], "perm": ["swap"]], output: "s")
        let result = try p.plan(outputs: ["t", "s"]).run(["x": Self.x])
        let x = Self.x.values
        // t[k][i][j] = x[i][j][k]; s[i][k][j] = x[i][j][k].
        Self.expectClose(result["t"], [5, 2, 3], (0..<5).flatMap { k in (0..<2).flatMap { i in (0..<3).map { j in Double(x[i * 15 + j * 5 + k]) } } }, 0)
        Self.expectClose(result["s"], [2, 5, 3], (0..<2).flatMap { i in (0..<5).flatMap { k in (0..<3).map { j in Double(x[i * 15 + j * 5 + k]) } } }, 0)
    }

    @Test func layerNormSoftmaxAndGELUOverTheLastAxis() throws {
        var p = Program()
        p.input("x", [2, 3, 5])
        let gamma: [Float] = [1, 2, 0.5, -1, 3], beta: [Float] = [0, 1, -1, 0.5, 2]
        p.constant("axes", ints: [-1], shape: [1])
        p.constant("last", ints: [-1], shape: [])
        p.constant("middle", ints: [1], shape: [])
        p.constant("gamma", floats: gamma, shape: [5])
        p.constant("beta", floats: beta, shape: [5])
        p.constant("epsilon", floats: [1e-3], shape: [])
        p.operation("layer_norm", ["x": ["x"], "axes": ["axes"], "gamma": ["gamma"], "beta": ["beta"], "epsilon": ["epsilon"]], output: "norm")
        p.operation("softmax", ["x": ["x"], "axis": ["last"]], output: "soft")
        p.operation("softmax", ["x": ["x"], "axis": ["middle"]], output: "softMiddle")
        let modes = ["EXACT", "TANH_APPROXIMATION", "SIGMOID_APPROXIMATION"]
        for mode in modes {
            p.constant(mode, string: mode, shape: [])
            p.operation("gelu", ["x": ["x"], "mode": [mode]], output: "gelu_\(mode)")
        }
        p.operation("gelu", ["x": ["x"]], output: "gelu_default")
        let result = try p.plan(outputs: ["norm", "soft", "softMiddle", "gelu_default"] + modes.map { "gelu_\($0)" }).run(["x": Self.x])
        let rows = (0..<6).map { r in Self.x.values[(r * 5)..<(r * 5 + 5)].map(Double.init) }
        let norm = rows.flatMap { row -> [Double] in
            let mean = row.reduce(0, +) / 5, variance = row.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 5
            return row.indices.map { (row[$0] - mean) / (variance + 1e-3).squareRoot() * Double(gamma[$0]) + Double(beta[$0]) }
        }
        Self.expectClose(result["norm"], [2, 3, 5], norm, 1e-5)
        let soft = rows.flatMap { row -> [Double] in
            let e = row.map { exp($0 - row.max()!) }
            return e.map { $0 / e.reduce(0, +) }
        }
        Self.expectClose(result["soft"], [2, 3, 5], soft, 1e-6)
        let x = Self.x.values.map(Double.init)
        let middle = (0..<30).map { index -> Double in
            let (i, k) = (index / 15, index % 5)
            return exp(x[index]) / (0..<3).reduce(0.0) { $0 + exp(x[i * 15 + $1 * 5 + k]) }
        }
        Self.expectClose(result["softMiddle"], [2, 3, 5], middle, 1e-6)
        let exact = x.map { 0.5 * $0 * (1 + erf($0 / 2.0.squareRoot())) }
        Self.expectClose(result["gelu_EXACT"], [2, 3, 5], exact, 1e-6)
        Self.expectClose(result["gelu_default"], [2, 3, 5], exact, 1e-6)
        Self.expectClose(result["gelu_TANH_APPROXIMATION"], [2, 3, 5],
                         x.map { 0.5 * $0 * (1 + tanh((2 / Double.pi).squareRoot() * ($0 + 0.044715 * $0 * $0 * $0))) }, 1e-6)
        Self.expectClose(result["gelu_SIGMOID_APPROXIMATION"], [2, 3, 5], x.map { $0 / (1 + exp(-1.702 * $0)) }, 1e-6)
    }

    /// A row repeated over leading dimensions and a scalar take the fast path; a column (repeated
    /// along the last dimension) the general one; both ways round, and with rank differences.
    @Test func broadcastingRowsScalarsAndColumns() throws {
        var p = Program()
        p.input("x", [2, 3, 5])
        let row: [Float] = [1, 2, 3, 4, 5], plane = (0..<15).map { Float($0) * 0.5 }
        p.constant("row", floats: row, shape: [1, 5])
        p.constant("plane", floats: plane, shape: [3, 5])
        p.constant("scale", floats: [0.125], shape: [])
        p.constant("column", floats: [2, -1, 4], shape: [3, 1])
        p.operation("add", ["x": ["x"], "y": ["row"]], output: "plusRow")
        p.operation("add", ["x": ["plane"], "y": ["x"]], output: "planePlus")
        p.operation("mul", ["x": ["x"], "y": ["scale"]], output: "scaled")
        p.operation("mul", ["x": ["row"], "y": ["x"]], output: "rowTimes")
        p.operation("sub", ["x": ["scale"], "y": ["x"]], output: "scaleMinus")
        p.operation("mul", ["x": ["x"], "y": ["column"]], output: "byColumn")
        p.operation("add", ["x": ["row"], "y": ["column"]], output: "outer")
        let result = try p.plan(outputs: ["plusRow", "planePlus", "scaled", "rowTimes", "scaleMinus", "byColumn", "outer"]).run(["x": Self.x])
        let x = Self.x.values.map(Double.init)
        let column: [Double] = [2, -1, 4]
        Self.expectClose(result["plusRow"], [2, 3, 5], x.indices.map { x[$0] + Double(row[$0 % 5]) }, 1e-6)
        Self.expectClose(result["planePlus"], [2, 3, 5], x.indices.map { x[$0] + Double(plane[$0 % 15]) }, 1e-6)
        Self.expectClose(result["scaled"], [2, 3, 5], x.map { $0 * 0.125 }, 0)
        Self.expectClose(result["rowTimes"], [2, 3, 5], x.indices.map { x[$0] * Double(row[$0 % 5]) }, 1e-7)
        Self.expectClose(result["scaleMinus"], [2, 3, 5], x.map { 0.125 - $0 }, 1e-7)
        Self.expectClose(result["byColumn"], [2, 3, 5], x.indices.map { x[$0] * column[($0 / 5) % 3] }, 1e-7)
        Self.expectClose(result["outer"], [3, 5], (0..<15).map { Double(row[$0 % 5]) + column[$0 / 5] }, 0)
    }
}

extension ProgramPlanTransformerTests {
    /// A constant y (packed once) with and without transpose_y, x with batch dimensions, equals
    /// the product by definition; a transposed x and a computed y take the general path.
    @Test func matmulWithAConstantRightOperand() throws {
        var p = Program()
        p.input("x", [2, 3, 5])
        let weight = (0..<20).map { Float($0 % 7) * 0.5 - 1 }  // 5×4, or 4×5 when transposed
        p.constant("w", floats: weight, shape: [5, 4])
        p.constant("wBatch", floats: weight, shape: [1, 4, 5])
        p.constant("yes", ints: [1], shape: [])
        p.operation("matmul", ["x": ["x"], "y": ["w"]], output: "plain")
        p.operation("matmul", ["x": ["x"], "y": ["wBatch"], "transpose_y": ["yes"]], output: "transposed")
        p.operation("matmul", ["x": ["x"], "y": ["x"], "transpose_x": ["yes"]], output: "gram")
        let result = try p.plan(outputs: ["plain", "transposed", "gram"]).run(["x": Self.x])
        let x = Self.x.values.map(Double.init), w = weight.map(Double.init)
        Self.expectClose(result["plain"], [2, 3, 4], (0..<6).flatMap { row in
            (0..<4).map { j in (0..<5).reduce(0.0) { $0 + x[row * 5 + $1] * w[$1 * 4 + j] } }
        })
        Self.expectClose(result["transposed"], [2, 3, 4], (0..<6).flatMap { row in
            (0..<4).map { j in (0..<5).reduce(0.0) { $0 + x[row * 5 + $1] * w[j * 5 + $1] } }
        })
        // xᵢᵀ·xᵢ per batch: [2, 5, 5].
        var gram = [Double](repeating: 0, count: 50)
        for i in 0..<2 {
            for r in 0..<5 {
                for c in 0..<5 {
                    for t in 0..<3 { gram[i * 25 + r * 5 + c] += x[i * 15 + t * 5 + r] * x[i * 15 + t * 5 + c] }
                }
            }
        }
        Self.expectClose(result["gram"], [2, 5, 5], gram)
    }
}
