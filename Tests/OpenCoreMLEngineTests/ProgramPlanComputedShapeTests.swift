import CoreMLSpec
import Testing
@testable import _OpenCoreMLEngine

/// Shapes computed while the program runs, as coremltools writes them for inputs of flexible
/// shape (`shape` → `gather` → `concat` of scalars → `reshape`), `concat` of rank-0 values and
/// with `interleave`, and `band_part`: one plan run on inputs of several sizes, against values
/// worked out by hand.
@Suite("ML Program shapes computed at run time")
struct ProgramPlanComputedShapeTests {
    typealias Program = ProgramPlanTests.Program

    /// x [1, L, 4] → [1, L, 2, 2], the sizes gathered from x's shape on each run.
    @Test(arguments: [1, 3, 5])
    func reshapeToAComputedShape(length: Int) throws {
        var p = Program()
        p.input("x", [1, 3, 4])
        p.constant("one", ints: [1], shape: [])
        p.constant("two", ints: [2], shape: [])
        p.constant("index", ints: [1], shape: [])
        p.constant("axis", ints: [0], shape: [])
        p.operation("shape", ["x": ["x"]], output: "sizes")                               // [1, L, 4]
        p.operation("gather", ["x": ["sizes"], "indices": ["index"], "axis": ["axis"]], output: "length")  // L, rank 0
        p.operation("concat", ["values": ["one", "length", "two", "two"], "axis": ["axis"]], output: "target")
        p.operation("reshape", ["x": ["x"], "shape": ["target"]], output: "y")
        let plan = try p.plan(outputs: ["target", "y"])
        let values = (0..<(4 * length)).map(Float.init)
        let result = try plan.run(["x": MILTensor(shape: [1, length, 4], values: values)])
        #expect(result["target"] == MILTensor(shape: [4], values: [1, Float(length), 2, 2]))
        #expect(result["y"] == MILTensor(shape: [1, length, 2, 2], values: values))
    }

