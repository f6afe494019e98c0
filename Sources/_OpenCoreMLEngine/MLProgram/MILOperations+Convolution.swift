import _OpenCoreMLKernels

/// 2-D convolution (`conv`, any group count, by im2col and one matrix product per group) and
/// pooling (`max_pool`, `avg_pool`) over N×C×H×W inputs, with `valid`, `custom`, `same` and
/// `same_lower` padding.
extension MILOperations {
    /// The padding (top, bottom, left, right) and output size for a 2-D window. With `ceilMode`
    /// (pooling's `ceil_mode`) a last window that starts inside the image or its leading padding
    /// but runs past the end counts too: out = ⌊(in + pad − k + s − 1) / s⌋ + 1, less one when
    /// that window would start at or past the input and half the padding (coremltools' rule).
    static func window(_ padType: String, pad: [Int]?, size: (Int, Int), kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int),
                       ceilMode: Bool = false, _ context: OperationContext) throws -> (pads: [Int], out: (Int, Int)) {
        guard kernel.0 > 0, kernel.1 > 0, stride.0 > 0, stride.1 > 0, dilation.0 > 0, dilation.1 > 0,
              kernel.0 <= 1 << 16, kernel.1 <= 1 << 16, dilation.0 <= 1 << 16, dilation.1 <= 1 << 16 else {
            throw context.fail("kernel \(kernel), strides \(stride) and dilations \(dilation) must be positive (kernel and dilations at most 65536)")
        }
        let effective = ((kernel.0 - 1) * dilation.0 + 1, (kernel.1 - 1) * dilation.1 + 1)
        var pads = [0, 0, 0, 0]
        switch padType {
        case "valid": break
        case "custom":
            guard let pad, pad.count == 4, pad.allSatisfy({ $0 >= 0 && $0 <= 1 << 16 }) else {
                throw context.fail("custom padding needs 4 values from 0 to 65536")
            }
            pads = pad
        case "same", "same_lower":
            for (d, (n, s, e)) in [(size.0, stride.0, effective.0), (size.1, stride.1, effective.1)].enumerated() {
                let out = (n + s - 1) / s
                let total = max((out - 1) * s + e - n, 0)
                let small = total / 2, large = total - small
                pads[2 * d] = padType == "same" ? small : large
                pads[2 * d + 1] = padType == "same" ? large : small
            }
        default: throw context.fail("pad_type '\(padType)' is not supported")
        }
        func out(_ size: Int, _ padding: Int, _ effective: Int, _ stride: Int) -> Int {
            guard ceilMode else { return (size + padding - effective) / stride + 1 }
            let count = (size + padding - effective + stride - 1) / stride + 1
            return padding > 0 && 2 * (count - 1) * stride >= 2 * size + padding ? count - 1 : count
        }
        let outH = out(size.0, pads[0] + pads[1], effective.0, stride.0)
        let outW = out(size.1, pads[2] + pads[3], effective.1, stride.1)
        guard outH > 0 && outW > 0 else { throw context.fail("the window is larger than the padded input \(size)") }
        return (pads, (outH, outW))
    }

    static let convolution: Make = { arguments, outputs, context in
        let x = try argument(arguments, "x", context)
        guard case .constant(.tensor(let weight)) = try argument(arguments, "weight", context), weight.shape.count == 4 else {
            throw context.fail("conv needs a constant 4-D weight (2-D convolution; other ranks are not supported yet)")
        }
        let bias = try arguments["bias"].map { _ -> MILTensor in
            guard case .constant(.tensor(let b)) = try argument(arguments, "bias", context), b.count == weight.shape[0] else {
                throw context.fail("conv's bias must be a constant of \(weight.shape[0]) values")
            }
            return b
        }
        let strides = try constantInts(arguments, "strides", context) ?? [1, 1]
        let dilations = try constantInts(arguments, "dilations", context) ?? [1, 1]
        let groups = try constantInts(arguments, "groups", context)?.first ?? 1
        let padType = try constantString(arguments, "pad_type", context) ?? "valid"
        let pad = try constantInts(arguments, "pad", context)
        let (outChannels, perGroup, kh, kw) = (weight.shape[0], weight.shape[1], weight.shape[2], weight.shape[3])
        guard !weight.shape.contains(0), groups >= 1, outChannels % groups == 0, strides.count == 2, dilations.count == 2, strides.allSatisfy({ $0 > 0 }), dilations.allSatisfy({ $0 > 0 }) else {
            throw context.fail("bad strides, dilations or groups")
        }
        let rows = perGroup * kh * kw, outPerGroup = outChannels / groups
        let isDepthwise = perGroup == 1 && outPerGroup == 1
        let activation = context.fusedActivation
        // Weights are constant: transformed for Winograd, or packed for the GEMM, once here, not for every image of every run.
        let winograd = WinogradConvolution.applies(kernel: (kh, kw), groups: groups, stride: (strides[0], strides[1]),
                                                   dilation: (dilations[0], dilations[1]), inChannels: perGroup, outChannels: outChannels)
            ? weight.values.withUnsafeBufferPointer { WinogradConvolution(weights: $0.baseAddress!, outChannels: outChannels, inChannels: perGroup) }
            : nil
        let packed = isDepthwise || winograd != nil ? nil : PackedWeights(weight.values, groups: groups, rows: outPerGroup, columns: rows)
        return { slots in
            let input = fetch(x, slots)
            guard input.shape.count == 4, input.shape[1] == perGroup * groups else {
                throw context.fail("input \(input.shape) does not have \(perGroup * groups) channels in N×C×H×W")
            }
            let (n, c, h, w) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
            let (pads, out) = try window(padType, pad: pad, size: (h, w), kernel: (kh, kw), stride: (strides[0], strides[1]),
                                         dilation: (dilations[0], dilations[1]), context)
            let plane = out.0 * out.1
            try slots.countMultiplyAdds(n, outChannels, plane, perGroup, kh, kw, context: context)
            var values = try slots.unfilledBuffer([n, outChannels, out.0, out.1], context)
            if let winograd {
                var scratch = try slots.unfilledBuffer([winograd.scratchFloats(outH: out.0, outW: out.1)], context)
                input.values.withUnsafeBufferPointer { x in
                    values.withUnsafeMutableBufferPointer { y in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            withOptionalPointer(bias?.values) { bias in
                                for image in 0..<n {
                                    winograd.convolve(x.baseAddress! + image * c * h * w, into: y.baseAddress! + image * outChannels * plane, height: h,
                                                      width: w, padTop: pads[0], padLeft: pads[2], outH: out.0, outW: out.1, bias: bias,
                                                      clampedTo: MILFusedActivation.bounds(activation), scratch: scratch.baseAddress!)
                                }
                            }
                        }
                    }
                }
                slots.recycle(scratch)
                slots[outputs[0]] = MILTensor(shape: [n, outChannels, out.0, out.1], values: values)
                return
            }
            if isDepthwise {
                // Depthwise: one kernel per channel, bias and activation included, by the C kernel (no im2col).
                let bounds = MILFusedActivation.bounds(activation)
                ocm_depthwise_conv2d(input.values, &values, weight.values, bias?.values, Int32(n * c), Int32(c), Int32(h), Int32(w),
                                     Int32(out.0), Int32(out.1), Int32(kh), Int32(kw), Int32(strides[0]), Int32(strides[1]),
                                     Int32(dilations[0]), Int32(dilations[1]), Int32(pads[0]), Int32(pads[2]), bounds.lower, bounds.upper)
                slots[outputs[0]] = MILTensor(shape: [n, outChannels, out.0, out.1], values: values)
                return
            }
            // A 1×1 kernel with stride 1 and no padding reads each image's channels as they are.
            let isPointwise = kh == 1 && kw == 1 && strides == [1, 1] && pads == [0, 0, 0, 0]
            // Columns too large for the cache go in bands of output rows, each unfolded and multiplied on one thread.
            let band = isPointwise ? out.0 : Self.bandRows(rows: rows, outH: out.0, outW: out.1)
            let bands = (out.0 + band - 1) / band, threads = bands > 1 ? chunkCount(bands) : 1
            var columns = isPointwise ? [] : try slots.unfilledBuffer([threads, rows, band, out.1], context)
            input.values.withUnsafeBufferPointer { source in
                weight.values.withUnsafeBufferPointer { kernel in
                    values.withUnsafeMutableBufferPointer { result in
                        columns.withUnsafeMutableBufferPointer { columns in
                            withOptionalPointer(bias?.values) { biasValues in
                                packed!.withPacked { packedWeights in
                                    for image in 0..<n {
                                        for group in 0..<groups {
                                            let channels = source.baseAddress! + (image * c + group * perGroup) * h * w
                                            let product = result.baseAddress! + (image * outChannels + group * outPerGroup) * plane
                                            let epilogue = MILFusedActivation.epilogue(activation, rowBias: biasValues.map { $0 + group * outPerGroup })
                                            /// The group's weights times `matrix` (rows × `width`) into `target` (rows `plane` apart).
                                            func multiply(_ matrix: UnsafePointer<Float>, width: Int, into target: UnsafeMutablePointer<Float>) {
                                                if let packedWeights {
                                                    ocm_sgemm_prepacked(packed!.isa, packedWeights + group * packed!.stride, false, Int32(outPerGroup), Int32(width),
                                                                        Int32(rows), 1, matrix, Int32(width), 0, target, Int32(plane), epilogue)
                                                } else {
                                                    ocm_sgemm_epilogue(false, false, Int32(outPerGroup), Int32(width), Int32(rows), 1,
                                                                       kernel.baseAddress! + group * outPerGroup * rows, Int32(rows), matrix, Int32(width), 0,
                                                                       target, Int32(plane), epilogue)
                                                }
                                            }
                                            if isPointwise {
                                                multiply(channels, width: plane, into: product)
                                                continue
                                            }
                                            /// Unfolds band `index` into `thread`'s columns and multiplies them.
                                            func run(band index: Int, thread: Int) {
                                                let (first, end) = (index * band, min(out.0, (index + 1) * band))
                                                let unfolded = columns.baseAddress! + thread * rows * band * out.1
                                                ocm_im2col_rows(channels, Int32(perGroup), Int32(h), Int32(w), Int32(kh), Int32(kw), Int32(strides[0]), Int32(strides[1]),
                                                                Int32(dilations[0]), Int32(dilations[1]), Int32(pads[0]), Int32(pads[2]), Int32(out.0), Int32(out.1),
                                                                Int32(first), Int32(end), unfolded)
                                                multiply(unfolded, width: (end - first) * out.1, into: product + first * out.1)
                                            }
                                            // One band: the unfolding and the product each use every thread.
                                            if bands == 1 { run(band: 0, thread: 0) } else { parallelForEach(bands, slots: threads) { run(band: $1, thread: $0) } }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            slots.recycle(columns)
            slots[outputs[0]] = MILTensor(shape: [n, outChannels, out.0, out.1], values: values)
        }
    }

    /// Output rows per band of a convolution's unfolded columns: all of them (one band, unfolded and
    /// multiplied by all threads) unless the columns outgrow a quarter of the L2 cache (256 KB) four
    /// times over; then bands of about that size, at least 512 positions wide, when there are two
    /// or more per thread (of `threads`).
    static func bandRows(rows: Int, outH: Int, outW: Int, threads: Int = kernelThreadCount) -> Int {
        let budget = 1 << 16
        guard rows * outH * outW > 4 * budget else { return outH }
        let band = max((512 + outW - 1) / outW, budget / max(rows * outW, 1))
        return (outH + band - 1) / band >= 2 * threads ? band : outH
    }

    /// Calls `body` with a pointer to `values`, or with nil when there are none.
    static func withOptionalPointer<Result>(_ values: [Float]?, _ body: (UnsafePointer<Float>?) throws -> Result) rethrows -> Result {
        guard let values else { return try body(nil) }
        return try values.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    static func pooling(max isMax: Bool) -> Make {
        { arguments, outputs, context in
            let x = try argument(arguments, "x", context)
            guard let kernel = try constantInts(arguments, "kernel_sizes", context), kernel.count == 2 else {
                throw context.fail("2-D pooling needs two kernel sizes (other ranks are not supported yet)")
            }
            let strides = try constantInts(arguments, "strides", context) ?? [1, 1]
            guard strides.count == 2 else { throw context.fail("2-D pooling needs two strides") }
            let padType = try constantString(arguments, "pad_type", context) ?? "valid"
            let pad = try constantInts(arguments, "pad", context)
            let excludePadding = (try constantInts(arguments, "exclude_padding_from_average", context)?.first ?? 0) != 0
            let ceilMode = (try constantInts(arguments, "ceil_mode", context)?.first ?? 0) != 0
            return { slots in
                let input = fetch(x, slots)
                guard input.shape.count == 4 else { throw context.fail("input \(input.shape) is not N×C×H×W") }
                let (n, c, h, w) = (input.shape[0], input.shape[1], input.shape[2], input.shape[3])
                let (pads, out) = try window(padType, pad: pad, size: (h, w), kernel: (kernel[0], kernel[1]), stride: (strides[0], strides[1]),
                                             dilation: (1, 1), ceilMode: ceilMode, context)
                // An average whose last window runs past the padded input would need a divisor of its own (PyTorch clips the window).
                if ceilMode && !isMax && !excludePadding
                    && ((out.0 - 1) * strides[0] + kernel[0] > h + pads[0] + pads[1] || (out.1 - 1) * strides[1] + kernel[1] > w + pads[2] + pads[3]) {
                    throw context.fail("avg_pool with ceil_mode counting the padding, where a window runs past the padded input, is not supported yet")
                }
                var values = try slots.unfilledBuffer([n, c, out.0, out.1], context)
                // A window wholly in the padding gives 0 (max) or 0 / its size (average).
                if isMax {
                    ocm_maxpool2d(input.values, &values, nil, Int32(n * c), Int32(h), Int32(w), Int32(kernel[0]), Int32(kernel[1]),
                                  Int32(strides[0]), Int32(strides[1]), Int32(pads[0]), Int32(pads[2]), Int32(out.0), Int32(out.1))
                } else {
                    ocm_avgpool2d(input.values, &values, Int32(n * c), Int32(h), Int32(w), Int32(kernel[0]), Int32(kernel[1]),
                                  Int32(strides[0]), Int32(strides[1]), Int32(pads[0]), Int32(pads[2]), Int32(out.0), Int32(out.1), excludePadding)
                }
                slots[outputs[0]] = MILTensor(shape: [n, c, out.0, out.1], values: values)
            }
        }
    }
}
