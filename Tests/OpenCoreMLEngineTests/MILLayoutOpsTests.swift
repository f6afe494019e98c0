import Testing
@testable import _OpenCoreMLEngine

/// The layout and indexing operations of issue #29 (`pixel_shuffle` … `slice_update`) against
/// values computed by NumPy / PyTorch (the snippet producing each is quoted beside it; `r` is
/// `np.arange(24, dtype=np.float32).reshape(2, 3, 4)`), and their untrusted indices as errors.
@Suite("ML Program operations: layout and indexing")
struct MILLayoutOpsTests {
    typealias Program = ProgramPlanTests.Program

    /// `x` (input `xName`, values `xValues` or 0, 1, 2, …, shape `shape`) through one operation of `type`, with integer
    /// constants `ints` (name → values and shape), float constants and strings.
    static func run(_ type: String, _ shape: [Int], ints: [String: ([Int32], [Int])] = [:], floats: [String: [Float]] = [:],
                    strings: [String: String] = [:], extra: [String: MILTensor] = [:], xName: String = "x",
                    xValues: [Float]? = nil) throws -> MILTensor {
        var p = Program()
        p.input(xName, shape)
        var inputs = [xName: [xName]]
        for (name, tensor) in extra {
            p.input(name, tensor.shape)
            inputs[name] = [name]
        }
        for (name, (values, constantShape)) in ints {
            p.constant("c_\(name)", ints: values, shape: constantShape)
            inputs[name] = ["c_\(name)"]
        }
        for (name, values) in floats {
            p.constant("c_\(name)", floats: values, shape: [])
            inputs[name] = ["c_\(name)"]
        }
        for (name, value) in strings {
            p.constant("c_\(name)", string: value, shape: [])
            inputs[name] = ["c_\(name)"]
        }
        p.operation(type, inputs, output: "y")
        var feeds = extra
        feeds[xName] = MILTensor(shape: shape, values: xValues ?? (0..<shape.reduce(1, *)).map(Float.init))
        let result = try p.plan(outputs: ["y"]).run(feeds)
        return try #require(result["y"])
    }

