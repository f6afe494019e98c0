import _OpenCoreMLKernels

/// A convolution and its transpose over up to three spatial axes (an ML Program's 3-D `conv` and
/// `conv_transpose`), by im2col and one GEMM per image and group: the general path, where
/// ``Conv2DPlan`` runs the 1-D (as 2-D with height 1) and 2-D cases with its fast paths.
///
/// Sizes are given for one to three spatial axes; fewer than three are taken as leading axes of size 1.
package struct ConvolutionND: Sendable {
    /// The window of a kernel over one input, per spatial axis (three, leading ones of size 1).
    package struct Window: Sendable, Equatable {
        package var input: [Int]
        package var output: [Int]
        package var kernel: [Int]
        package var stride: [Int]
        package var dilation: [Int]
        /// Padding before each axis (what a window starting at output 0 reads before the input).
        package var padBefore: [Int]

        /// A window from per-axis sizes (one to three axes each, all the same count).
        package init(input: [Int], output: [Int], kernel: [Int], stride: [Int], dilation: [Int], padBefore: [Int]) {
            func three(_ values: [Int], _ fill: Int) -> [Int] { Array(repeating: fill, count: max(0, 3 - values.count)) + values }
            (self.input, self.output, self.kernel) = (three(input, 1), three(output, 1), three(kernel, 1))
            (self.stride, self.dilation, self.padBefore) = (three(stride, 1), three(dilation, 1), three(padBefore, 0))
        }

        package var inputCount: Int { input.reduce(1, *) }
        package var outputCount: Int { output.reduce(1, *) }
        package var kernelCount: Int { kernel.reduce(1, *) }

        /// Per axis and kernel tap, per output position along that axis: the input position it
        /// reads, or -1 in the padding.
        private func sources(_ axis: Int) -> [[Int]] {
            (0..<kernel[axis]).map { k in
                (0..<output[axis]).map { o in
                    let i = o * stride[axis] - padBefore[axis] + k * dilation[axis]
                    return i >= 0 && i < input[axis] ? i : -1
                }
            }
        }

        /// Walks every (channel, tap) row of the unfolded columns and every output position,
        /// giving `body(row, column, inputOffset)` for positions inside the input.
        private func walk(channels: Int, _ body: (_ row: Int, _ column: Int, _ input: Int?) -> Void) {
            let (s0, s1, s2) = (sources(0), sources(1), sources(2))
            var row = 0
            for c in 0..<channels {
                let plane = c * inputCount
                for k0 in 0..<kernel[0] {
                    for k1 in 0..<kernel[1] {
                        for k2 in 0..<kernel[2] {
                            var column = 0
                            for i0 in s0[k0] {
                                for i1 in s1[k1] {
                                    let base = plane + (i0 * input[1] + i1) * input[2]
                                    for i2 in s2[k2] {
                                        body(row, column, i0 < 0 || i1 < 0 || i2 < 0 ? nil : base + i2)
                                        column += 1
                                    }
                                }
                            }
                            row += 1
                        }
                    }
                }
            }
        }

        /// `channels` planes of `x` unfolded into `columns` (`channels · kernelCount` rows of
        /// `outputCount`): row (c, k), column o holds the input value tap k of output o reads in
        /// channel c, 0 in the padding.
        package func unfold(_ x: UnsafePointer<Float>, channels: Int, into columns: UnsafeMutablePointer<Float>) {
            let width = outputCount
            walk(channels: channels) { row, column, input in columns[row * width + column] = input.map { x[$0] } ?? 0 }
        }

        /// The adjoint of ``unfold(_:channels:into:)``: each column value added into the input
        /// position it would have been read from (`y` is `channels` planes of `input`).
        package func fold(_ columns: UnsafePointer<Float>, channels: Int, into y: UnsafeMutablePointer<Float>) {
            let width = outputCount
            walk(channels: channels) { row, column, input in
                if let input { y[input] += columns[row * width + column] }
            }
        }
    }

    package var inChannels: Int
    package var outChannels: Int
    package var groups: Int
    package var window: Window

    package init(inChannels: Int, outChannels: Int, groups: Int, window: Window) {
        (self.inChannels, self.outChannels, self.groups, self.window) = (inChannels, outChannels, groups, window)
    }

    /// Scratch floats ``forward`` and ``transpose`` need.
    package var scratchFloats: Int { (inChannels / groups) * window.kernelCount * window.outputCount }
    package var transposeScratchFloats: Int { (outChannels / groups) * window.kernelCount * window.outputCount }

    /// `images` convolutions of `x` (`inChannels × window.input`) by `weights`
    /// (`outChannels × inChannels/groups × kernel`) into `y` (`outChannels × window.output` each),
    /// `bias` (one per output channel) added.
    package func forward(_ x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, into y: UnsafeMutablePointer<Float>,
                         images: Int, scratch columns: UnsafeMutablePointer<Float>) {
        let (perGroup, outPerGroup) = (inChannels / groups, outChannels / groups)
        let (patch, positions, plane) = (perGroup * window.kernelCount, window.outputCount, window.inputCount)
        for image in 0..<images {
            for group in 0..<groups {
                window.unfold(x + (image * inChannels + group * perGroup) * plane, channels: perGroup, into: columns)
                let target = y + (image * outChannels + group * outPerGroup) * positions
                ocm_sgemm(false, false, Int32(outPerGroup), Int32(positions), Int32(patch), 1, weights + group * outPerGroup * patch, Int32(patch),
                          columns, Int32(positions), 0, target, Int32(positions))
            }
            if let bias { Self.addBias(bias, to: y + image * outChannels * positions, channels: outChannels, plane: positions) }
        }
    }

    /// `images` transposed convolutions of `x` (`inChannels × window.output`: the transpose reads
    /// what the convolution would write) by `weights` (`inChannels × outChannels/groups × kernel`)
    /// into `y` (`outChannels × window.input` each), `bias` added.
    package func transpose(_ x: UnsafePointer<Float>, weights: UnsafePointer<Float>, bias: UnsafePointer<Float>?, into y: UnsafeMutablePointer<Float>,
                           images: Int, scratch columns: UnsafeMutablePointer<Float>) {
        let (perGroup, outPerGroup) = (inChannels / groups, outChannels / groups)
        let (rows, positions, plane) = (outPerGroup * window.kernelCount, window.outputCount, window.inputCount)
        y.update(repeating: 0, count: images * outChannels * plane)
        for image in 0..<images {
            for group in 0..<groups {
                // columns (C_out/g·K × positions) = W_gᵀ · X_g, W_g being C_in/g × (C_out/g·K).
                ocm_sgemm(true, false, Int32(rows), Int32(positions), Int32(perGroup), 1, weights + group * perGroup * rows, Int32(rows),
                          x + (image * inChannels + group * perGroup) * positions, Int32(positions), 0, columns, Int32(positions))
                window.fold(columns, channels: outPerGroup, into: y + (image * outChannels + group * outPerGroup) * plane)
            }
            if let bias { Self.addBias(bias, to: y + image * outChannels * plane, channels: outChannels, plane: plane) }
        }
    }

    /// ``forward`` (or, with `transposed`, ``transpose``) over arrays: `images` images of `x`
    /// into `y`, with `scratch` of at least ``scratchFloats`` (``transposeScratchFloats``) floats.
    package func run(transposed: Bool, _ x: [Float], weights: [Float], bias: [Float]?, into y: inout [Float], images: Int, scratch: inout [Float]) {
        guard images > 0, !y.isEmpty else { return }
        x.withUnsafeBufferPointer { x in
            weights.withUnsafeBufferPointer { w in
                y.withUnsafeMutableBufferPointer { y in
                    scratch.withUnsafeMutableBufferPointer { columns in
                        func pass(_ bias: UnsafePointer<Float>?) {
                            if transposed {
                                transpose(x.baseAddress!, weights: w.baseAddress!, bias: bias, into: y.baseAddress!, images: images, scratch: columns.baseAddress!)
                            } else {
                                forward(x.baseAddress!, weights: w.baseAddress!, bias: bias, into: y.baseAddress!, images: images, scratch: columns.baseAddress!)
                            }
                        }
                        if let bias { bias.withUnsafeBufferPointer { pass($0.baseAddress) } } else { pass(nil) }
                    }
                }
            }
        }
    }

    private static func addBias(_ bias: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, channels: Int, plane: Int) {
        for channel in 0..<channels {
            let value = bias[channel], row = y + channel * plane
            for index in 0..<plane { row[index] += value }
        }
    }
}