    /// iOS 17's rule for `0`: it keeps the input's size it lines up with counting from the last
    /// dimension, or 1 past the first: [2, 6] reshaped to [1, 0, -1, 0] is [1, 1, 2, 6].
    @Test func reshapeZeroCountsFromTheLastDimension() throws {
        var p = Program()
        p.input("x", [2, 6])
        p.constant("target", ints: [1, 0, -1, 0], shape: [4])
        p.constant("same", ints: [0, 3, -1], shape: [3])  // ranks differ: 0 lines up with nothing → 1; -1 = 12 / 3
        p.operation("reshape", ["x": ["x"], "shape": ["target"]], output: "y")
        p.operation("reshape", ["x": ["x"], "shape": ["same"]], output: "z")
        let values = (0..<12).map(Float.init)
        let result = try p.plan(outputs: ["y", "z"]).run(["x": MILTensor(shape: [2, 6], values: values)])
        #expect(result["y"] == MILTensor(shape: [1, 1, 2, 6], values: values))
        #expect(result["z"] == MILTensor(shape: [1, 3, 4], values: values))

        var q = Program()
        q.input("x", [2, 6])
        q.constant("bad", ints: [5, -1], shape: [2])
        q.operation("reshape", ["x": ["x"], "shape": ["bad"]], output: "y")
        #expect { _ = try q.plan(outputs: ["y"]).run(["x": MILTensor(shape: [2, 6], values: values)]) } throws: {
            "\($0)".contains("cannot reshape [2, 6] to [5, -1]")
        }
    }

    /// Scalars concatenate into a vector, one value each, whatever the axis (coremltools' rule).
    @Test func concatOfScalars() throws {
        var p = Program()
        p.input("x", [2])
        p.constant("a", floats: [7], shape: [])
        p.constant("axis", ints: [-1], shape: [])
        p.constant("three", ints: [3], shape: [])
        p.operation("reduce_sum", ["x": ["x"]], output: "sum")  // rank 0
        p.operation("concat", ["values": ["a", "sum", "a"], "axis": ["axis"]], output: "y")
        p.operation("concat", ["values": ["sum", "a"], "axis": ["three"]], output: "z")
        let result = try p.plan(outputs: ["y", "z"]).run(["x": MILTensor(shape: [2], values: [1, 2])])
        #expect(result["y"] == MILTensor(shape: [3], values: [7, 3, 7]))
        #expect(result["z"] == MILTensor(shape: [2], values: [3, 7]))
    }

    /// coremltools' example: [[1,2],[3,4],[5,6]] and [[7,8],[9,10],[11,12]] along axis 0, interleaved,
    /// give [[1,2],[7,8],[3,4],[9,10],[5,6],[11,12]]; along axis 1, [[1,2,7,8],[3,4,9,10],[5,6,11,12]]
    /// (one column of each in turn: [1,7,2,8], …).
    @Test func concatInterleaved() throws {
        var p = Program()
        p.input("x", [3, 2])
        p.constant("y", floats: [7, 8, 9, 10, 11, 12], shape: [3, 2])
        p.constant("zero", ints: [0], shape: [])
        p.constant("one", ints: [1], shape: [])
        p.constant("yes", ints: [1], shape: [])
        p.operation("concat", ["values": ["x", "y"], "axis": ["zero"], "interleave": ["yes"]], output: "rows")
        p.operation("concat", ["values": ["x", "y"], "axis": ["one"], "interleave": ["yes"]], output: "columns")
        p.operation("concat", ["values": ["x", "y"], "axis": ["one"]], output: "plain")
        let result = try p.plan(outputs: ["rows", "columns", "plain"]).run(["x": MILTensor(shape: [3, 2], values: [1, 2, 3, 4, 5, 6])])
        #expect(result["rows"] == MILTensor(shape: [6, 2], values: [1, 2, 7, 8, 3, 4, 9, 10, 5, 6, 11, 12]))
        #expect(result["columns"] == MILTensor(shape: [3, 4], values: [1, 7, 2, 8, 3, 9, 4, 10, 5, 11, 6, 12]))
        #expect(result["plain"] == MILTensor(shape: [3, 4], values: [1, 2, 7, 8, 3, 4, 9, 10, 5, 6, 11, 12]))
    }

    /// band(m, n) = (lower < 0 || m - n <= lower) && (upper < 0 || n - m <= upper), on each of x's
    /// two 3×4 matrices (values 1…24).
    @Test func bandPart() throws {
        var p = Program()
        p.input("x", [2, 3, 4])
        p.constant("minusOne", ints: [-1], shape: [])
        p.constant("zero", ints: [0], shape: [])
        p.constant("one", ints: [1], shape: [])
        p.operation("band_part", ["x": ["x"], "lower": ["minusOne"], "upper": ["zero"]], output: "lowerTriangle")
        p.operation("band_part", ["x": ["x"], "lower": ["one"], "upper": ["one"]], output: "tridiagonal")
        p.operation("band_part", ["x": ["x"], "lower": ["zero"], "upper": ["minusOne"]], output: "upperTriangle")
        p.operation("band_part", ["x": ["x"]], output: "all")
        let x = (1...24).map(Float.init)
        let result = try p.plan(outputs: ["lowerTriangle", "tridiagonal", "upperTriangle", "all"])
            .run(["x": MILTensor(shape: [2, 3, 4], values: x)])
        #expect(result["lowerTriangle"] == MILTensor(shape: [2, 3, 4], values: [
            1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0,
            13, 0, 0, 0, 17, 18, 0, 0, 21, 22, 23, 0,
        ]))
        #expect(result["tridiagonal"] == MILTensor(shape: [2, 3, 4], values: [
            1, 2, 0, 0, 5, 6, 7, 0, 0, 10, 11, 12,
            13, 14, 0, 0, 17, 18, 19, 0, 0, 22, 23, 24,
        ]))
        #expect(result["upperTriangle"] == MILTensor(shape: [2, 3, 4], values: [
            1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12,
            13, 14, 15, 16, 0, 18, 19, 20, 0, 0, 23, 24,
        ]))
        #expect(result["all"] == MILTensor(shape: [2, 3, 4], values: x))
    }

    /// A causal mask over a length known only at run time: fill([L, L], 1) → band_part(-1, 0), and
    /// range_1d(0, L, 1) tiled to [2, L]: the sizes come from x's shape on each run.
    @Test(arguments: [1, 4])
    func causalMaskOfAComputedLength(length: Int) throws {
        var p = Program()
        p.input("x", [1, 3])
        p.constant("index", ints: [1], shape: [])
        p.constant("axis", ints: [0], shape: [])
        p.constant("zero", floats: [0], shape: [])
        p.constant("step", floats: [1], shape: [])
        p.constant("oneValue", floats: [1], shape: [])
        p.constant("two", ints: [2], shape: [])
        p.constant("oneInt", ints: [1], shape: [])
        p.constant("lower", ints: [-1], shape: [])
        p.constant("upper", ints: [0], shape: [])
        p.operation("shape", ["x": ["x"]], output: "sizes")
        p.operation("gather", ["x": ["sizes"], "indices": ["index"], "axis": ["axis"]], output: "length")
        p.operation("concat", ["values": ["length", "length"], "axis": ["axis"]], output: "square")
        p.operation("fill", ["shape": ["square"], "value": ["oneValue"]], output: "ones")
        p.operation("band_part", ["x": ["ones"], "lower": ["lower"], "upper": ["upper"]], output: "mask")
        p.constant("float", string: "fp32", shape: [])
        p.operation("cast", ["x": ["length"], "dtype": ["float"]], output: "end")
        p.operation("range_1d", ["start": ["zero"], "end": ["end"], "step": ["step"]], output: "positions")
        p.operation("concat", ["values": ["two", "oneInt"], "axis": ["axis"]], output: "reps")
        p.operation("expand_dims", ["x": ["positions"], "axes": ["axis"]], output: "row")
        p.operation("tile", ["x": ["row"], "reps": ["reps"]], output: "tiled")
        let result = try p.plan(outputs: ["mask", "tiled"]).run(["x": MILTensor(shape: [1, length], values: [Float](repeating: 0, count: length))])
        var mask = [Float](repeating: 0, count: length * length)
        for m in 0..<length { for n in 0...m { mask[m * length + n] = 1 } }
        #expect(result["mask"] == MILTensor(shape: [length, length], values: mask))
        let positions = (0..<length).map(Float.init)
        #expect(result["tiled"] == MILTensor(shape: [2, length], values: positions + positions))
    }

    /// A float16 value cast to an integer is rounded to float16 first, as Core ML holds it:
    /// 0.99978 is float16's 1.0 (its neighbours are 0.99951 and 1.0), so it truncates to 1, where
    /// the same value declared float32 truncates to 0.
    @Test func aFloat16CastToAnIntegerRoundsToFloat16First() throws {
        var p = Program()
        p.input("h", [3], .float16)
        p.input("f", [3])
        p.constant("int", string: "int32", shape: [])
        p.operation("cast", ["x": ["h"], "dtype": ["int"]], output: "fromHalf")
        p.operation("cast", ["x": ["f"], "dtype": ["int"]], output: "fromFloat")
        let values: [Float] = [0.9997836, -2.9998, 2.4]
        let result = try p.plan(outputs: ["fromHalf", "fromFloat"]).run(["h": MILTensor(shape: [3], values: values), "f": MILTensor(shape: [3], values: values)])
        #expect(result["fromHalf"] == MILTensor(shape: [3], values: [1, -3, 2]))
        #expect(result["fromFloat"] == MILTensor(shape: [3], values: [0, -2, 2]))
    }
}
