import Testing
@testable import _OpenCoreMLEngine

/// The ML Program's reductions (`reduce_prod`, the norms, log-sums, arg-indices), `cumsum`,
/// `l2_norm`, `local_response_norm` and `l2_pool` on small programs. Expected values are NumPy's
/// or PyTorch's (the opsets' references), computed in the coremltools test environment by the
/// snippet beside each and rounded to 6 decimals.
@Suite("ML Program reductions and normalizations")
struct MILReductionOpsTests {
    typealias Program = ProgramPlanTests.Program

    // x = np.array([[[1,-2,3],[4,5,-6]],[[0.5,2,-1],[3,-3,2]]], dtype=np.float32)
    static let x = MILTensor(shape: [2, 2, 3], values: [1, -2, 3, 4, 5, -6, 0.5, 2, -1, 3, -3, 2])

    static func close(_ a: [Float]?, _ b: [Float], tolerance: Float = 2e-6) -> Bool {
        guard let a else { return false }
        return a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance * max(1, abs($1)) }
    }

    /// `type` over `axes` (every axis when nil) of `input`, with `keep_dims`.
    static func reduce(_ type: String, axes: [Int32]?, keepDims: Bool = false, _ input: MILTensor = x) throws -> MILTensor {
        var p = Program()
        p.input("x", input.shape)
        var inputs = ["x": ["x"]]
        if let axes {
            p.constant("axes", ints: axes, shape: [axes.count])
            inputs["axes"] = ["axes"]
        }
        if keepDims {
            p.constant("keep", ints: [1], shape: [])
            inputs["keep_dims"] = ["keep"]
        }
        p.operation(type, inputs, output: "y")
        return try #require(try p.plan(outputs: ["y"]).run(["x": input])["y"])
    }

    @Test func productNormsAndSums() throws {
        // np.prod / np.sum(np.abs) / np.sqrt(np.sum(x*x)) / np.sum(x*x) / np.log(np.sum(np.exp(x))) over axis 1, axes (0, 2), all.
        let cases: [(String, [Float], [Float], Float)] = [
            ("reduce_prod", [4.0, -10.0, -18.0, 1.5, -6.0, -2.0], [6.0, 2160.0], 12960.0),
            ("reduce_l1_norm", [5.0, 7.0, 9.0, 3.5, 5.0, 3.0], [9.5, 23.0], 32.5),
            ("reduce_l2_norm", [4.123106, 5.385165, 6.708204, 3.041381, 3.605551, 2.236068], [4.387482, 9.949874], 10.874282),
            ("reduce_sum_square", [17.0, 29.0, 45.0, 9.25, 13.0, 5.0], [19.25, 99.0], 118.25),
            ("reduce_log_sum_exp", [4.048587, 5.000911, 3.000124, 3.07889, 2.006715, 2.048587], [3.476454, 5.440416], 5.571709),
        ]
        for (type, middle, outer, all) in cases {
            let byMiddle = try Self.reduce(type, axes: [1])
            #expect(byMiddle.shape == [2, 3])
            #expect(Self.close(byMiddle.values, middle), "\(type) axis 1: \(byMiddle.values)")
            let byOuter = try Self.reduce(type, axes: [0, -1], keepDims: true)
            #expect(byOuter.shape == [1, 2, 1])
            #expect(Self.close(byOuter.values, outer), "\(type) axes 0, 2: \(byOuter.values)")
            let byAll = try Self.reduce(type, axes: nil)
            #expect(byAll.shape == [])
            #expect(Self.close(byAll.values, [all]), "\(type) all: \(byAll.values)")
        }
        // np.log(np.sum(np.abs(x) + 1, axis=2))
        var positive = Self.x
        positive.values = positive.values.map { abs($0) + 1 }
        #expect(Self.close(try Self.reduce("reduce_log_sum", axes: [2], positive).values, [2.197225, 2.890372, 1.871802, 2.397895]))
    }

    @Test func logSumExpDoesNotOverflow() throws {
        // [np.logaddexp.reduce(r.astype(np.float64)) for r in [[1000,1001,999],[-1000,-1001,-999]]]
        let big = MILTensor(shape: [2, 3], values: [1000, 1001, 999, -1000, -1001, -999])
        let y = try Self.reduce("reduce_log_sum_exp", axes: [1], big)
        #expect(Self.close(y.values, [1001.4076059644443, -998.5923940355556]), "\(y.values)")
    }

    @Test func emptyReductions() throws {
        // np.prod / np.sum over an axis of size 0: 1 and 0; log Σ of nothing: −∞.
        let empty = MILTensor(shape: [2, 0], values: [])
        #expect(try Self.reduce("reduce_prod", axes: [1], empty).values == [1, 1])
        #expect(try Self.reduce("reduce_l2_norm", axes: [1], empty).values == [0, 0])
        #expect(try Self.reduce("reduce_log_sum_exp", axes: [1], empty).values == [-.infinity, -.infinity])
        // Reducing no values at all along an axis that is not empty gives an empty result.
        #expect(try Self.reduce("reduce_prod", axes: [0], empty).shape == [0])
    }

    /// `reduce_argmax` or `reduce_argmin` along `axis`.
    static func argIndex(_ type: String, axis: Int32, keepDims: Bool = false, _ input: MILTensor) throws -> MILTensor {
        var p = Program()
        p.input("x", input.shape)
        p.constant("axis", ints: [axis], shape: [])
        p.constant("keep", ints: [keepDims ? 1 : 0], shape: [])
        p.operation(type, ["x": ["x"], "axis": ["axis"], "keep_dims": ["keep"]], output: "y")
        return try #require(try p.plan(outputs: ["y"]).run(["x": input])["y"])
    }

    @Test func argIndicesTakeTheFirstTieAndTheFirstNaN() throws {
        // a = np.array([[3,1,3,2],[nan,5,nan,1],[2,2,2,2]], np.float32)
        // np.argmax(a, 1) = [0 0 0], np.argmin(a, 1) = [1 0 0], np.argmax(a, 0) = [1 1 1 0], np.argmin(a, 0) = [1 0 1 1]
        let a = MILTensor(shape: [3, 4], values: [3, 1, 3, 2, .nan, 5, .nan, 1, 2, 2, 2, 2])
        #expect(try Self.argIndex("reduce_argmax", axis: 1, a) == MILTensor(shape: [3], values: [0, 0, 0]))
        #expect(try Self.argIndex("reduce_argmin", axis: -1, keepDims: true, a) == MILTensor(shape: [3, 1], values: [1, 0, 0]))
        #expect(try Self.argIndex("reduce_argmax", axis: 0, a) == MILTensor(shape: [4], values: [1, 1, 1, 0]))
        #expect(try Self.argIndex("reduce_argmin", axis: 0, keepDims: true, a) == MILTensor(shape: [1, 4], values: [1, 0, 1, 1]))
        #expect(throws: (any Error).self) { try Self.argIndex("reduce_argmax", axis: 1, MILTensor(shape: [2, 0], values: [])) }
    }

    @Test func cumulativeSumForwardBackwardExclusive() throws {
        // c = np.array([[1,2,3,4],[5,6,7,8]], np.float32); np.cumsum(c, 1), its exclusive and reversed forms, np.cumsum(c, 0)
        let c = MILTensor(shape: [2, 4], values: [1, 2, 3, 4, 5, 6, 7, 8])
        func cumsum(axis: Int32, exclusive: Bool, reverse: Bool) throws -> [Float]? {
            var p = Program()
            p.input("x", [2, 4])
            p.constant("axis", ints: [axis], shape: [])
            p.constant("exclusive", ints: [exclusive ? 1 : 0], shape: [])
            p.constant("reverse", ints: [reverse ? 1 : 0], shape: [])
            p.operation("cumsum", ["x": ["x"], "axis": ["axis"], "exclusive": ["exclusive"], "reverse": ["reverse"]], output: "y")
            return try p.plan(outputs: ["y"]).run(["x": c])["y"]?.values
        }
        #expect(try cumsum(axis: 1, exclusive: false, reverse: false) == [1, 3, 6, 10, 5, 11, 18, 26])
        #expect(try cumsum(axis: 1, exclusive: true, reverse: false) == [0, 1, 3, 6, 0, 5, 11, 18])
        #expect(try cumsum(axis: -1, exclusive: false, reverse: true) == [10, 9, 7, 4, 26, 21, 15, 8])
        #expect(try cumsum(axis: 1, exclusive: true, reverse: true) == [9, 7, 4, 0, 21, 15, 8, 0])
        #expect(try cumsum(axis: 0, exclusive: false, reverse: false) == [1, 2, 3, 4, 6, 8, 10, 12])
    }

    @Test func l2NormOverTheLastThreeDimensions() throws {
        // y = np.arange(1, 13, dtype=np.float32).reshape(2,2,1,3) * [1,-1,1]; r = y.reshape(2,-1)
        // r / np.sqrt(np.sum(r*r, axis=1, keepdims=True) + 1e-6)
        var p = Program()
        p.input("x", [2, 2, 1, 3])
        p.operation("l2_norm", ["x": ["x"]], output: "y")
        let x = MILTensor(shape: [2, 2, 1, 3], values: (1...12).map { Float($0) * ($0 % 3 == 2 ? -1 : 1) })
        let y = try p.plan(outputs: ["y"]).run(["x": x])["y"]
        #expect(Self.close(y?.values, [0.104828, -0.209657, 0.314485, 0.419314, -0.524142, 0.628971,
                                        0.296068, -0.338364, 0.380659, 0.422955, -0.46525, 0.507546], tolerance: 2e-6))
    }

    @Test func localResponseNormMatchesPyTorch() throws {
        // z = np.array([[[1,2],[-3,4],[5,-6],[7,8]]], np.float32)  (1×4×2)
        // torch.nn.LocalResponseNorm(size=s, alpha=0.5, beta=0.75, k=2.0)(torch.tensor(z)) for s = 2, 3
        let expected: [Int32: [Float]] = [
            2: [0.544331, 0.877383, -0.970984, 0.929472, 0.857192, -0.787196, 0.726579, 0.675409],
            3: [0.377395, 0.569877, -0.64071, 0.647577, 0.629928, -0.604446, 0.950249, 0.89082],
        ]
        for (size, values) in expected {
            var p = Program()
            p.input("x", [1, 4, 2])
            p.constant("size", ints: [size], shape: [])
            p.constant("alpha", floats: [0.5], shape: [])
            p.constant("beta", floats: [0.75], shape: [])
            p.constant("k", floats: [2], shape: [])
            p.operation("local_response_norm", ["x": ["x"], "size": ["size"], "alpha": ["alpha"], "beta": ["beta"], "k": ["k"]], output: "y")
            let y = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [1, 4, 2], values: [1, 2, -3, 4, 5, -6, 7, 8])])["y"]
            #expect(Self.close(y?.values, values, tolerance: 3e-6), "size \(size): \(y?.values ?? [])")
        }
    }

    @Test func l2PoolingInOneAndTwoDimensions() throws {
        // q = [[1,-2,3],[4,0,-1],[2,2,-3]]: √Σ of each 2×2 window's squares, stride 1.
        var p = Program()
        p.input("x", [1, 1, 3, 3])
        p.input("w", [1, 1, 5])
        p.constant("kernel", ints: [2, 2], shape: [2])
        p.constant("kernel1", ints: [2], shape: [1])
        p.constant("stride1", ints: [2], shape: [1])
        p.constant("valid", string: "valid", shape: [])
        p.operation("l2_pool", ["x": ["x"], "kernel_sizes": ["kernel"], "pad_type": ["valid"]], output: "y")
        p.operation("l2_pool", ["x": ["w"], "kernel_sizes": ["kernel1"], "strides": ["stride1"], "pad_type": ["valid"]], output: "v")
        let result = try p.plan(outputs: ["y", "v"]).run([
            "x": MILTensor(shape: [1, 1, 3, 3], values: [1, -2, 3, 4, 0, -1, 2, 2, -3]),
            "w": MILTensor(shape: [1, 1, 5], values: [3, 4, -12, 5, 0]),
        ])
        #expect(result["y"]?.shape == [1, 1, 2, 2])
        #expect(Self.close(result["y"]?.values, [4.582575798034668, 3.7416574954986572, 4.898979663848877, 3.7416574954986572]))
        // √(3² + 4²), √(12² + 5²); the last value has no full window.
        #expect(result["v"] == MILTensor(shape: [1, 1, 2], values: [5, 13]))
    }
}
