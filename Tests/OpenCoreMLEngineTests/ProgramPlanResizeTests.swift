import Foundation
import Testing
@testable import _OpenCoreMLEngine

/// iOS 17's `resize` and iOS 15's `resize_bilinear` and `resize_nearest_neighbor` on hand-built
/// programs: resampling [0, 1] gives the sampled grid itself, so each `sampling_mode` is checked
/// against the grid points coremltools documents for `resize_bilinear` (2 → 5 and 2 → 6);
/// nearest-neighbour sampling against coremltools' own tests of both operations; sizes from a
/// computed `shape`, a 0 that keeps the input's size, and what does not fit as errors.
/// Resize17.mlpackage checks `resize` against PyTorch and numpy.
@Suite("ML Program operations: resize")
struct ProgramPlanResizeTests {
    typealias Program = ProgramPlanTests.Program

    /// `[0, 1]` (shape [1, 1, 2]) resized along its last dimension to `count` in `mode`, by
    /// `resize` or (`bilinear`) by iOS 15's `resize_bilinear` to 1 × `count`.
    static func grid(_ mode: String, _ count: Int, bilinear: Bool = false) throws -> [Float] {
        var p = Program()
        p.input("x", [1, 1, 2])
        p.constant("mode", string: mode, shape: [])
        if bilinear {
            p.constant("width", ints: [Int32(count)], shape: [])
            p.operation("resize_bilinear", ["x": ["x"], "target_size_width": ["width"], "sampling_mode": ["mode"]], output: "y")
        } else {
            p.constant("shape", ints: [Int32(count)], shape: [1])
            p.constant("dims", ints: [1], shape: [])
            p.operation("resize", ["x": ["x"], "shape": ["shape"], "resized_dims": ["dims"], "sampling_mode": ["mode"]], output: "y")
        }
        let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 1, 2], values: [0, 1])])["y"]
        #expect(y?.shape == [1, 1, count])
        return y?.values ?? []
    }

    @Test(arguments: [
        ("UNALIGN_CORNERS", [0, 0.1, 0.5, 0.9, 1], [0, 0, 0.33, 0.67, 1, 1]),
        ("STRICT_ALIGN_CORNERS", [0, 0.25, 0.5, 0.75, 1], [0, 0.2, 0.4, 0.6, 0.8, 1]),
        ("ALIGN_CORNERS", [0, 0.25, 0.5, 0.75, 1], [0, 0.2, 0.4, 0.6, 0.8, 1]),
        ("DEFAULT", [0, 0.4, 0.8, 1, 1], [0, 0.33, 0.67, 1, 1, 1]),
        ("OFFSET_CORNERS", [0.1, 0.3, 0.5, 0.7, 0.9], [0.08, 0.25, 0.42, 0.58, 0.75, 0.92]),
    ] as [(String, [Float], [Float])])
    func eachSamplingModeSamplesCoremltoolsDocumentedGrid(mode: String, five: [Float], six: [Float]) throws {
        for (count, expected) in [(5, five), (6, six)] {
            for bilinear in [false, true] {
                let grid = try Self.grid(mode, count, bilinear: bilinear)
                #expect(grid.count == count && zip(grid, expected).allSatisfy { abs($0 - $1) <= 0.005 }, "\(mode) 2 → \(count) (\(bilinear ? "resize_bilinear" : "resize")): \(grid)")
            }
        }
        // One output: the middle of the input, except for STRICT_ALIGN_CORNERS and DEFAULT (the first sample).
        let one = try Self.grid(mode, 1)
        #expect(one == [["ALIGN_CORNERS", "OFFSET_CORNERS", "UNALIGN_CORNERS"].contains(mode) ? 0.5 : 0], "\(mode) 2 → 1: \(one)")
    }

    @Test func nearestNeighbourSizesFromAComputedShapeAndAZeroThatKeepsTheSize() throws {
        var p = Program()
        p.input("x", [1, 1, 2, 1])
        p.input("like", [1, 3, 2])
        p.constant("dims", ints: [2], shape: [])
        p.constant("nearest", string: "NEAREST_NEIGHBOR", shape: [])
        p.constant("keep_rows", ints: [0, 3], shape: [2])
        p.operation("shape", ["x": ["like"]], output: "target")
        p.operation("resize", ["x": ["x"], "shape": ["target"], "resized_dims": ["dims"], "interpolation_mode": ["nearest"]], output: "y")
        p.operation("resize", ["x": ["x"], "shape": ["keep_rows"], "resized_dims": ["dims"]], output: "z")
        let plan = try p.plan(outputs: ["y", "z"])
        let result = try plan.run(["x": MILTensor(shape: [1, 1, 2, 1], values: [-6.174, 9.371]),
                                   "like": MILTensor(shape: [1, 3, 2], values: [Float](repeating: 0, count: 6))])
        // coremltools' test of resize: 2 × 1 to 3 × 2 by nearest neighbour.
        #expect(result["y"] == MILTensor(shape: [1, 1, 3, 2], values: [-6.174, -6.174, 9.371, 9.371, 9.371, 9.371]))
        #expect(result["z"] == MILTensor(shape: [1, 1, 2, 3], values: [-6.174, -6.174, -6.174, 9.371, 9.371, 9.371]))
        // Another `like` resizes to another size with the same plan.
        let again = try plan.run(["x": MILTensor(shape: [1, 1, 2, 1], values: [-6.174, 9.371]),
                                  "like": MILTensor(shape: [1, 1, 1], values: [0])])
        #expect(again["y"] == MILTensor(shape: [1, 1, 1, 1], values: [9.371]))
    }

    /// coremltools' test of iOS 15's `resize_nearest_neighbor` (2 × 1 to 2 × 1 and to 2 × 3), and 2 × 1 to 3 × 1.
    @Test func resizeNearestNeighborToConstantSizes() throws {
        var p = Program()
        p.input("x", [1, 1, 2, 1])
        p.constant("two", ints: [2], shape: [])
        p.constant("one", ints: [1], shape: [])
        p.constant("three", ints: [3], shape: [])
        p.operation("resize_nearest_neighbor", ["x": ["x"], "target_size_height": ["two"], "target_size_width": ["one"]], output: "same")
        p.operation("resize_nearest_neighbor", ["x": ["x"], "target_size_height": ["two"], "target_size_width": ["three"]], output: "wider")
        p.operation("resize_nearest_neighbor", ["x": ["x"], "target_size_height": ["three"], "target_size_width": ["one"]], output: "taller")
        let result = try p.plan(outputs: ["same", "wider", "taller"]).run(["x": MILTensor(shape: [1, 1, 2, 1], values: [0.37, 6.17])])
        #expect(result["same"] == MILTensor(shape: [1, 1, 2, 1], values: [0.37, 6.17]))
        #expect(result["wider"] == MILTensor(shape: [1, 1, 2, 3], values: [0.37, 0.37, 0.37, 6.17, 6.17, 6.17]))
        // 2 → 3 reads inputs 0, 1, 1 (floor of 1/3, 1, 5/3), as resize's test above does.
        #expect(result["taller"] == MILTensor(shape: [1, 1, 3, 1], values: [0.37, 6.17, 6.17]))

        var q = Program()
        q.input("x", [1, 2, 1])
        q.operation("resize_nearest_neighbor", ["x": ["x"]], output: "y")
        #expect(throws: EngineError.self, "resize_nearest_neighbor needs its target sizes") { try q.plan(outputs: ["y"]) }
    }

    @Test func parametersThatDoNotFitAreErrors() throws {
        func plan(shape: [Int32], dims: Int32, interpolation: String = "LINEAR", sampling: String = "DEFAULT") throws -> ProgramPlan {
            var p = Program()
            p.input("x", [1, 2, 2])
            p.constant("shape", ints: shape, shape: [shape.count])
            p.constant("dims", ints: [dims], shape: [])
            p.constant("interpolation", string: interpolation, shape: [])
            p.constant("sampling", string: sampling, shape: [])
            p.operation("resize", ["x": ["x"], "shape": ["shape"], "resized_dims": ["dims"], "interpolation_mode": ["interpolation"],
                                   "sampling_mode": ["sampling"]], output: "y")
            return try p.plan(outputs: ["y"])
        }
        let x = ["x": MILTensor(shape: [1, 2, 2], values: [1, 2, 3, 4])]
        #expect(throws: EngineError.self, "resized_dims above the shape's size") { try plan(shape: [3], dims: 2).run(x) }
        #expect(throws: EngineError.self, "a shape longer than the rank") { try plan(shape: [1, 1, 3, 3], dims: 2).run(x) }
        #expect(throws: EngineError.self, "a negative size") { try plan(shape: [-3, 3], dims: 2).run(x) }
        #expect(throws: EngineError.self, "an unknown sampling mode") { try plan(shape: [3, 3], dims: 2, sampling: "CORNERS") }
        #expect(throws: EngineError.self, "an unknown interpolation") { try plan(shape: [3, 3], dims: 2, interpolation: "CUBIC") }
        #expect(throws: EngineError.self, "nearest with another sampling mode") {
            try plan(shape: [3, 3], dims: 2, interpolation: "NEAREST_NEIGHBOR", sampling: "ALIGN_CORNERS")
        }
        #expect(try plan(shape: [3, 3], dims: 0).run(x)["y"] == x["x"], "resized_dims 0 leaves x as it is")
    }
}