    /// The error message running `type` gives (nil when it runs).
    static func failure(_ body: () throws -> MILTensor) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as EngineError {
            return error.description
        } catch {
            return "unexpected \(error)"
        }
    }

    static func scalar(_ value: Int32) -> ([Int32], [Int]) { ([value], []) }

    // MARK: Channels and space

    /// Channels into space and back, by a block of 2: `pixel_shuffle` and `pixel_unshuffle` are
    /// PyTorch's (CRD), `depth_to_space` and `space_to_depth` TensorFlow's (DCR).
    @Test(arguments: [
        // torch.pixel_shuffle(torch.arange(48.).reshape(1, 8, 2, 3), 2)
        ("pixel_shuffle", "upscale_factor", [1, 8, 2, 3], [1, 2, 4, 6], [
            0, 6, 1, 7, 2, 8, 12, 18, 13, 19, 14, 20, 3, 9, 4, 10,
            5, 11, 15, 21, 16, 22, 17, 23, 24, 30, 25, 31, 26, 32, 36, 42,
            37, 43, 38, 44, 27, 33, 28, 34, 29, 35, 39, 45, 40, 46, 41, 47
        ]),
        // torch.pixel_unshuffle(torch.arange(48.).reshape(1, 2, 4, 6), 2)
        ("pixel_unshuffle", "downscale_factor", [1, 2, 4, 6], [1, 8, 2, 3], [
            0, 2, 4, 12, 14, 16, 1, 3, 5, 13, 15, 17, 6, 8, 10, 18, 20, 22, 7, 9, 11, 19, 21, 23,
            24, 26, 28, 36, 38, 40, 25, 27, 29, 37, 39, 41, 30, 32, 34, 42, 44, 46, 31, 33, 35, 43, 45, 47
        ]),
        // np.arange(48.).reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
        ("depth_to_space", "block_size", [1, 8, 2, 3], [1, 2, 4, 6], [
            0, 12, 1, 13, 2, 14, 24, 36, 25, 37, 26, 38,
            3, 15, 4, 16, 5, 17, 27, 39, 28, 40, 29, 41,
            6, 18, 7, 19, 8, 20, 30, 42, 31, 43, 32, 44,
            9, 21, 10, 22, 11, 23, 33, 45, 34, 46, 35, 47
        ]),
        // np.arange(48.).reshape(1, 2, 2, 2, 3, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 8, 2, 3)
        ("space_to_depth", "block_size", [1, 2, 4, 6], [1, 8, 2, 3], [
            0, 2, 4, 12, 14, 16, 24, 26, 28, 36, 38, 40, 1, 3, 5, 13, 15, 17, 25, 27, 29, 37, 39, 41, 6, 8, 10, 18, 20, 22, 30, 32, 34, 42, 44, 46, 7, 9, 11, 19, 21, 23, 31, 33, 35, 43, 45, 47
        ]),
    ] as [(String, String, [Int], [Int], [Float])])
    func blockRearrangements(type: String, parameter: String, shape: [Int], expectedShape: [Int], expected: [Float]) throws {
        #expect(try Self.run(type, shape, ints: [parameter: Self.scalar(2)]) == MILTensor(shape: expectedShape, values: expected))
    }

    @Test func blockThatDoesNotFitIsAnError() {
        let message = Self.failure { try Self.run("depth_to_space", [1, 6, 2, 3], ints: ["block_size": Self.scalar(2)]) }
        #expect(message?.contains("does not fit input [1, 6, 2, 3]") == true, "\(message ?? "no error")")
    }

    /// Block sizes from a file whose products pass `Int` (8 · 2⁶⁰ channels, on an empty input the
    /// divisibility checks let through) are an error, not an overflow.
    @Test func blocksTooLargeToCountAreAnError() {
        let unshuffle = Self.failure { try Self.run("pixel_unshuffle", [1, 8, 0, 0], ints: ["downscale_factor": Self.scalar(1 << 30)]) }
        #expect(unshuffle?.contains("too large to count") == true, "\(unshuffle ?? "no error")")
        let toBatch = Self.failure {
            try Self.run("space_to_batch", [8, 1, 0, 0], ints: ["block_shape": ([1 << 30, 1 << 30], [2]), "paddings": ([0, 0, 0, 0], [2, 2])])
        }
        #expect(toBatch?.contains("too large to count") == true, "\(toBatch ?? "no error")")
    }

    @Test func spaceToBatchAndBatchToSpace() throws {
        // p = np.pad(np.arange(24.).reshape(1, 2, 3, 4), ((0, 0), (0, 0), (1, 0), (0, 2)))
        // p.reshape(1, 2, 2, 2, 2, 3).transpose(3, 5, 0, 1, 2, 4).reshape(6, 2, 2, 2)
        let toBatch = try Self.run("space_to_batch", [1, 2, 3, 4], ints: ["block_shape": ([2, 3], [2]), "paddings": ([1, 0, 0, 2], [2, 2])])
        #expect(toBatch == MILTensor(shape: [6, 2, 2, 2], values: [
            0, 0, 4, 7, 0, 0, 16, 19, 0, 0, 5, 0, 0, 0, 17, 0, 0, 0, 6, 0, 0, 0, 18, 0,
            0, 3, 8, 11, 12, 15, 20, 23, 1, 0, 9, 0, 13, 0, 21, 0, 2, 0, 10, 0, 14, 0, 22, 0]))
        // np.arange(24.).reshape(2, 3, 1, 1, 2, 2).transpose(2, 3, 4, 0, 5, 1).reshape(1, 1, 4, 6)[:, :, 1:, :-1]
        let toSpace = try Self.run("batch_to_space", [6, 1, 2, 2], ints: ["block_shape": ([2, 3], [2]), "crops": ([1, 0, 0, 1], [2, 2])])
        #expect(toSpace == MILTensor(shape: [1, 1, 3, 5], values: [12, 16, 20, 13, 17, 2, 6, 10, 3, 7, 14, 18, 22, 15, 19]))
        let message = Self.failure { try Self.run("batch_to_space", [4, 1, 2, 2], ints: ["block_shape": ([2, 3], [2]), "crops": ([0, 0, 0, 0], [2, 2])]) }
        #expect(message?.contains("batch a multiple") == true, "\(message ?? "no error")")
        let crop = Self.failure { try Self.run("batch_to_space", [6, 1, 2, 2], ints: ["block_shape": ([2, 3], [2]), "crops": ([3, 2, 0, 0], [2, 2])]) }
        #expect(crop?.contains("take more than") == true, "\(crop ?? "no error")")
    }

    // MARK: Order

    @Test func reverseReverseSequenceAndSlidingWindows() throws {
        // np.flip(np.flip(r, 0), -1)
        #expect(try Self.run("reverse", [2, 3, 4], ints: ["axes": ([0, -1], [2])]) == MILTensor(shape: [2, 3, 4], values: [
            15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]))
        // s = r.copy(); for b, l in enumerate([3, 1]): s[b, :l] = r[b, :l][::-1]
        let lengths = MILTensor(shape: [2], values: [3, 1])
        let reversed = try Self.run("reverse_sequence", [2, 3, 4], ints: ["seq_axis": Self.scalar(1), "batch_axis": Self.scalar(0)], extra: ["lengths": lengths])
        #expect(reversed == MILTensor(shape: [2, 3, 4], values: [8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3] + (12..<24).map(Float.init)))
        let tooLong = Self.failure {
            try Self.run("reverse_sequence", [2, 3, 4], ints: ["seq_axis": Self.scalar(1)], extra: ["lengths": MILTensor(shape: [2], values: [4, 0])])
        }
        #expect(tooLong?.contains("lengths in 0...3") == true, "\(tooLong ?? "no error")")
        // np.lib.stride_tricks.sliding_window_view(np.arange(10.).reshape(2, 5), 2, axis=1)[:, ::2]
        #expect(try Self.run("sliding_windows", [2, 5], ints: ["axis": Self.scalar(-1), "size": Self.scalar(2), "stride": Self.scalar(2)])
                == MILTensor(shape: [2, 2, 2], values: [0, 1, 2, 3, 5, 6, 7, 8]))
    }

    @Test func flatten2dAndReshapeLike() throws {
        #expect(try Self.run("flatten2d", [2, 3, 4], ints: ["axis": Self.scalar(-1)]).shape == [6, 4])
        #expect(try Self.run("flatten2d", [3], ints: ["axis": Self.scalar(1)]).shape == [3, 1])
        #expect(try Self.run("flatten2d", [3], ints: ["axis": Self.scalar(-1)]).shape == [1, 3])
        // ref_tensors [2, 3, 4] and [1, 6]: shape [2, 3, 4][0:1] + [1, 6][1:] = [2, 6] (the doc's rule)
        var p = Program()
        p.input("x", [3, 4])
        p.input("a", [2, 3, 4])
        p.input("b", [1, 6])
        p.constant("zero", ints: [0], shape: [])
        p.constant("one", ints: [1], shape: [])
        p.constant("no", ints: [0], shape: [])
        p.constant("yes", ints: [1], shape: [])
        p.operation("reshape_like", ["x": ["x"], "ref_tensors": ["a", "b"], "begins": ["zero", "one"], "ends": ["one", "zero"],
                                     "end_masks": ["no", "yes"]], output: "y")
        let values = (0..<12).map(Float.init)
        let result = try p.plan(outputs: ["y"]).run(["x": MILTensor(shape: [3, 4], values: values),
                                                     "a": MILTensor(shape: [2, 3, 4], values: .init(repeating: 0, count: 24)),
                                                     "b": MILTensor(shape: [1, 6], values: .init(repeating: 0, count: 6))])
        #expect(result["y"] == MILTensor(shape: [2, 6], values: values))
    }

    // MARK: Indices

    @Test func gatherND() throws {
        // np.stack([r[tuple(i)] for i in [[1, -1], [0, 2]]])
        let indices = MILTensor(shape: [2, 2], values: [1, -1, 0, 2])
        #expect(try Self.run("gather_nd", [2, 3, 4], extra: ["indices": indices]) == MILTensor(shape: [2, 4], values: [20, 21, 22, 23, 8, 9, 10, 11]))
        // batch_dims 1, indices [[[2]], [[-3]]]: [[r[0][2]], [r[1][-3]]]
        let batched = try Self.run("gather_nd", [2, 3, 4], ints: ["batch_dims": Self.scalar(1)], extra: ["indices": MILTensor(shape: [2, 1, 1], values: [2, -3])])
        #expect(batched == MILTensor(shape: [2, 1, 4], values: [8, 9, 10, 11, 12, 13, 14, 15]))
        let outside = Self.failure { try Self.run("gather_nd", [2, 3, 4], extra: ["indices": MILTensor(shape: [1, 2], values: [0, 3])]) }
        #expect(outside?.contains("index 3.0 is out of range") == true, "\(outside ?? "no error")")
        let deep = Self.failure { try Self.run("gather_nd", [2, 3, 4], extra: ["indices": MILTensor(shape: [1, 4], values: [0, 0, 0, 0])]) }
        #expect(deep?.contains("do not index x") == true, "\(deep ?? "no error")")
    }

    @Test func scatterNDAndAlongAxis() throws {
        // d = np.arange(6.).reshape(2, 3); np.add.at(d, ([1, 0, 1], [0, -1, 0]), [10, 20, 30])
        let added = try Self.run("scatter_nd", [2, 3], extra: ["indices": MILTensor(shape: [3, 2], values: [1, 0, 0, -1, 1, 0]),
                                                              "updates": MILTensor(shape: [3], values: [10, 20, 30])], xName: "data")
        #expect(added == MILTensor(shape: [2, 3], values: [0, 1, 22, 43, 4, 5]))
        // Whole rows: d[0, :] = np.maximum(d[0, :], 100)
        let rows = try Self.run("scatter_nd", [2, 3], strings: ["mode": "max"],
                                extra: ["indices": MILTensor(shape: [1, 1], values: [0]), "updates": MILTensor(shape: [1, 3], values: [100, 100, 100])],
                                xName: "data")
        #expect(rows == MILTensor(shape: [2, 3], values: [100, 100, 100, 3, 4, 5]))
        // for i, j: k = ind[i, j] % 3; d[i, k] = max(d[i, k], up[i, j]), ind [[2, 0], [-1, 1]], up [[9, -9], [7, 0.5]]
        let along = try Self.run("scatter_along_axis", [2, 3], ints: ["axis": Self.scalar(1)], strings: ["mode": "max"],
                                 extra: ["indices": MILTensor(shape: [2, 2], values: [2, 0, -1, 1]), "updates": MILTensor(shape: [2, 2], values: [9, -9, 7, 0.5])],
                                 xName: "data")
        #expect(along == MILTensor(shape: [2, 3], values: [0, 1, 9, 3, 4, 7]))
        let outside = Self.failure {
            try Self.run("scatter_along_axis", [2, 3], ints: ["axis": Self.scalar(1)],
                         extra: ["indices": MILTensor(shape: [2, 1], values: [3, 0]), "updates": MILTensor(shape: [2, 1], values: [1, 1])], xName: "data")
        }
        #expect(outside?.contains("index 3.0 is out of range") == true, "\(outside ?? "no error")")
        let farOutside = Self.failure {
            try Self.run("scatter_nd", [2, 3], extra: ["indices": MILTensor(shape: [1, 2], values: [0, -4]), "updates": MILTensor(shape: [1], values: [1])],
                         xName: "data")
        }
        #expect(farOutside?.contains("index -4.0 is out of range") == true, "\(farOutside ?? "no error")")
        // iOS 17's scatters (with validate_indices) take no negative index.
        let negative = Self.failure {
            try Self.run("scatter_nd", [2, 3], ints: ["validate_indices": Self.scalar(1)],
                         extra: ["indices": MILTensor(shape: [1, 2], values: [0, -1]), "updates": MILTensor(shape: [1], values: [1])], xName: "data")
        }
        #expect(negative?.contains("index -1.0 is negative") == true, "\(negative ?? "no error")")
        let mode = Self.failure { try Self.run("scatter_nd", [2, 3], strings: ["mode": "xor"], extra: ["indices": MILTensor(shape: [1, 1], values: [0]),
                                                                                                       "updates": MILTensor(shape: [1, 3], values: [1, 1, 1])], xName: "data") }
        #expect(mode?.contains("scatter mode 'xor'") == true, "\(mode ?? "no error")")
    }

    @Test func oneHotAndNonZero() throws {
        // indices [2, -1, 5], size 4, axis 0: column i holds 1 at row indices[i] when 0 <= indices[i] < 4 (TensorFlow's rule)
        let hot = try Self.run("one_hot", [3], ints: ["one_hot_vector_size": Self.scalar(4), "axis": Self.scalar(0)],
                               floats: ["on_value": [1], "off_value": [0]], xName: "indices", xValues: [2, -1, 5])
        #expect(hot == MILTensor(shape: [4, 3], values: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]))
        // np.argwhere([[3, 0, 0], [0, 4, -2]])
        #expect(try Self.run("non_zero", [2, 3], xValues: [3, 0, 0, 0, 4, -2]) == MILTensor(shape: [3, 2], values: [0, 0, 1, 1, 1, 2]))
        #expect(try Self.run("non_zero", [2, 3], xValues: [0, 0, 0, 0, 0, 0]) == MILTensor(shape: [0, 2], values: []))
    }

    @Test func sliceUpdateAndNegativeStrides() throws {
        // r[0:2, -1::-1, 3::-2]
        let slice = try Self.run("slice_by_index", [2, 3, 4], ints: ["begin": ([0, -1, 3], [3]), "end": ([2, 0, 0], [3]), "stride": ([1, -1, -2], [3]),
                                                                     "end_mask": ([0, 1, 1], [3])])
        #expect(slice == MILTensor(shape: [2, 3, 2], values: [11, 9, 7, 5, 3, 1, 23, 21, 19, 17, 15, 13]))
        // s = r.copy(); s[0:2, -1::-1, 3::-2] = -np.arange(1, 13.).reshape(2, 3, 2)
        let update = MILTensor(shape: [2, 3, 2], values: (1...12).map { -Float($0) })
        let updated = try Self.run("slice_update", [2, 3, 4], ints: ["begin": ([0, -1, 3], [3]), "end": ([2, 0, 0], [3]), "stride": ([1, -1, -2], [3]),
                                                                     "end_mask": ([0, 1, 1], [3])], extra: ["update": update])
        #expect(updated == MILTensor(shape: [2, 3, 4], values: [0, -6, 2, -5, 4, -4, 6, -3, 8, -2, 10, -1, 12, -12, 14, -11, 16, -10, 18, -9, 20, -8, 22, -7]))
        // s = r.copy(); s[1, :, 1:3] = [[-1, -2], [-3, -4], [-5, -6]]
        let squeezed = try Self.run("slice_update", [2, 3, 4], ints: ["begin": ([1, 0, 1], [3]), "end": ([2, 3, 3], [3]), "squeeze_mask": ([1, 0, 0], [3])],
                                    extra: ["update": MILTensor(shape: [3, 2], values: [-1, -2, -3, -4, -5, -6])])
        #expect(squeezed == MILTensor(shape: [2, 3, 4], values: (0..<12).map(Float.init) + [12, -1, -2, 15, 16, -3, -4, 19, 20, -5, -6, 23]))
        let wrong = Self.failure {
            try Self.run("slice_update", [2, 3, 4], ints: ["begin": ([1, 0, 1], [3]), "end": ([2, 3, 3], [3])], extra: ["update": MILTensor(shape: [2, 2], values: [1, 2, 3, 4])])
        }
        #expect(wrong?.contains("update [2, 2] must be [1, 3, 2]") == true, "\(wrong ?? "no error")")
    }

    // MARK: The strided copy

    @Test func stridedCopyTransposesAboveTheKernelsRank() throws {
        // np.arange(16.).reshape(2, 1, 2, 1, 1, 2, 1, 1, 2).transpose(8, 7, 6, 5, 4, 3, 2, 1, 0)
        let shape = [2, 1, 2, 1, 1, 2, 1, 1, 2]
        let y = try Self.run("transpose", shape, ints: ["perm": ((0..<9).reversed().map(Int32.init), [9])])
        #expect(y == MILTensor(shape: shape.reversed(), values: [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15]))
        // Layout.scatter undoes Layout.gather.
        let rearrangement = Layout.transpose(shape, (0..<9).reversed())
        let x = (0..<16).map(Float.init)
        var gathered = [Float](repeating: 0, count: 16), back = [Float](repeating: 0, count: 16)
        x.withUnsafeBufferPointer { x in gathered.withUnsafeMutableBufferPointer { Layout.gather(x.baseAddress!, rearrangement.view, into: $0.baseAddress!) } }
        gathered.withUnsafeBufferPointer { g in back.withUnsafeMutableBufferPointer { Layout.scatter(g.baseAddress!, into: $0.baseAddress!, rearrangement.view) } }
        #expect(gathered == y.values)
        #expect(back == x)
        #expect(StridedView(shape: [2, 3], strides: [3, -1], offset: 1).fits(within: 6) == false)
        #expect(StridedView(shape: [2, 3], strides: [3, -1], offset: 2).fits(within: 6))
    }
}
